import {
  ContractDeployed,
  ContractDeployment,
  ContractDeploymentList,
  ContractDeploymentParams,
  ContractForNetwork,
  ContractNetworkParams,
  IdParams,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { BEARER, ok } from '../../../http/schemas.js';
import { requireActor } from '../../access/caller.js';
import { ADMIN_ROLES } from '../../access/policy.js';
import type { WalletApi } from '../api.js';
import { WALLET_AUDIT } from '../common/audit.js';

const TAG = 'contracts';

/** `/workspaces/{id}/contracts`: the escrow contracts a workspace's transactions use. */
export function contractRoutes(api: WalletApi) {
  return async (app: HttpApp) => {
    app.get(
      '/workspaces/:id/contracts',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: "The workspace's escrow contracts",
          description:
            "The workspace's dedicated deployments (every status: pending, active, failed, deprecated) and the active shared escrows " +
            '(ESCROW_CONTRACTS, `isShared: true`). Members and SUPER_ADMINs.',
          operationId: 'listContracts',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(ContractDeploymentList), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await api.listContracts(requireActor(request.caller), request.params.id)),
    );

    app.get(
      '/workspaces/:id/contracts/:network',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: 'The escrow new transactions use on a network',
          description:
            "The workspace's active dedicated escrow on the network, else the network's shared one; 404 when neither exists. " +
            'Members and SUPER_ADMINs.',
          operationId: 'getContractForNetwork',
          security: BEARER,
          params: ContractNetworkParams,
          response: { 200: ok(ContractForNetwork), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await api.contractFor(requireActor(request.caller), request.params.id, request.params.network)),
    );

    app.post(
      '/workspaces/:id/contracts/:network',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.contractDeploy },
        schema: {
          tags: [TAG],
          summary: 'Deploy a dedicated escrow contract',
          description:
            "Deploys the Holdfast escrow on the network's RPC (CHAIN_RPC_URLS), paid by CONTRACT_DEPLOYER_PRIVATE_KEY, and waits until it " +
            'is mined (up to a minute). From then on it is the contract new transactions of the workspace use there, and the chain-indexer ' +
            'follows it from its deployment block. 409 when the workspace has a pending or active one there; 503 `CONTRACT_NOT_AVAILABLE` ' +
            'with `details.reason` (`no_rpc`, `no_deployer_key`, `rpc_unreachable`, `chain_mismatch`, `deployment_failed`). At most ' +
            'CONTRACT_DEPLOYMENTS_PER_DAY (5) deployments per workspace in any 24 hours, failed ones included: more is 429 ' +
            '`DEPLOYMENT_LIMIT_EXCEEDED` with `Retry-After`. ADMINs of the workspace and SUPER_ADMINs.',
          operationId: 'deployContract',
          security: BEARER,
          params: ContractNetworkParams,
          response: { 201: ok(ContractDeployed), ...errorResponses(401, 403, 404, 409, 429, 503) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await api.deployContract(request.caller, request.params.id, request.params.network))),
    );

    app.post(
      '/workspaces/:id/contracts/deployments/:deploymentId/deprecate',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.contractDeprecate },
        schema: {
          tags: [TAG],
          summary: 'Deprecate a dedicated escrow contract',
          description:
            'No longer used for new transactions (the shared escrow is, until another dedicated one is deployed). Escrows it holds are ' +
            'unaffected: they are released, refunded or rescinded in it, and the chain-indexer keeps following it. Deprecating again ' +
            'answers the deployment as it is; a pending or failed one is 409 `INVALID_STATE_TRANSITION`; a shared one or another ' +
            "workspace's is 404. ADMINs of the workspace and SUPER_ADMINs.",
          operationId: 'deprecateContract',
          security: BEARER,
          params: ContractDeploymentParams,
          response: { 200: ok(ContractDeployment), ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request) => envelope(request, await api.deprecateContract(request.caller, request.params.id, request.params.deploymentId)),
    );
  };
}

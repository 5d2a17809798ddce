import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { ADMIN_ROLES, requireActor } from '../../access/index.js';
import type { WalletApi } from '../api.js';
import { WALLET_AUDIT } from '../common/audit.js';

/** `/workspaces/{id}/contracts`: the escrow contracts a workspace's transactions use. */
export function contractRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listContracts, { config: { tier: 'standard' } }, async (request) =>
      envelope(request, await wallets.listContracts(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(app, api.getContractForNetwork, { config: { tier: 'standard' } }, async (request) =>
      envelope(request, await wallets.contractFor(requireActor(request.caller), request.params.id, request.params.network)),
    );

    serveEndpoint(
      app,
      api.deployContract,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.contractDeploy } },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await wallets.deployContract(request.caller, request.params.id, request.params.network))),
    );

    serveEndpoint(
      app,
      api.deprecateContract,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.contractDeprecate } },
      async (request) => envelope(request, await wallets.deprecateContract(request.caller, request.params.id, request.params.deploymentId)),
    );
  };
}

import {
  ExternalWalletConfig,
  ExternalWalletConfigDeleted,
  ExternalWalletConfigList,
  ExternalWalletConfigParams,
  IdParams,
  UpsertExternalWalletConfigBody,
} from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { BEARER } from '../../../http/schemas.js';
import { requireActor } from '../../access/caller.js';
import type { WalletApi } from '../api.js';
import { WALLET_AUDIT } from '../common/audit.js';

const TAG = 'external wallet configs';
const ACCESS = 'Members of the workspace (any role) and SUPER_ADMINs.';
const BARE = "The answer is the bare object (the spec's shape), not the envelope; errors use the error envelope.";

/** `/workspaces/{id}/external-wallet-configs[/{type}]`: the browser wallet connectors (EXTERNAL_WALLET_1..4) a workspace offers. */
export function externalWalletConfigRoutes(api: WalletApi) {
  return async (app: HttpApp) => {
    app.get(
      '/workspaces/:id/external-wallet-configs',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: "A workspace's external wallet configs",
          description: `\`{configs}\`, one per configured type. ${BARE} ${ACCESS}`,
          operationId: 'listExternalWalletConfigs',
          security: BEARER,
          params: IdParams,
          response: { 200: ExternalWalletConfigList, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => api.listExternalConfigs(requireActor(request.caller), request.params.id),
    );

    app.get(
      '/workspaces/:id/external-wallet-configs/:type',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: 'One external wallet config',
          description: `404 when the type is not configured; 400 for a type that does not exist. ${BARE} ${ACCESS}`,
          operationId: 'getExternalWalletConfig',
          security: BEARER,
          params: ExternalWalletConfigParams,
          response: { 200: ExternalWalletConfig, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => api.getExternalConfig(requireActor(request.caller), request.params.id, request.params.type),
    );

    app.put(
      '/workspaces/:id/external-wallet-configs/:type',
      {
        config: { tier: 'standard', audit: WALLET_AUDIT.externalConfigUpsert },
        schema: {
          tags: [TAG],
          summary: 'Create or update an external wallet config',
          description:
            'Creates the config (`isEnabled` false and empty lists unless given) or updates the fields given; `config` replaces the whole ' +
            "object. The RPC provider key is a client-side key the customer's browser needs, so it is returned; it is encrypted at rest " +
            `and audited as \`[redacted]\`. ${BARE} ${ACCESS}`,
          operationId: 'upsertExternalWalletConfig',
          security: BEARER,
          params: ExternalWalletConfigParams,
          body: UpsertExternalWalletConfigBody,
          response: { 200: ExternalWalletConfig, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => api.upsertExternalConfig(request.caller, request.params.id, request.params.type, request.body),
    );

    app.delete(
      '/workspaces/:id/external-wallet-configs/:type',
      {
        config: { tier: 'standard', audit: WALLET_AUDIT.externalConfigDelete },
        schema: {
          tags: [TAG],
          summary: 'Delete an external wallet config',
          description: `\`{message}\`; 404 when the type is not configured. ${BARE} ${ACCESS}`,
          operationId: 'deleteExternalWalletConfig',
          security: BEARER,
          params: ExternalWalletConfigParams,
          response: { 200: ExternalWalletConfigDeleted, ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => api.deleteExternalConfig(request.caller, request.params.id, request.params.type),
    );
  };
}

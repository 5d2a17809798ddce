import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { requireActor } from '../../access/index.js';
import type { WalletApi } from '../api.js';
import { WALLET_AUDIT } from '../common/audit.js';

/** `/workspaces/{id}/external-wallet-configs[/{type}]`: the browser wallet connectors (EXTERNAL_WALLET_1..4) a workspace offers. */
export function externalWalletConfigRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listExternalWalletConfigs, { config: { tier: 'standard' } }, async (request) =>
      wallets.listExternalConfigs(requireActor(request.caller), request.params.id),
    );

    serveEndpoint(app, api.getExternalWalletConfig, { config: { tier: 'standard' } }, async (request) =>
      wallets.getExternalConfig(requireActor(request.caller), request.params.id, request.params.type),
    );

    serveEndpoint(
      app,
      api.upsertExternalWalletConfig,
      { config: { tier: 'standard', audit: WALLET_AUDIT.externalConfigUpsert } },
      async (request) => wallets.upsertExternalConfig(request.caller, request.params.id, request.params.type, request.body),
    );

    serveEndpoint(
      app,
      api.deleteExternalWalletConfig,
      { config: { tier: 'standard', audit: WALLET_AUDIT.externalConfigDelete } },
      async (request) => wallets.deleteExternalConfig(request.caller, request.params.id, request.params.type),
    );
  };
}

import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../../http/surface.js';
import { requireActor } from '../../access/index.js';
import type { WalletApi } from '../api.js';

/** `/workspaces/{id}/external-wallet-configs[/{type}]`: the browser wallet connectors (EXTERNAL_WALLET_1..4) a workspace offers. */
export function externalWalletConfigRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listExternalWalletConfigs, async (request) => wallets.listExternalConfigs(requireActor(request.caller), request.params.id)),
      route(api.getExternalWalletConfig, async (request) =>
        wallets.getExternalConfig(requireActor(request.caller), request.params.id, request.params.type),
      ),
      route(api.upsertExternalWalletConfig, async (request) =>
        wallets.upsertExternalConfig(request.caller, request.params.id, request.params.type, request.body),
      ),
      route(api.deleteExternalWalletConfig, async (request) =>
        wallets.deleteExternalConfig(request.caller, request.params.id, request.params.type),
      ),
    ]);
  };
}

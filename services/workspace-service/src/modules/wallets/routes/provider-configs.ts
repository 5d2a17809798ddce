import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../../http/surface.js';
import { requireActor } from '../../access/index.js';
import type { WalletApi } from '../api.js';

/** `/wallet-provider-configs`: custody vendor credentials per workspace (ADMIN of the workspace or SUPER_ADMIN). */
export function walletProviderConfigRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listWalletProviderConfigs, async (request) => wallets.listProviderConfigs(requireActor(request.caller), request.query)),
      route(api.createWalletProviderConfig, async (request) => wallets.createProviderConfig(request.caller, request.body)),
      route(api.walletProviderConfigStatus, async (request) => wallets.providerConfigStatus(request.query)),
      route(api.checkDuplicateWalletProviderConfig, async (request) =>
        wallets.checkDuplicateProviderConfig(requireActor(request.caller), request.query),
      ),
      route(api.getWalletProviderConfig, async (request) => wallets.getProviderConfig(requireActor(request.caller), request.params.id)),
      route(api.updateWalletProviderConfig, async (request) =>
        wallets.updateProviderConfig(request.caller, request.params.id, request.body),
      ),
      route(api.deleteWalletProviderConfig, async (request, reply) => {
        await wallets.deleteProviderConfig(request.caller, request.params.id);
        return reply.code(204).send(null);
      }),
      route(api.testWalletProviderConnection, async (request) =>
        wallets.testProviderConnection(requireActor(request.caller), request.params.id),
      ),
      route(api.setDefaultWalletProviderConfig, async (request) => wallets.setDefaultProviderConfig(request.caller, request.params.id)),
    ]);
  };
}

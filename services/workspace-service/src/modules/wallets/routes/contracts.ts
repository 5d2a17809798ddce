import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../../http/surface.js';
import { requireActor } from '../../access/index.js';
import type { WalletApi } from '../api.js';

/** `/workspaces/{id}/contracts`: the escrow contracts a workspace's transactions use. */
export function contractRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listContracts, async (request) => wallets.listContracts(requireActor(request.caller), request.params.id)),
      route(api.getContractForNetwork, async (request) =>
        wallets.contractFor(requireActor(request.caller), request.params.id, request.params.network),
      ),
      route(api.deployContract, async (request) => wallets.deployContract(request.caller, request.params.id, request.params.network)),
      route(api.deprecateContract, async (request) =>
        wallets.deprecateContract(request.caller, request.params.id, request.params.deploymentId),
      ),
    ]);
  };
}

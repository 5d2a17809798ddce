import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../../http/surface.js';
import { requireActor } from '../../access/index.js';
import type { WalletApi } from '../api.js';

/** `/workspaces/{id}/wallet-accounts` and `/wallet-balances`: the workspace's own accounts through its wallet provider. */
export function walletAccountRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listWalletAccounts, async (request) => wallets.listAccounts(requireActor(request.caller), request.params.id)),
      route(api.createWalletAccounts, async (request) => wallets.createAccounts(request.caller, request.params.id, request.body)),
      route(api.getWalletBalances, async (request) => wallets.balances(requireActor(request.caller), request.params.id)),
    ]);
  };
}

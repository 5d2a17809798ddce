import { workspaceEndpoints as api } from '@holdfast/contracts';
import { emptyBodyAsObject, type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../../http/surface.js';
import { requireActor } from '../../access/index.js';
import type { WalletApi } from '../api.js';

/** `/customers/{id}/custody-a-wallet[/balance]`: a customer's wallet at CUSTODY_A, for the workspace's administrators. */
export function custodyAWalletRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.getCustodyAWallet, async (request) => wallets.custodyAWallet(requireActor(request.caller), request.params.id)),
      route(
        api.createCustodyAWallet,
        async (request) => await wallets.createCustodyAWallet(request.caller, request.params.id, request.body),
        { preValidation: emptyBodyAsObject },
      ),
      route(api.getCustodyAWalletBalance, async (request) =>
        wallets.custodyAWalletBalance(requireActor(request.caller), request.params.id),
      ),
    ]);
  };
}

/**
 * `/workspaces/{id}/customers/auth/{wallet-nonce,link-wallet,wallet-balances}`: a customer, with its
 * own token, links its wallet (Sign-In with Ethereum) and reads its balances. Registered beside the
 * customers' own self-service routes (same tag).
 */
export function customerSelfWalletRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.customerWalletNonce, async (request) => await wallets.walletNonce(request.caller, request.params.id, request.body), {
        preValidation: emptyBodyAsObject,
      }),
      route(api.customerLinkWallet, async (request) => wallets.linkWallet(request.caller, request.params.id, request.body)),
      route(api.customerWalletBalances, async (request) => wallets.customerWalletBalances(request.caller, request.params.id)),
    ]);
  };
}

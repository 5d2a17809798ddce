import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { ADMIN_ROLES, requireActor } from '../../access/index.js';
import type { WalletApi } from '../api.js';
import { WALLET_AUDIT } from '../common/audit.js';

/** `/workspaces/{id}/wallet-accounts` and `/wallet-balances`: the workspace's own accounts through its wallet provider. */
export function walletAccountRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listWalletAccounts, { config: { tier: 'standard' } }, async (request) =>
      envelope(request, await wallets.listAccounts(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(
      app,
      api.createWalletAccounts,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.accountsCreate } },
      async (request) => envelope(request, await wallets.createAccounts(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(app, api.getWalletBalances, { config: { tier: 'standard' } }, async (request) =>
      envelope(request, await wallets.balances(requireActor(request.caller), request.params.id)),
    );
  };
}

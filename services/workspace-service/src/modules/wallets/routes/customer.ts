import { workspaceEndpoints as api } from '@holdfast/contracts';
import { emptyBodyAsObject, envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { ADMIN_ROLES, requireActor } from '../../access/index.js';
import type { WalletApi } from '../api.js';
import { WALLET_AUDIT } from '../common/audit.js';

/** `/customers/{id}/custody-a-wallet[/balance]`: a customer's wallet at CUSTODY_A, for the workspace's administrators. */
export function custodyAWalletRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.getCustodyAWallet, { config: { tier: 'standard' } }, async (request) =>
      envelope(request, await wallets.custodyAWallet(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(
      app,
      api.createCustodyAWallet,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.custodyAWalletCreate }, preValidation: emptyBodyAsObject },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await wallets.createCustodyAWallet(request.caller, request.params.id, request.body))),
    );

    serveEndpoint(app, api.getCustodyAWalletBalance, { config: { tier: 'standard', roles: ADMIN_ROLES } }, async (request) =>
      envelope(request, await wallets.custodyAWalletBalance(requireActor(request.caller), request.params.id)),
    );
  };
}

/**
 * `/workspaces/{id}/customers/auth/{wallet-nonce,link-wallet,wallet-balances}`: a customer, with its
 * own token, links its wallet (Sign-In with Ethereum) and reads its balances. Registered beside the
 * customers' own self-service routes (same tag).
 */
export function customerSelfWalletRoutes(wallets: WalletApi) {
  return async (app: HttpApp) => {
    serveEndpoint(
      app,
      api.customerWalletNonce,
      { config: { tier: 'standard', access: 'customer' }, preValidation: emptyBodyAsObject },
      async (request) => envelope(request, await wallets.walletNonce(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(
      app,
      api.customerLinkWallet,
      { config: { tier: 'standard', access: 'customer', audit: WALLET_AUDIT.customerWalletLink } },
      async (request) => envelope(request, await wallets.linkWallet(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(app, api.customerWalletBalances, { config: { tier: 'standard', access: 'customer' } }, async (request) =>
      envelope(request, await wallets.customerWalletBalances(request.caller, request.params.id)),
    );
  };
}

import { CreateWalletAccountsBody, IdParams, WalletAccounts, WalletBalances } from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { BEARER, ok } from '../../../http/schemas.js';
import { requireActor } from '../../access/caller.js';
import { ADMIN_ROLES } from '../../access/policy.js';
import type { WalletApi } from '../api.js';
import { WALLET_AUDIT } from '../common/audit.js';

const TAG = 'wallets';

/** `/workspaces/{id}/wallet-accounts` and `/wallet-balances`: the workspace's own accounts through its wallet provider. */
export function walletAccountRoutes(api: WalletApi) {
  return async (app: HttpApp) => {
    app.get(
      '/workspaces/:id/wallet-accounts',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: "The workspace's wallet accounts",
          description:
            "`{accounts, message}` from the workspace's provider (`walletProvider`: PLATFORM, the built-in HD wallet, or a custody vendor). " +
            '400 `WALLET_PROVIDER_NOT_CONFIGURED` without a provider (or without an active config for a custody provider); 502 ' +
            '`WALLET_PROVIDER_ERROR` when the vendor fails. Members and SUPER_ADMINs.',
          operationId: 'listWalletAccounts',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(WalletAccounts), ...errorResponses(401, 403, 404, 502) },
        },
      },
      async (request) => envelope(request, await api.listAccounts(requireActor(request.caller), request.params.id)),
    );

    app.post(
      '/workspaces/:id/wallet-accounts',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.accountsCreate },
        schema: {
          tags: [TAG],
          summary: 'Create wallet accounts',
          description:
            'One account per `{addressFormat, curve, path}`: ADDRESS_FORMAT_ETHEREUM on CURVE_SECP256K1 (any BIP-32 path), ' +
            'ADDRESS_FORMAT_SOLANA on CURVE_ED25519 (every level hardened). PLATFORM and CUSTODY_C derive exactly the path asked for ' +
            '(asking again answers the same account); CUSTODY_A, B and D choose their own (`path: null` when undisclosed). Answers the ' +
            'accounts created. 400 for a combination that cannot be derived or no provider; 502 when the vendor fails. ADMINs of the ' +
            'workspace and SUPER_ADMINs.',
          operationId: 'createWalletAccounts',
          security: BEARER,
          params: IdParams,
          body: CreateWalletAccountsBody,
          response: { 200: ok(WalletAccounts), ...errorResponses(401, 403, 404, 502) },
        },
      },
      async (request) => envelope(request, await api.createAccounts(request.caller, request.params.id, request.body)),
    );

    app.get(
      '/workspaces/:id/wallet-balances',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: "Balances of the workspace's accounts",
          description:
            'Native and token balances of every account on every configured network of its kind (EVM: CHAIN_RPC_URLS, Solana: ' +
            'SOLANA_RPC_URLS; tokens: TOKEN_CONTRACTS), exact decimal strings. A network, token or vendor that fails becomes an entry ' +
            'of `warnings` (`RPC_UNAVAILABLE`, `RPC_TIMEOUT`, `MALFORMED_RESPONSE`, `TOKEN_UNAVAILABLE`, `PROVIDER_ERROR`), never an ' +
            'error. 400 without a wallet provider. Members and SUPER_ADMINs.',
          operationId: 'getWalletBalances',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(WalletBalances), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await api.balances(requireActor(request.caller), request.params.id)),
    );
  };
}

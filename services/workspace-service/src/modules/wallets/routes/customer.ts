import {
  CreateCustodyAWalletBody,
  CustodyAWalletBalance,
  CustodyAWalletCreated,
  CustodyAWalletStatus,
  CustomerWallet,
  IdParams,
  LinkWalletBody,
  WalletBalances,
  WalletLinkNonce,
  WalletLinkNonceBody,
  WorkspaceRefParams,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { BEARER, CUSTOMER_BEARER, emptyBodyAsObject, ok } from '../../../http/schemas.js';
import { requireActor } from '../../access/caller.js';
import { ADMIN_ROLES } from '../../access/policy.js';
import { CUSTOMER_TOKEN, SELF_TAG } from '../../customers/routes.js';
import type { WalletApi } from '../api.js';
import { WALLET_AUDIT } from '../common/audit.js';

const TAG = 'wallets';

/** `/customers/{id}/custody-a-wallet[/balance]`: a customer's wallet at CUSTODY_A, for the workspace's administrators. */
export function custodyAWalletRoutes(api: WalletApi) {
  return async (app: HttpApp) => {
    app.get(
      '/customers/:id/custody-a-wallet',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: "A customer's CUSTODY_A wallet",
          description:
            '`{hasWallet, walletId, walletAddress, walletLinkedAt}` (`hasWallet: false` when the customer has none, or linked its own ' +
            "wallet instead). Members of the customer's workspace and SUPER_ADMINs; another tenant's customer is 404.",
          operationId: 'getCustodyAWallet',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(CustodyAWalletStatus), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await api.custodyAWallet(requireActor(request.caller), request.params.id)),
    );

    app.post(
      '/customers/:id/custody-a-wallet',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: WALLET_AUDIT.custodyAWalletCreate },
        preValidation: emptyBodyAsObject,
        schema: {
          tags: [TAG],
          summary: 'Create a CUSTODY_A wallet for a customer',
          description:
            "Creates the wallet at CUSTODY_A (a retry sends the vendor the same idempotency key) and makes it the customer's wallet. " +
            '`network` defaults to BASE_SEPOLIA (BASE in production). 400 `WALLET_PROVIDER_NOT_CONFIGURED` without an active CUSTODY_A ' +
            'config for the workspace; 400 `WALLET_ALREADY_LINKED` when the customer has a wallet; 502 when the vendor fails (nothing ' +
            "is stored). ADMINs of the customer's workspace and SUPER_ADMINs.",
          operationId: 'createCustodyAWallet',
          security: BEARER,
          params: IdParams,
          body: CreateCustodyAWalletBody,
          response: { 201: ok(CustodyAWalletCreated), ...errorResponses(401, 403, 404, 409, 502) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await api.createCustodyAWallet(request.caller, request.params.id, request.body))),
    );

    app.get(
      '/customers/:id/custody-a-wallet/balance',
      {
        config: { tier: 'standard', roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: "A customer's CUSTODY_A wallet balance",
          description:
            "CUSTODY_A's own report: `{walletId, walletAddress, blockchain, network, nativeBalance, nativeSymbol, tokens}`. 404 when the " +
            "customer has no CUSTODY_A wallet; 502 when the vendor fails. ADMINs of the customer's workspace and SUPER_ADMINs.",
          operationId: 'getCustodyAWalletBalance',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(CustodyAWalletBalance), ...errorResponses(401, 403, 404, 502) },
        },
      },
      async (request) => envelope(request, await api.custodyAWalletBalance(requireActor(request.caller), request.params.id)),
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
    app.post(
      '/workspaces/:id/customers/auth/wallet-nonce',
      {
        config: { tier: 'standard', access: 'customer' },
        preValidation: emptyBodyAsObject,
        schema: {
          tags: [SELF_TAG],
          summary: 'A nonce for linking a wallet (Sign-In with Ethereum)',
          description:
            'A single-use nonce bound to this customer and chain, valid SIWE_NONCE_TTL (10 minutes), with what the EIP-4361 message must ' +
            'hold: `{nonce, domain, uri, version, chainId, statement, issuedAt, expirationTime}`, and the ready-to-sign `message` when ' +
            '`walletAddress` is given. `chainId` defaults to the first configured EVM network. 400 `WALLET_ALREADY_LINKED` when the ' +
            `customer has a wallet. ${CUSTOMER_TOKEN}`,
          operationId: 'customerWalletNonce',
          security: CUSTOMER_BEARER,
          params: WorkspaceRefParams,
          body: WalletLinkNonceBody,
          response: { 200: ok(WalletLinkNonce), ...errorResponses(401, 403, 503) },
        },
      },
      async (request) => envelope(request, await wallets.walletNonce(request.caller, request.params.id, request.body)),
    );

    app.post(
      '/workspaces/:id/customers/auth/link-wallet',
      {
        config: { tier: 'standard', access: 'customer', audit: WALLET_AUDIT.customerWalletLink },
        schema: {
          tags: [SELF_TAG],
          summary: "Link the customer's wallet with a signed EIP-4361 message",
          description:
            '`message` is the Sign-In with Ethereum message (for SIWE_DOMAIN, a configured chain, the nonce of wallet-nonce, unexpired), ' +
            '`signature` its signature by `walletAddress`, checked with viem so that ordinary accounts and smart-contract wallets ' +
            '(ERC-1271, ERC-6492) both work. 400 `VALIDATION_ERROR` naming the field; 400 `INVALID_CODE` for an unknown, used or expired ' +
            'nonce (a replay); 400 `WALLET_ALREADY_LINKED`; 409 when another customer of the workspace has the address; 503 when the chain ' +
            `cannot be asked about a contract wallet. ${CUSTOMER_TOKEN}`,
          operationId: 'customerLinkWallet',
          security: CUSTOMER_BEARER,
          params: WorkspaceRefParams,
          body: LinkWalletBody,
          response: { 200: ok(CustomerWallet), ...errorResponses(401, 403, 409, 503) },
        },
      },
      async (request) => envelope(request, await wallets.linkWallet(request.caller, request.params.id, request.body)),
    );

    app.get(
      '/workspaces/:id/customers/auth/wallet-balances',
      {
        config: { tier: 'standard', access: 'customer' },
        schema: {
          tags: [SELF_TAG],
          summary: "Balances of the customer's wallet",
          description:
            'Native and token balances of the linked wallet on every configured EVM network (exact decimal strings); a network or token ' +
            `that cannot be read is a \`warnings\` entry, never an error. 404 when the customer has no wallet. ${CUSTOMER_TOKEN}`,
          operationId: 'customerWalletBalances',
          security: CUSTOMER_BEARER,
          params: WorkspaceRefParams,
          response: { 200: ok(WalletBalances), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await wallets.customerWalletBalances(request.caller, request.params.id)),
    );
  };
}

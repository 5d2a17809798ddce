import {
  CreateCustodyAWalletBody,
  CustodyAWalletBalance,
  CustodyAWalletCreated,
  CustodyAWalletStatus,
  IdParams,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { BEARER, emptyBodyAsObject, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { ADMIN_ROLES } from '../access/policy.js';
import type { WalletApi } from '../wallets/api.js';
import { WALLET_AUDIT } from '../wallets/audit.js';

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

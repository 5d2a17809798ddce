import {
  CreateWorkspaceTransactionBody,
  GlobalTransactionList,
  GlobalTransactionsQuery,
  IdParams,
  SubmitEscrowHashResult,
  WorkspaceSubmitEscrowHashBody,
  WorkspaceTransaction,
  WorkspaceTransactionList,
  WorkspaceTransactionParams,
  WorkspaceTransactionStats,
  WorkspaceTransactionsQuery,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { BEARER, ok, WORKSPACE_KEY } from '../../http/schemas.js';
import { AUDIT } from '../audit/actions.js';
import type { TransactionsService } from './service.js';

const TAG = 'Transactions';
const STATUSES =
  'Statuses are upper-case: PENDING (pending, risk_review, pending_user_action), ESCROWED, IN_REVIEW (in_review, disputed), COMPLETED, FAILED, CANCELLED (refunded, rescinded). Amounts are exact decimal strings.';
const UPSTREAM = '503 when payments does not answer.';

/** The spec's "Workspace API: workspace transactions" and "global transactions" (docs/workspace-transactions.md). */
export function transactionRoutes(transactions: TransactionsService) {
  return async (app: HttpApp) => {
    app.get(
      '/workspaces/:id/transactions',
      {
        schema: {
          tags: [TAG],
          summary: "List a workspace's transactions",
          description: [
            "Transactions on the workspace's platforms (its platform mappings, revoked ones included), from or to an address it has",
            "proven control of (the accounts of its built-in PLATFORM wallet, customers' auto-created ones included; never a",
            'CUSTODY_A or SIWE-linked address, which proves nothing), or naming one in `metadata.walletAddress`,',
            '`metadata.senderWalletAddress` or `metadata.recipientWalletAddress`; newest first, each with `_platformId` and `_platformName`.',
            `\`status\` filters by the upper-case value. ${STATUSES} Members of the workspace and SUPER_ADMINs. ${UPSTREAM}`,
          ].join(' '),
          operationId: 'listWorkspaceTransactions',
          security: BEARER,
          params: IdParams,
          querystring: WorkspaceTransactionsQuery,
          response: { 200: ok(WorkspaceTransactionList), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await transactions.list(request.caller, request.params.id, request.query)),
    );

    app.post(
      '/workspaces/:id/transactions',
      {
        config: { tier: 'standard', audit: AUDIT.transactionCreate },
        schema: {
          tags: [TAG],
          summary: 'Create a transaction',
          description: [
            "Forwarded to payments under the workspace's default platform: its newest active production platform, else its newest",
            'active sandbox platform (409 `CONFLICT` without one: issue sandbox credentials first). `amount` is a decimal string',
            '(0.01 to 1,000,000), `network` a network name (a mainnet is coerced to its testnet outside production; a testnet is',
            'refused in production). `currency` defaults to USDC, `orchestrationType` to raw; `customerId` must be a customer of the',
            `workspace (404). ${STATUSES} Members of the workspace and SUPER_ADMINs. ${UPSTREAM}`,
          ].join(' '),
          operationId: 'createWorkspaceTransaction',
          security: BEARER,
          params: IdParams,
          body: CreateWorkspaceTransactionBody,
          response: { 200: ok(Type.Object({ transaction: WorkspaceTransaction })), ...errorResponses(401, 403, 404, 409, 503) },
        },
      },
      async (request) => envelope(request, await transactions.create(request.caller, request.params.id, request.body)),
    );

    app.get(
      '/workspaces/:id/transactions/:txId',
      {
        config: { access: 'workspace_key' },
        schema: {
          tags: [TAG],
          summary: 'Read a transaction with the workspace key',
          description: [
            "`X-API-Key`: a Payments API key of one of the workspace's platforms, with `read:transactions` (403 `INSUFFICIENT_SCOPE`).",
            "A key of another workspace, or a transaction outside the workspace's list, answers 404.",
            `${STATUSES} ${UPSTREAM}`,
          ].join(' '),
          operationId: 'getWorkspaceTransaction',
          security: WORKSPACE_KEY,
          params: WorkspaceTransactionParams,
          response: { 200: ok(WorkspaceTransaction), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await transactions.getWithKey(request.caller, request.params.id, request.params.txId)),
    );

    app.post(
      '/workspaces/:id/transactions/:txId/submit-escrow-hash',
      {
        config: { access: 'workspace_key', tier: 'standard', audit: AUDIT.transactionSubmitEscrowHash },
        schema: {
          tags: [TAG],
          summary: "Submit a transaction's escrow hash with the workspace key",
          description: [
            'The hash of the escrow call the sender signed. `X-API-Key`: a Payments API key of the workspace with `write:transactions`.',
            "Only a transaction on one of the workspace's platforms can be moved (404 otherwise, and for another workspace's key).",
            `${UPSTREAM}`,
          ].join(' '),
          operationId: 'submitWorkspaceTransactionEscrowHash',
          security: WORKSPACE_KEY,
          params: WorkspaceTransactionParams,
          body: WorkspaceSubmitEscrowHashBody,
          response: { 200: ok(SubmitEscrowHashResult), ...errorResponses(401, 403, 404, 409, 503) },
        },
      },
      async (request) =>
        envelope(request, await transactions.submitEscrowHash(request.caller, request.params.id, request.params.txId, request.body)),
    );

    app.get(
      '/transactions',
      {
        schema: {
          tags: [TAG],
          summary: 'List transactions across connected platforms',
          description: [
            'SUPER_ADMIN: every platform connected to any workspace; anyone else: the platforms of its own workspace (none without',
            'one). `meta.platformCount` is how many platforms were searched. `walletAddress` matches the sender or the receiver.',
            `${STATUSES} ${UPSTREAM}`,
          ].join(' '),
          operationId: 'listTransactions',
          security: BEARER,
          querystring: GlobalTransactionsQuery,
          response: { 200: ok(GlobalTransactionList), ...errorResponses(401, 503) },
        },
      },
      async (request) => envelope(request, await transactions.globalList(request.caller, request.query)),
    );

    app.get(
      '/transactions/stats',
      {
        schema: {
          tags: [TAG],
          summary: 'Transaction statistics',
          description: `Per upper-case status \`{count, total_amount}\` (exact decimal string) over the platforms GET /transactions searches. ${UPSTREAM}`,
          operationId: 'getTransactionStats',
          security: BEARER,
          response: { 200: ok(WorkspaceTransactionStats), ...errorResponses(401, 503) },
        },
      },
      async (request) => envelope(request, await transactions.stats(request.caller)),
    );

    app.get(
      '/transactions/:id',
      {
        schema: {
          tags: [TAG],
          summary: 'Read a transaction across connected platforms',
          description: `Searched across the platforms GET /transactions searches; 404 outside them. ${STATUSES} ${UPSTREAM}`,
          operationId: 'getTransaction',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(WorkspaceTransaction), ...errorResponses(401, 404, 503) },
        },
      },
      async (request) => envelope(request, await transactions.globalGet(request.caller, request.params.id)),
    );
  };
}

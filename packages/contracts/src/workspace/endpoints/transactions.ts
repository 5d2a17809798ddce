import { Type } from '@sinclair/typebox';
import { SuccessEnvelope as ok } from '../../common/envelope.js';
import { WORKSPACE_AUDIT } from '../audit-actions.js';
import { IdParams } from '../common.js';
import {
  CreateWorkspaceTransactionBody,
  GlobalTransactionList,
  GlobalTransactionsQuery,
  SubmitEscrowHashResult,
  WorkspaceSubmitEscrowHashBody,
  WorkspaceTransaction,
  WorkspaceTransactionList,
  WorkspaceTransactionParams,
  WorkspaceTransactionStats,
  WorkspaceTransactionsQuery,
} from '../transactions.js';
import { resource } from './define.js';

// transactions (docs/workspace-transactions.md)

const TRANSACTION_STATUSES =
  'Statuses are upper-case: PENDING (pending, risk_review, pending_user_action), ESCROWED, IN_REVIEW (in_review, disputed), COMPLETED, FAILED, CANCELLED (refunded, rescinded). Amounts are exact decimal strings.';
const PAYMENTS_UNAVAILABLE = '503 when payments does not answer.';

const endpoint = resource({ tags: ['Transactions'] });

export const listWorkspaceTransactions = endpoint('GET /workspaces/:id/transactions', {
  operationId: 'listWorkspaceTransactions',
  summary: "List a workspace's transactions",
  description: [
    "Transactions on the workspace's platforms (its platform mappings, revoked ones included), from or to an address it has",
    "proven control of (the accounts of its built-in PLATFORM wallet, customers' auto-created ones included; never a",
    'CUSTODY_A or SIWE-linked address, which proves nothing), or naming one in `metadata.walletAddress`,',
    '`metadata.senderWalletAddress` or `metadata.recipientWalletAddress`; newest first, each with `_platformId` and `_platformName`.',
    `\`status\` filters by the upper-case value. ${TRANSACTION_STATUSES} Members of the workspace and SUPER_ADMINs. ${PAYMENTS_UNAVAILABLE}`,
  ].join(' '),
  params: IdParams,
  querystring: WorkspaceTransactionsQuery,
  response: { 200: ok(WorkspaceTransactionList) },
  errors: [403, 404, 503],
});

export const createWorkspaceTransaction = endpoint('POST /workspaces/:id/transactions', {
  operationId: 'createWorkspaceTransaction',
  summary: 'Create a transaction',
  description: [
    "Forwarded to payments under the workspace's default platform: its newest active production platform, else its newest",
    'active sandbox platform (409 `CONFLICT` without one: issue sandbox credentials first). `amount` is a decimal string',
    '(0.01 to 1,000,000), `network` a network name (a mainnet is coerced to its testnet outside production; a testnet is',
    'refused in production). `currency` defaults to USDC, `orchestrationType` to raw; `customerId` must be a customer of the',
    `workspace (404). ${TRANSACTION_STATUSES} Members of the workspace and SUPER_ADMINs. ${PAYMENTS_UNAVAILABLE}`,
  ].join(' '),
  audit: WORKSPACE_AUDIT.transactionCreate,
  params: IdParams,
  body: CreateWorkspaceTransactionBody,
  response: { 200: ok(Type.Object({ transaction: WorkspaceTransaction })) },
  errors: [403, 404, 409, 503],
});

export const getWorkspaceTransaction = endpoint('GET /workspaces/:id/transactions/:txId', {
  operationId: 'getWorkspaceTransaction',
  summary: 'Read a transaction with the workspace key',
  description: [
    "`X-API-Key`: a Payments API key of one of the workspace's platforms, with `read:transactions` (403 `INSUFFICIENT_SCOPE`).",
    "A key of another workspace, or a transaction outside the workspace's list, answers 404.",
    `${TRANSACTION_STATUSES} ${PAYMENTS_UNAVAILABLE}`,
  ].join(' '),
  access: 'workspace_key',
  params: WorkspaceTransactionParams,
  response: { 200: ok(WorkspaceTransaction) },
  errors: [403, 404, 503],
});

export const submitWorkspaceTransactionEscrowHash = endpoint('POST /workspaces/:id/transactions/:txId/submit-escrow-hash', {
  operationId: 'submitWorkspaceTransactionEscrowHash',
  summary: "Submit a transaction's escrow hash with the workspace key",
  description: [
    'The hash of the escrow call the sender signed. `X-API-Key`: a Payments API key of the workspace with `write:transactions`.',
    "Only a transaction on one of the workspace's platforms can be moved (404 otherwise, and for another workspace's key).",
    `${PAYMENTS_UNAVAILABLE}`,
  ].join(' '),
  access: 'workspace_key',
  audit: WORKSPACE_AUDIT.transactionSubmitEscrowHash,
  params: WorkspaceTransactionParams,
  body: WorkspaceSubmitEscrowHashBody,
  response: { 200: ok(SubmitEscrowHashResult) },
  errors: [403, 404, 409, 503],
});

export const listTransactions = endpoint('GET /transactions', {
  operationId: 'listTransactions',
  summary: 'List transactions across connected platforms',
  description: [
    'SUPER_ADMIN: every platform connected to any workspace; anyone else: the platforms of its own workspace (none without',
    'one). `meta.platformCount` is how many platforms were searched. `walletAddress` matches the sender or the receiver.',
    `${TRANSACTION_STATUSES} ${PAYMENTS_UNAVAILABLE}`,
  ].join(' '),
  querystring: GlobalTransactionsQuery,
  response: { 200: ok(GlobalTransactionList) },
  errors: [503],
});

export const getTransactionStats = endpoint('GET /transactions/stats', {
  operationId: 'getTransactionStats',
  summary: 'Transaction statistics',
  description: `Per upper-case status \`{count, total_amount}\` (exact decimal string) over the platforms GET /transactions searches. ${PAYMENTS_UNAVAILABLE}`,
  response: { 200: ok(WorkspaceTransactionStats) },
  errors: [503],
});

export const getTransaction = endpoint('GET /transactions/:id', {
  operationId: 'getTransaction',
  summary: 'Read a transaction across connected platforms',
  description: `Searched across the platforms GET /transactions searches; 404 outside them. ${TRANSACTION_STATUSES} ${PAYMENTS_UNAVAILABLE}`,
  params: IdParams,
  response: { 200: ok(WorkspaceTransaction) },
  errors: [404, 503],
});

import {
  AtRiskReport,
  CreatedTransaction,
  CreateTransactionBody,
  CreateTransactionHeaders,
  PaymentsTransaction,
  TransactionList,
  TransactionListQuery,
  TransactionStats,
} from '../transactions.js';
import { IdParams, resource } from './define.js';

// transactions (the static paths /at-risk, /stats, /quote, /batches win over /transactions/:id in the router)

const endpoint = resource({ tags: ['transactions'] });

export const createTransaction = endpoint('POST /api/v2/transactions', {
  v1: ['/api/v1/transactions'],
  operationId: 'createTransaction',
  summary: 'Create a transaction',
  description:
    'Creates a transaction (`transaction.created` is its first event). An idempotency key (body `idempotencyKey` or header `Idempotency-Key`) makes retries safe: the same key with the same parameters answers the first result with `Idempotent-Replayed: true`; with other parameters 422. Without a key, the same sender, receiver, amount, currency and network within the duplicate window answers 409. At most TX_RATE_LIMIT_PER_SENDER (default 10) creations per minute per sender, batch legs included (429 with Retry-After). A control that sends a one-time code sends it once the creation committed (the codes outbox: an SMS gateway failure no longer fails the creation; no gateway configured: 503). See docs/transactions.md.',
  tier: 'standard',
  access: { scopes: ['move:transactions'] },
  v1Access: { anyScope: ['write:transactions', 'move:transactions'] },
  headers: CreateTransactionHeaders,
  body: CreateTransactionBody,
  response: { 201: CreatedTransaction },
  errors: [404, 409, 422, 503],
});

export const listTransactions = endpoint('GET /api/v2/transactions', {
  v1: ['/api/v1/transactions'],
  operationId: 'listTransactions',
  summary: 'List transactions',
  description:
    'Newest first, `{data, pagination}`. Addresses match case-insensitively; `walletAddress` matches the sender or the receiver; a date `dateTo` includes that whole day.',
  tier: 'standard',
  access: { scopes: ['read:transactions'] },
  querystring: TransactionListQuery,
  response: { 200: TransactionList },
});

export const getAtRiskTransactions = endpoint('GET /api/v2/transactions/at-risk', {
  v1: ['/api/v1/transactions/at-risk'],
  operationId: 'getAtRiskTransactions',
  summary: 'At-risk report',
  description:
    'Per status (escrowed, in_review, pending_user_action, disputed): count, exact total amount, age of the oldest and counts aged over 24 h and 72 h, ages counted from entering the status.',
  tier: 'standard',
  access: { scopes: ['read:transactions'] },
  response: { 200: AtRiskReport },
});

export const getTransactionStats = endpoint('GET /api/v2/transactions/stats', {
  v1: ['/api/v1/transactions/stats'],
  operationId: 'getTransactionStats',
  summary: 'Statistics by status',
  description: 'Every status with `{count, total_amount}` (exact decimal string), zero when none.',
  tier: 'standard',
  access: { scopes: ['read:transactions'] },
  response: { 200: TransactionStats },
});

export const getTransaction = endpoint('GET /api/v2/transactions/:id', {
  v1: ['/api/v1/transactions/:id'],
  operationId: 'getTransaction',
  summary: 'Read a transaction',
  description: "Another platform's transaction answers 404.",
  tier: 'high',
  access: { scopes: ['read:transactions'] },
  params: IdParams,
  response: { 200: PaymentsTransaction },
  errors: [404],
});

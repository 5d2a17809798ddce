import {
  AtRiskReport,
  CreatedTransaction,
  CreateTransactionBody,
  IdempotencyKey,
  PaymentsTransaction,
  TransactionList,
  TransactionListQuery,
  TransactionStats,
  Uuid,
} from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { API_VERSIONS, operationId } from '../../http/versions.js';
import { principalOf, type RouteAuth } from '../auth/index.js';
import type { TransactionsService } from './service.js';

const IdParams = Type.Object({ id: Uuid });
const CreateHeaders = Type.Object({
  'idempotency-key': Type.Optional({ ...IdempotencyKey, description: 'Same as the body field `idempotencyKey` (send one, or the same).' }),
});

/**
 * Transactions (spec "Payments API: transactions"): create, list, read, at-risk, stats, on v1
 * (API keys or tokens, v1 scopes) and v2 (tokens). The static paths (/at-risk, /stats, /quote,
 * /batch, /batches) win over /transactions/:id in the router, and :id must be a uuid.
 */
export function transactionRoutes(service: TransactionsService) {
  return async (app: HttpApp) => {
    for (const v of API_VERSIONS) {
      const createAccess: RouteAuth =
        v === 'v1' ? { anyScope: ['write:transactions', 'move:transactions'] } : { scopes: ['move:transactions'] };
      app.post(
        `/api/${v}/transactions`,
        {
          config: { tier: 'standard', access: createAccess },
          schema: {
            tags: ['transactions'],
            summary: 'Create a transaction',
            description:
              'Creates a transaction (`transaction.created` is its first event). An idempotency key (body `idempotencyKey` or header `Idempotency-Key`) makes retries safe: the same key with the same parameters answers the first result with `Idempotent-Replayed: true`; with other parameters 422. Without a key, the same sender, receiver, amount, currency and network within the duplicate window answers 409. At most TX_RATE_LIMIT_PER_SENDER (default 10) creations per minute per sender, batch legs included (429 with Retry-After). A control that sends a one-time code sends it once the creation committed (the codes outbox: an SMS gateway failure no longer fails the creation; no gateway configured: 503). See docs/transactions.md.',
            operationId: operationId('createTransaction', v),
            deprecated: v === 'v1',
            headers: CreateHeaders,
            body: CreateTransactionBody,
            response: { 201: CreatedTransaction, ...errorResponses(404, 409, 422, 503) },
          },
        },
        async (request, reply) => {
          const header = request.headers['idempotency-key'];
          const out = await service.create(principalOf(request), request.body, typeof header === 'string' ? header : undefined);
          if (out.replayed) reply.header('idempotent-replayed', 'true');
          return reply.code(201).send(out.transaction);
        },
      );

      app.get(
        `/api/${v}/transactions`,
        {
          config: { tier: 'standard', access: { scopes: ['read:transactions'] } },
          schema: {
            tags: ['transactions'],
            summary: 'List transactions',
            description:
              'Newest first, `{data, pagination}`. Addresses match case-insensitively; `walletAddress` matches the sender or the receiver; a date `dateTo` includes that whole day.',
            operationId: operationId('listTransactions', v),
            deprecated: v === 'v1',
            querystring: TransactionListQuery,
            response: { 200: TransactionList },
          },
        },
        async (request) => service.list(principalOf(request), request.query),
      );

      app.get(
        `/api/${v}/transactions/at-risk`,
        {
          config: { tier: 'standard', access: { scopes: ['read:transactions'] } },
          schema: {
            tags: ['transactions'],
            summary: 'At-risk report',
            description:
              'Per status (escrowed, in_review, pending_user_action, disputed): count, exact total amount, age of the oldest and counts aged over 24 h and 72 h, ages counted from entering the status.',
            operationId: operationId('getAtRiskTransactions', v),
            deprecated: v === 'v1',
            response: { 200: AtRiskReport },
          },
        },
        async (request) => service.atRisk(principalOf(request)),
      );

      app.get(
        `/api/${v}/transactions/stats`,
        {
          config: { tier: 'standard', access: { scopes: ['read:transactions'] } },
          schema: {
            tags: ['transactions'],
            summary: 'Statistics by status',
            description: 'Every status with `{count, total_amount}` (exact decimal string), zero when none.',
            operationId: operationId('getTransactionStats', v),
            deprecated: v === 'v1',
            response: { 200: TransactionStats },
          },
        },
        async (request) => service.stats(principalOf(request)),
      );

      app.get(
        `/api/${v}/transactions/:id`,
        {
          config: { tier: 'high', access: { scopes: ['read:transactions'] } },
          schema: {
            tags: ['transactions'],
            summary: 'Read a transaction',
            description: "Another platform's transaction answers 404.",
            operationId: operationId('getTransaction', v),
            deprecated: v === 'v1',
            params: IdParams,
            response: { 200: PaymentsTransaction, ...errorResponses(404) },
          },
        },
        async (request) => service.get(principalOf(request), request.params.id),
      );
    }
  };
}

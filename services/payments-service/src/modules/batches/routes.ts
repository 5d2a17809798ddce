import { BatchCreated, BatchList, BatchListQuery, BatchWithLegs, CreateBatchBody, IdempotencyKeyHeaders, Uuid } from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { principalOf, type RouteAuth } from '../auth/index.js';
import type { BatchesService } from './service.js';

const IdParams = Type.Object({ id: Uuid });

/** v1 paths are the spec's (`/transactions/batch`), v2 renamed them (`/transactions/batches`). */
const SURFACES: readonly { base: string; create: RouteAuth; suffix: string; deprecated: boolean }[] = [
  {
    base: '/api/v1/transactions/batch',
    create: { anyScope: ['write:transactions', 'move:transactions'] },
    suffix: 'V1',
    deprecated: true,
  },
  { base: '/api/v2/transactions/batches', create: { scopes: ['move:transactions'] }, suffix: '', deprecated: false },
];

/** Batches (spec "Batch"; "Payments API: transactions"): create, list, read, on v1 and v2. */
export function batchRoutes(service: BatchesService) {
  return async (app: HttpApp) => {
    for (const s of SURFACES) {
      app.post(
        s.base,
        {
          config: { tier: 'standard', access: s.create },
          schema: {
            tags: ['batches'],
            summary: 'Create a batch',
            description:
              'Creates the batch and one transaction per leg in one atomic operation: any invalid leg writes nothing (400 naming the leg, e.g. `legs.3.amount`). `signerType` must be `external_wallet`. 1 to MAX_BATCH_LEGS legs (100 by default). A known `idempotencyKey` (or `Idempotency-Key` header) answers the existing batch with 200 and `Idempotent-Replayed: true`; with other parameters 422 `IDEMPOTENCY_KEY_REUSED`. Each leg counts toward the sender’s per-minute limit (TX_RATE_LIMIT_PER_SENDER: 429) and the duplicate window (409 `DUPLICATE_TRANSACTION` naming the leg) like a single transaction. Then the client signs the batch escrow call with each leg’s `onchainId` (see `nextAction`).',
            operationId: `createBatch${s.suffix}`,
            deprecated: s.deprecated,
            headers: IdempotencyKeyHeaders,
            body: CreateBatchBody,
            response: {
              201: BatchCreated,
              200: { ...BatchCreated, description: 'The batch an earlier request with this idempotency key created.' },
              ...errorResponses(404, 409, 422),
            },
          },
        },
        async (request, reply) => {
          const { batch, replayed } = await service.create(principalOf(request), request.body, request.headers['idempotency-key']);
          if (replayed) reply.header('idempotent-replayed', 'true');
          return reply.code(replayed ? 200 : 201).send(batch);
        },
      );

      app.get(
        s.base,
        {
          config: { tier: 'standard', access: { scopes: ['read:transactions'] } },
          schema: {
            tags: ['batches'],
            summary: 'List batches',
            description:
              'The platform’s batches, newest first, filtered by `status`, `fromAddress` (any case), `customerId` and creation time (`dateFrom`, `dateTo`, inclusive). Legs are not embedded: read one batch for them.',
            operationId: `listBatches${s.suffix}`,
            deprecated: s.deprecated,
            querystring: BatchListQuery,
            response: { 200: BatchList },
          },
        },
        async (request) => service.list(principalOf(request), request.query),
      );

      app.get(
        `${s.base}/:id`,
        {
          config: { tier: 'high', access: { scopes: ['read:transactions'] } },
          schema: {
            tags: ['batches'],
            summary: 'Read a batch',
            description: 'The batch with its legs in leg order. Another platform’s batch answers 404.',
            operationId: `getBatch${s.suffix}`,
            deprecated: s.deprecated,
            params: IdParams,
            response: { 200: BatchWithLegs, ...errorResponses(404) },
          },
        },
        async (request) => service.get(principalOf(request), request.params.id),
      );
    }
  };
}

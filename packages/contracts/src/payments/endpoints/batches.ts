import {
  BatchCreated,
  BatchList,
  BatchListQuery,
  BatchReplayed,
  BatchWithLegs,
  CreateBatchBody,
  IdempotencyKeyHeaders,
} from '../batches.js';
import { IdParams, resource, V1_MOVE } from './define.js';

// batches: v1 paths are the spec's (`/transactions/batch`), v2 renamed them (`/transactions/batches`)

const endpoint = resource({ tags: ['batches'] });

export const createBatch = endpoint('POST /api/v2/transactions/batches', {
  v1: ['/api/v1/transactions/batch'],
  operationId: 'createBatch',
  summary: 'Create a batch',
  description:
    'Creates the batch and one transaction per leg in one atomic operation: any invalid leg writes nothing (400 naming the leg, e.g. `legs.3.amount`). `signerType` must be `external_wallet`. 1 to MAX_BATCH_LEGS legs (100 by default). A known `idempotencyKey` (or `Idempotency-Key` header) answers the existing batch with 200 and `Idempotent-Replayed: true`; with other parameters 422 `IDEMPOTENCY_KEY_REUSED`. Each leg counts toward the sender’s per-minute limit (TX_RATE_LIMIT_PER_SENDER: 429) and the duplicate window (409 `DUPLICATE_TRANSACTION` naming the leg) like a single transaction. Then the client signs the batch escrow call with each leg’s `onchainId` (see `nextAction`).',
  tier: 'standard',
  access: { scopes: ['move:transactions'] },
  v1Access: V1_MOVE,
  headers: IdempotencyKeyHeaders,
  body: CreateBatchBody,
  response: { 201: BatchCreated, 200: BatchReplayed },
  errors: [404, 409, 422],
});

export const listBatches = endpoint('GET /api/v2/transactions/batches', {
  v1: ['/api/v1/transactions/batch'],
  operationId: 'listBatches',
  summary: 'List batches',
  description:
    'The platform’s batches, newest first, filtered by `status`, `fromAddress` (any case), `customerId` and creation time (`dateFrom`, `dateTo`, inclusive). Legs are not embedded: read one batch for them.',
  tier: 'standard',
  access: { scopes: ['read:transactions'] },
  querystring: BatchListQuery,
  response: { 200: BatchList },
});

export const getBatch = endpoint('GET /api/v2/transactions/batches/:id', {
  v1: ['/api/v1/transactions/batch/:id'],
  operationId: 'getBatch',
  summary: 'Read a batch',
  description: 'The batch with its legs in leg order. Another platform’s batch answers 404.',
  tier: 'high',
  access: { scopes: ['read:transactions'] },
  params: IdParams,
  response: { 200: BatchWithLegs },
  errors: [404],
});

import { createdAtString, timestamptzString } from '@holdfast/db';
import { integer, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { platformIdColumn } from '../platforms/tables.js';

/**
 * The Idempotency-Key of the money-moving operations that have no key of their own (disputes,
 * evidence, release, rescind, refund; docs/idempotency.md): one row per platform and key, `running`
 * while its request runs (until `lease_until`, after which a retry may take it over: the process
 * that held it died), `done` with the answer once it succeeded, replayed to every retry for 24 h.
 */
export const idempotentRequests = paymentsSchema.table(
  'idempotent_requests',
  {
    platformId: platformIdColumn(),
    key: text('key').notNull(),
    /** The operation's id (`resolveDispute`): the key of one operation cannot replay another's answer. */
    operation: text('operation').notNull(),
    /** SHA-256 of the canonical path parameters and body: the key with other parameters is refused. */
    fingerprint: text('fingerprint').notNull(),
    state: text('state').$type<'running' | 'done'>().notNull(),
    /** Who holds the key now: a holder whose lease was taken over can neither store its answer nor free the key. */
    claimToken: uuid('claim_token'),
    leaseUntil: timestamptzString('lease_until').notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    createdAt: createdAtString(),
    completedAt: timestamptzString('completed_at'),
  },
  (t) => [primaryKey({ columns: [t.platformId, t.key] })],
);

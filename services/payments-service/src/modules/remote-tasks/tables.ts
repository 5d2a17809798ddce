import { createdAtString, timestamptzString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, text, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';

export const REMOTE_TASK_KINDS = ['webhooks.deactivate-owner'] as const;
export type RemoteTaskKind = (typeof REMOTE_TASK_KINDS)[number];

export const REMOTE_TASK_STATUSES = ['pending', 'done', 'dead'] as const;
export type RemoteTaskStatus = (typeof REMOTE_TASK_STATUSES)[number];

/**
 * Commands payments-service owes another process (the webhook dispatcher), written in the same
 * transaction as the change that makes them due (a platform deactivated) and sent by the task
 * runner until they are answered (ADR 15, the design of workspace's ADR 10).
 */
export const remoteTasks = paymentsSchema.table(
  'remote_tasks',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind').$type<RemoteTaskKind>().notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** The platform the task is about (no foreign key: a task may outlive what it is about). */
    platformId: uuid('platform_id').notNull(),
    status: text('status').$type<RemoteTaskStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptzString('next_attempt_at').notNull().defaultNow(),
    lastError: text('last_error'),
    /** The trace of the change that queued the task; the runner's span continues it (docs/operations.md, Tracing). */
    traceContext: jsonb('trace_context').$type<Record<string, string>>(),
    createdAt: createdAtString(),
    completedAt: timestamptzString('completed_at'),
  },
  (t) => [
    index('remote_tasks_due_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index('remote_tasks_platform_idx').on(t.platformId, t.createdAt),
    check('remote_tasks_kind_check', sql`${t.kind} in ('webhooks.deactivate-owner')`),
    check('remote_tasks_status_check', sql`${t.status} in ('pending', 'done', 'dead')`),
  ],
);

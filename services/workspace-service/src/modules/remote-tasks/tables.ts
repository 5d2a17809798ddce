import { createdAt, timestamptz } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, text, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';

export const REMOTE_TASK_KINDS = [
  'payments.deactivate-workspace-platforms',
  'payments.deactivate-platform',
  'webhooks.deactivate-owner',
  'sandbox.reconcile-issuance',
  'customer-wallets.auto-create',
  'payments.sync-checkout-wallet-settings',
] as const;
export type RemoteTaskKind = (typeof REMOTE_TASK_KINDS)[number];

export const REMOTE_TASK_STATUSES = ['pending', 'done', 'dead'] as const;
export type RemoteTaskStatus = (typeof REMOTE_TASK_STATUSES)[number];

/**
 * Commands this service owes another process (payments, the dispatcher) or a wallet provider (a new
 * customer's wallet), written in the same transaction as the change that makes them due (a
 * workspace deleted, a sandbox issuance begun, a customer created)
 * and sent by the task runner until they are answered. No foreign key to the workspace: the
 * tasks of a deleted workspace must outlive it.
 */
export const remoteTasks = workspaceSchema.table(
  'remote_tasks',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind').$type<RemoteTaskKind>().notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    workspaceId: uuid('workspace_id').notNull(),
    status: text('status').$type<RemoteTaskStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at').notNull().defaultNow(),
    lastError: text('last_error'),
    /** The trace of the change that queued the task; the runner's span continues it (docs/operations.md, Tracing). */
    traceContext: jsonb('trace_context').$type<Record<string, string>>(),
    createdAt: createdAt(),
    completedAt: timestamptz('completed_at'),
  },
  (t) => [
    index('remote_tasks_due_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index('remote_tasks_workspace_idx').on(t.workspaceId, t.createdAt),
    check(
      'remote_tasks_kind_check',
      sql`${t.kind} in ('payments.deactivate-workspace-platforms', 'payments.deactivate-platform', 'webhooks.deactivate-owner', 'sandbox.reconcile-issuance', 'customer-wallets.auto-create', 'payments.sync-checkout-wallet-settings')`,
    ),
    check('remote_tasks_status_check', sql`${t.status} in ('pending', 'done', 'dead')`),
  ],
);

import type { DomainEvent } from '@holdfast/contracts';
import { timestamptz } from '@holdfast/db';
import type { TraceCarrier } from '@holdfast/logging';
import { index, jsonb, text, uuid } from 'drizzle-orm/pg-core';
import { webhooksSchema } from '../../db/pg-schema.js';

/**
 * Every domain event the dispatcher has taken from JetStream, once. A message is acked only after
 * its row and its deliveries (one per matching active subscription) are committed, in one
 * transaction: at-least-once intake, and the primary key makes a redelivered message a no-op.
 * Kept 30 days (the retention purge), so that a range of events can be replayed to a subscription.
 */
export const receivedEvents = webhooksSchema.table(
  'received_events',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    platformId: uuid('platform_id'),
    /** The workspace of the event's platform, when any: routes it to the workspace's subscriptions. */
    workspaceId: uuid('workspace_id'),
    payload: jsonb('payload').$type<DomainEvent>().notNull(),
    occurredAt: timestamptz('occurred_at').notNull(),
    receivedAt: timestamptz('received_at').notNull().defaultNow(),
    /** The trace context of the intake (W3C traceparent): each delivery attempt of the event continues its trace. */
    traceContext: jsonb('trace_context').$type<TraceCarrier>(),
  },
  (t) => [
    index('received_events_platform_idx').on(t.platformId, t.occurredAt),
    index('received_events_workspace_idx').on(t.workspaceId, t.occurredAt),
    index('received_events_received_at_idx').on(t.receivedAt),
  ],
);

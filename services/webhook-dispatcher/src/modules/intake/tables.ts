import type { DomainEvent } from '@holdfast/contracts';
import { index, jsonb, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { webhooksSchema } from '../../db/pg-schema.js';

/**
 * Every domain event the dispatcher has taken from JetStream, once. A message is acked only after
 * its row (and, with subscriptions, its deliveries) is committed: at-least-once intake, and the
 * primary key makes a redelivered message a no-op.
 */
export const receivedEvents = webhooksSchema.table(
  'received_events',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    platformId: uuid('platform_id'),
    payload: jsonb('payload').$type<DomainEvent>().notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('received_events_platform_idx').on(t.platformId, t.occurredAt)],
);

import type { DeliveryStatus } from '@holdfast/contracts';
import { createdAtString, timestamptzString, updatedAtString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, text, unique, uuid } from 'drizzle-orm/pg-core';
import { webhooksSchema } from '../../db/pg-schema.js';
import { receivedEvents } from '../intake/tables.js';
import { subscriptionIdColumn } from '../subscriptions/tables.js';

/**
 * One event to one subscription: its id (a random UUID) is the `X-Webhook-Delivery` (and
 * `webhook-id`) of every attempt. Due rows are claimed with FOR UPDATE SKIP LOCKED and a lease (`claimed_until`,
 * `claim_token`), so instances share the work and a crashed instance's claim simply expires.
 */
export const deliveries = webhooksSchema.table(
  'deliveries',
  {
    id: uuid('id').primaryKey(),
    subscriptionId: subscriptionIdColumn(),
    eventId: text('event_id')
      .notNull()
      .references(() => receivedEvents.id),
    eventType: text('event_type').notNull(),
    status: text('status').$type<DeliveryStatus>().notNull().default('pending'),
    /** Attempts made so far (numbers the delivery logs). */
    attemptCount: integer('attempt_count').notNull().default(0),
    /** Position in WEBHOOK_RETRY_SCHEDULE; a resend or replay starts it again at 0. */
    retryIndex: integer('retry_index').notNull().default(0),
    nextAttemptAt: timestamptzString('next_attempt_at').notNull().defaultNow(),
    claimedUntil: timestamptzString('claimed_until'),
    claimToken: uuid('claim_token'),
    /**
     * A claimed delivery that holds one of its subscription's in-flight slots (counted against
     * WEBHOOK_SUBSCRIPTION_CONCURRENCY by every instance). A claimed one without a slot waits in
     * its instance's queue for a slot of the same subscription to end (ADR 36).
     */
    holdsSlot: boolean('holds_slot').notNull().default(false),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [
    unique('deliveries_subscription_event_key').on(t.subscriptionId, t.eventId),
    check('deliveries_status', sql`${t.status} in ('pending', 'succeeded', 'failed')`),
    // Due deliveries are always looked up per subscription (claims, probes, the next wake-up).
    index('deliveries_subscription_due_idx').on(t.subscriptionId, t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    // Small: only deliveries holding a slot (an attempt in flight, or one whose result is not stored yet). Counts a subscription's attempts in flight.
    index('deliveries_claimed_idx').on(t.subscriptionId, t.claimedUntil).where(sql`${t.holdsSlot}`),
    index('deliveries_event_idx').on(t.eventId),
    index('deliveries_finished_idx').on(t.updatedAt).where(sql`${t.status} <> 'pending'`),
  ],
);

/** The delivery log: every attempt, kept 30 days. Test deliveries have a log entry and no delivery row. */
export const deliveryAttempts = webhooksSchema.table(
  'delivery_attempts',
  {
    id: uuid('id').primaryKey(),
    subscriptionId: subscriptionIdColumn(),
    deliveryId: uuid('delivery_id').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    attempt: integer('attempt').notNull(),
    success: boolean('success').notNull(),
    statusCode: integer('status_code'),
    responseTimeMs: integer('response_time_ms').notNull(),
    errorMessage: text('error_message'),
    requestHeaders: jsonb('request_headers').$type<Record<string, string>>().notNull(),
    responseBody: text('response_body'),
    createdAt: createdAtString(),
  },
  (t) => [
    // A page of delivery logs (created_at desc, id desc) is this index read backwards: the page reads
    // its own entries in order and stops. It was (subscription_id, created_at desc), which drizzle
    // writes NULLS LAST, an order the page's (desc, so NULLS FIRST) never matched: each page read all
    // of the subscription's entries and sorted them.
    index('delivery_attempts_subscription_idx').on(t.subscriptionId, t.createdAt, t.id),
    // The same for a page of failures only, which an operator reads when a receiver is failing: a
    // walk of the index above would pass every success, and a generic plan read them all instead.
    index('delivery_attempts_subscription_failures_idx').on(t.subscriptionId, t.createdAt, t.id).where(sql`not ${t.success}`),
    index('delivery_attempts_created_idx').on(t.createdAt),
  ],
);

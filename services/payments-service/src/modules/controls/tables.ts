import type { Control, ControlPhase, ControlType } from '@holdfast/contracts';
import { cascadingReference, createdAtString, timestamptzString, updatedAtString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, integer, jsonb, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { platformIdColumn } from '../platforms/tables.js';
import { transactionIdColumn } from '../transactions/tables.js';

/** The template library of a platform: what a transaction's `templateId` refers to. */
export const controlTemplates = paymentsSchema.table(
  'control_templates',
  {
    id: uuid('id').primaryKey(),
    platformId: platformIdColumn(),
    name: text('name').notNull(),
    description: text('description'),
    version: integer('version').notNull().default(1),
    controls: jsonb('controls').$type<Control[]>().notNull(),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [index('control_templates_platform_created_idx').on(t.platformId, t.createdAt, t.id)],
);

export type ChallengeStatus = 'open' | 'approved' | 'rejected' | 'expired';

/**
 * A one-time code a user-action control (two_factor, vendor_sms) sent for a transaction. The code
 * is stored only as a MAC under a key derived from DATA_ENCRYPTION_KEY (`salt` is empty; a
 * non-empty one marks a challenge opened before that, checked the old way); at most one challenge per
 * transaction is open.
 */
export const controlChallenges = paymentsSchema.table(
  'control_challenges',
  {
    id: uuid('id').primaryKey(),
    platformId: uuid('platform_id').notNull(),
    transactionId: transactionIdColumn(),
    controlId: text('control_id').notNull(),
    controlType: text('control_type').$type<'two_factor' | 'vendor_sms'>().notNull(),
    isRequired: boolean('is_required').notNull().default(true),
    /** The phone number, masked (`+1******0123`); the full number is not kept. */
    recipient: text('recipient').notNull(),
    provider: text('provider').notNull(),
    codeHash: text('code_hash').notNull(),
    salt: text('salt').notNull(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    status: text('status').$type<ChallengeStatus>().notNull().default('open'),
    expiresAt: timestamptzString('expires_at').notNull(),
    verifiedAt: timestamptzString('verified_at'),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [
    uniqueIndex('control_challenges_one_open').on(t.transactionId).where(sql`status = 'open'`),
    index('control_challenges_tx_idx').on(t.transactionId, t.createdAt),
  ],
);

export type CodeDeliveryStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'dropped';

/**
 * The outbox of one-time codes (docs/controls.md, "Codes after commit"): a row is written in the
 * transaction that opens the challenge, and the delivery worker sends it only once that transaction
 * committed; a rollback leaves no row, so nothing is sent. The recipient and code are sealed
 * (AES-256-GCM, DATA_ENCRYPTION_KEY, bound to the row id) and wiped once the code is sent or dropped.
 */
export const codeDeliveries = paymentsSchema.table(
  'code_deliveries',
  {
    challengeId: cascadingReference('challenge_id', () => controlChallenges.id).primaryKey(),
    transactionId: uuid('transaction_id').notNull(),
    purpose: text('purpose').$type<'two_factor' | 'vendor_sms'>().notNull(),
    /** `{to, code, text}` sealed; null once sent, failed or dropped. */
    sealed: text('sealed'),
    status: text('status').$type<CodeDeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptzString('next_attempt_at').notNull().defaultNow(),
    leaseUntil: timestamptzString('lease_until'),
    lastError: text('last_error'),
    messageId: text('message_id'),
    createdAt: createdAtString(),
    sentAt: timestamptzString('sent_at'),
  },
  (t) => [index('code_deliveries_due_idx').on(t.nextAttemptAt).where(sql`status in ('pending', 'sending')`)],
);

export type ControlOutcomeKind = 'passed' | 'failed' | 'skipped' | 'challenged' | 'flagged' | 'approved' | 'rejected';

/** Every control run of every transaction, in order: what passed, failed (and why), was skipped or waits. */
export const controlResults = paymentsSchema.table(
  'control_results',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    transactionId: transactionIdColumn(),
    controlId: text('control_id').notNull(),
    controlType: text('control_type').$type<ControlType>().notNull(),
    executionPhase: text('execution_phase').$type<ControlPhase>().notNull(),
    executionOrder: integer('execution_order').notNull(),
    isRequired: boolean('is_required').notNull(),
    outcome: text('outcome').$type<ControlOutcomeKind>().notNull(),
    reason: text('reason'),
    createdAt: createdAtString(),
  },
  (t) => [index('control_results_tx_idx').on(t.transactionId, t.seq)],
);

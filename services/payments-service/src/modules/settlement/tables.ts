import type { SettlementKind } from '@holdfast/contracts';
import { createdAtString, timestamptzString, updatedAtString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { platformIdColumn } from '../platforms/tables.js';
import { transactionIdColumn, transactions } from '../transactions/tables.js';

/**
 * Every CHAIN message payments has handled, by its message id (`chainMessageId`): the key of
 * "at most once" (docs/chain.md). Also written by submit-escrow-hash and a verified rescind for the
 * log they applied, so the indexer's copy of that log is a no-op and its correction undoes the move.
 */
export const appliedChainMessages = paymentsSchema.table(
  'applied_chain_messages',
  {
    messageId: text('message_id').primaryKey(),
    eventId: text('event_id').notNull(),
    kind: text('kind').notNull(),
    removed: boolean('removed').notNull(),
    network: text('network').notNull(),
    transactionId: uuid('transaction_id'),
    /** `applied` (a move), `noop` (already there), `ignored` (not about this transaction), `rejected` (terms differ), `conflict`, `correction_unapplied`. */
    outcome: text('outcome').notNull(),
    action: text('action'),
    /** `chain` (the consumer) or `api` (a verified hash submitted by the platform). */
    source: text('source').notNull(),
    detail: text('detail'),
    appliedAt: timestamptzString('applied_at').notNull().defaultNow(),
    /** Set when an operator resolved a `conflict`, `rejected` or `correction_unapplied` (settlement_operator_actions says who and why). */
    resolvedAt: timestamptzString('resolved_at'),
  },
  (t) => [index('applied_chain_messages_tx_idx').on(t.transactionId)],
);

/**
 * On-chain instructions for the attester key (release, refund), written in the transaction of the
 * move that needs them and executed by the settlement worker (at least once; idempotent).
 */
export const settlements = paymentsSchema.table(
  'settlements',
  {
    id: uuid('id').primaryKey(),
    transactionId: transactionIdColumn(),
    kind: text('kind').$type<SettlementKind>().notNull(),
    /** Refunds: basis points back to the sender (10000 = full). */
    refundBps: integer('refund_bps'),
    /** `pending`, `sending` (claimed, lease below), `done`, `superseded` (the escrow was settled otherwise), `failed`. */
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamptzString('next_attempt_at').notNull().defaultNow(),
    leaseUntil: timestamptzString('lease_until'),
    txHash: text('tx_hash'),
    lastError: text('last_error'),
    /** The trace of the request (or chain event) that asked for it: each attempt's span continues it. */
    traceContext: jsonb('trace_context').$type<Record<string, string>>(),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
    /** Set when an operator resolved a `failed` or `superseded` instruction (settlement_operator_actions says who and why). */
    resolvedAt: timestamptzString('resolved_at'),
  },
  (t) => [
    uniqueIndex('settlements_transaction_kind_unique').on(t.transactionId, t.kind),
    index('settlements_due_idx').on(t.nextAttemptAt).where(sql`status in ('pending', 'sending')`),
  ],
);

/** Early-release consents (sender, receiver): stated by the platform, verified on chain, or seen by the indexer. */
export const earlyReleaseAttestations = paymentsSchema.table(
  'early_release_attestations',
  {
    transactionId: transactionIdColumn(),
    party: text('party').notNull(),
    /** The `attestEarlyRelease` transaction, when known. */
    txHash: text('tx_hash'),
    /** True once seen on chain (a verified hash, or the indexer's event). */
    verified: boolean('verified').notNull().default(false),
    createdAt: createdAtString(),
  },
  (t) => [primaryKey({ columns: [t.transactionId, t.party] })],
);

/** A sender's rescind request recorded before its on-chain `rescind` is seen: its reason goes with the move. */
export const rescindRequests = paymentsSchema.table('rescind_requests', {
  transactionId: transactionIdColumn().primaryKey(),
  reason: text('reason'),
  actor: text('actor').notNull(),
  createdAt: createdAtString(),
});

/**
 * The log that confirmed a direct (raw) transfer, claimed per platform: one transaction of a platform
 * per log. A tagged log (`TransferForwarded` of `pay`) names its transaction, so no other can claim
 * it; a plain ERC-20 `Transfer` names none, so another platform may claim it too, and that is a
 * disputed claim (below). The key leads with the log so that the claims of one log are one range.
 */
export const claimedTransfers = paymentsSchema.table(
  'claimed_transfers',
  {
    chainId: integer('chain_id').notNull(),
    txHash: text('tx_hash').notNull(),
    logIndex: integer('log_index').notNull(),
    platformId: platformIdColumn(),
    transactionId: transactionIdColumn(),
    /** True for a `TransferForwarded` log (`pay`): it names this transaction. */
    tagged: boolean('tagged').notNull().default(false),
    createdAt: createdAtString(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.txHash, t.logIndex, t.platformId] })],
);

/**
 * A plain transfer log claimed by transactions of more than one platform (docs/settlement.md,
 * "Disputed claims"): the claims are in claimed_transfers under the same log; an operator resolves
 * it by naming the transaction it paid, and the others go `completed` -> `failed` (`void_transfer`).
 * A later claim by yet another platform opens it again (settlement_operator_actions keeps the history).
 */
export const disputedClaims = paymentsSchema.table(
  'settlement_disputed_claims',
  {
    id: uuid('id').primaryKey(),
    chainId: integer('chain_id').notNull(),
    network: text('network').notNull(),
    txHash: text('tx_hash').notNull(),
    logIndex: integer('log_index').notNull(),
    /** `open` or `resolved`. */
    status: text('status').$type<'open' | 'resolved'>().notNull().default('open'),
    /** The transaction the operator found the transfer paid (null while open). */
    rightfulTransactionId: uuid('rightful_transaction_id').references(() => transactions.id),
    /** The operator's reason. */
    resolution: text('resolution'),
    resolvedBy: text('resolved_by'),
    resolvedAt: timestamptzString('resolved_at'),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [
    uniqueIndex('settlement_disputed_claims_log_unique').on(t.chainId, t.txHash, t.logIndex),
    index('settlement_disputed_claims_status_idx').on(t.status, t.createdAt),
  ],
);

/** Every operator action on a settlement item (docs/settlement.md, "Operator runbook"): who, why, from which status. */
export const settlementOperatorActions = paymentsSchema.table(
  'settlement_operator_actions',
  {
    id: uuid('id').primaryKey(),
    /** `settlement` (settlements.id) or `chain_message` (applied_chain_messages.message_id). */
    itemKind: text('item_kind').notNull(),
    itemId: text('item_id').notNull(),
    action: text('action').notNull(),
    actor: text('actor').notNull(),
    actorPlatformId: uuid('actor_platform_id').notNull(),
    reason: text('reason').notNull(),
    fromStatus: text('from_status').notNull(),
    createdAt: createdAtString(),
  },
  (t) => [index('settlement_operator_actions_item_idx').on(t.itemKind, t.itemId, t.createdAt)],
);

import {
  type Currency,
  type FinalityLevel,
  METADATA_ADDRESS_KEYS,
  type Network,
  type OrchestrationType,
  type PaymentsTransaction,
  type SignerType,
  TERMINAL_TRANSACTION_STATUSES,
  TRANSACTION_STATUSES,
  type TransactionStatus,
} from '@holdfast/contracts';
import { createdAtString, metadataColumn, reference, timestamptzString, updatedAtString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, integer, jsonb, numeric, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { platformIdColumn } from '../platforms/tables.js';
import type { BatchStatus } from './state-machine.js';

/**
 * A batch: one sender, many legs (each leg is a row of `transactions` with `batch_id`), created in
 * one database transaction. Its status is derived from its legs (`batchStatusOf`) and rewritten in
 * the transaction that moves a leg.
 */
export const batches = paymentsSchema.table(
  'batches',
  {
    id: uuid('id').primaryKey(),
    platformId: platformIdColumn(),
    workspaceId: uuid('workspace_id'),
    status: text('status').$type<BatchStatus>().notNull(),
    fromAddress: text('from_address').notNull(),
    currency: text('currency').$type<Currency>().notNull(),
    blockchainNetwork: text('blockchain_network').$type<Network>().notNull(),
    chainId: integer('chain_id'),
    orchestrationType: text('orchestration_type').$type<OrchestrationType>().notNull(),
    signerType: text('signer_type').$type<SignerType>().notNull(),
    templateId: uuid('template_id'),
    template: jsonb('template').$type<Record<string, unknown>>(),
    customerId: text('customer_id'),
    idempotencyKey: text('idempotency_key'),
    /** SHA-256 of the canonical request: a reused key with other parameters is refused. */
    requestFingerprint: text('request_fingerprint'),
    metadata: metadataColumn(),
    legCount: integer('leg_count').notNull(),
    totalAmount: numeric('total_amount').notNull(),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [
    index('batches_platform_created_idx').on(t.platformId, t.createdAt),
    uniqueIndex('batches_idempotency_unique').on(t.platformId, t.idempotencyKey).where(sql`idempotency_key is not null`),
  ],
);

/**
 * A transaction, or a leg of a batch. Amounts are `numeric` (exact); addresses are kept as sent and
 * compared lower-cased. `version` grows by one with every move (the row is locked for the move, the
 * version lets readers and tests see that no update was lost).
 */
/**
 * Every address a transaction row names, lower-cased, nulls left out: from, to and each
 * METADATA_ADDRESS_KEYS key, as SQL over the columns `column` names. The GIN index
 * transactions_addresses_idx is built on it and the Workspace API's scope queries it (ADR 44).
 * PostgreSQL uses an expression index only for the same expression, so both take it from here, with
 * the keys as SQL literals (a parameter would not be the same expression).
 */
export function addressesOf(column: (name: string) => string): string {
  const keys = METADATA_ADDRESS_KEYS.map((key) => {
    if (!/^[A-Za-z]+$/.test(key)) throw new Error(`metadata address key ${key} is not a plain word`);
    return `lower(${column('metadata')}->>'${key}')`;
  });
  return `array_remove(array[lower(${column('from_address')}), lower(${column('to_address')}), ${keys.join(', ')}], null)`;
}

/** The non-terminal statuses as an SQL list: the in-flight index's predicate, which its query repeats literally. */
export const IN_FLIGHT_SQL = TRANSACTION_STATUSES.filter((status) => !TERMINAL_TRANSACTION_STATUSES.includes(status))
  .map((status) => `'${status}'`)
  .join(', ');

export const transactions = paymentsSchema.table(
  'transactions',
  {
    id: uuid('id').primaryKey(),
    platformId: platformIdColumn(),
    /** The platform's workspace at creation, copied so events route without a join. */
    workspaceId: uuid('workspace_id'),
    status: text('status').$type<TransactionStatus>().notNull(),
    amount: numeric('amount').notNull(),
    currency: text('currency').$type<PaymentsTransaction['currency']>().notNull(),
    fromAddress: text('from_address').notNull(),
    toAddress: text('to_address').notNull(),
    blockchainNetwork: text('blockchain_network').$type<PaymentsTransaction['blockchainNetwork']>().notNull(),
    chainId: integer('chain_id'),
    orchestrationType: text('orchestration_type').$type<PaymentsTransaction['orchestrationType']>().notNull(),
    signerType: text('signer_type').$type<NonNullable<PaymentsTransaction['signerType']>>(),
    customerId: text('customer_id'),
    templateId: uuid('template_id'),
    template: jsonb('template').$type<Record<string, unknown>>(),
    billingConfig: jsonb('billing_config').$type<Record<string, unknown>>(),
    quoteId: uuid('quote_id'),
    feeAmount: numeric('fee_amount'),
    metadata: metadataColumn(),
    idempotencyKey: text('idempotency_key'),
    requestFingerprint: text('request_fingerprint'),
    batchId: uuid('batch_id').references(() => batches.id),
    legIndex: integer('leg_index'),
    /**
     * The creation's place among its sender's (platform and lower(from_address)): 1, 2, 3... Unique,
     * so two creations that read the sender's rows in the same state cannot both be inserted: the
     * second one's checks are run again on a newer snapshot (ADR 32). Null on rows made before it.
     */
    senderSeq: integer('sender_seq'),
    txHash: text('tx_hash'),
    escrowAddress: text('escrow_address'),
    /** End of the hold period: the sender may rescind until then. */
    holdDeadline: timestamptzString('hold_deadline'),
    /** The `rescind` rules answered at creation: `{allowed, deadline, requiresReason, notifyRecipient}`. */
    rescindPolicy: jsonb('rescind_policy').$type<Record<string, unknown>>(),
    failureReason: text('failure_reason'),
    /** The level at which the transaction counts (`escrowed`), fixed at creation (docs/transactions.md, finality); null: `confirmed`. */
    requiredFinality: text('required_finality').$type<FinalityLevel>(),
    /** The level the escrow's lock reached, the confirmations then and its block (docs/chain.md, levels); null before the chain shows it. */
    finality: text('finality').$type<FinalityLevel>(),
    confirmations: integer('confirmations'),
    blockNumber: bigint('block_number', { mode: 'number' }),
    blockHash: text('block_hash'),
    version: integer('version').notNull().default(1),
    statusChangedAt: timestamptzString('status_changed_at').notNull().defaultNow(),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [
    index('transactions_platform_created_idx').on(t.platformId, t.createdAt, t.id),
    index('transactions_platform_status_idx').on(t.platformId, t.status, t.statusChangedAt),
    // The money in flight (transactions/metrics.ts), read at every scrape: only the non-terminal rows.
    index('transactions_in_flight_idx')
      .on(t.status, t.statusChangedAt, t.holdDeadline)
      .where(sql.raw(`status in (${IN_FLIGHT_SQL})`)),
    index('transactions_platform_from_idx').on(t.platformId, sql`lower(${t.fromAddress})`, t.createdAt),
    index('transactions_platform_to_idx').on(t.platformId, sql`lower(${t.toAddress})`),
    // Partial: only the rows a `customer_id = $1` or `batch_id = $1` read can find (the planner
    // proves the predicate from the equality), so a creation without a customer, or any single
    // creation, writes no entry in them (ADR 68). No index on workspace_id: no statement reads by it.
    index('transactions_platform_customer_idx').on(t.platformId, t.customerId).where(sql`customer_id is not null`),
    index('transactions_batch_idx').on(t.batchId, t.legIndex).where(sql`batch_id is not null`),
    // Every address the row names (addressesOf): the Workspace API's reads find a workspace's rows
    // on other platforms through it (ADR 44). fastupdate off: no pending list for each read to scan,
    // no flush of it landing on one creation.
    index('transactions_addresses_idx')
      .using('gin', sql.raw(addressesOf((column) => `"${column}"`)))
      .with({ fastupdate: false }),
    uniqueIndex('transactions_sender_seq_unique').on(t.platformId, sql`lower(${t.fromAddress})`, t.senderSeq),
    uniqueIndex('transactions_idempotency_unique')
      .on(t.platformId, t.idempotencyKey)
      .where(sql`idempotency_key is not null and batch_id is null`),
  ],
);

/** The transaction a row is about. */
export const transactionIdColumn = () => reference('transaction_id', () => transactions.id);

/** Every move of every transaction, in order: the audit trail the state machine leaves. */
export const transactionTransitions = paymentsSchema.table(
  'transaction_transitions',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    transactionId: transactionIdColumn(),
    fromStatus: text('from_status').$type<TransactionStatus>(),
    toStatus: text('to_status').$type<TransactionStatus>().notNull(),
    action: text('action').notNull(),
    /** Who moved it: `platform:<id>`, `chain:<eventId>`, `system:<worker>`. */
    actor: text('actor').notNull(),
    reason: text('reason'),
    eventId: text('event_id'),
    createdAt: createdAtString(),
  },
  (t) => [index('transaction_transitions_tx_idx').on(t.transactionId, t.seq)],
);

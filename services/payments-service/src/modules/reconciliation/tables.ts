import type { FinalityLevel, MismatchKind } from '@holdfast/contracts';
import { timestamptzString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { bigint, index, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { transactionIdColumn } from '../transactions/tables.js';

/**
 * Differences between the books and the escrow contract the reconciler found (docs/settlement.md,
 * "Reconciliation"): one open row per transaction and kind, `first_seen_at` is "since when";
 * resolved when the reconciler repaired it or the difference went away.
 */
export const reconciliationMismatches = paymentsSchema.table(
  'reconciliation_mismatches',
  {
    id: uuid('id').primaryKey(),
    kind: text('kind').$type<MismatchKind>().notNull(),
    transactionId: transactionIdColumn(),
    batchId: uuid('batch_id'),
    network: text('network').notNull(),
    escrowAddress: text('escrow_address').notNull(),
    databaseStatus: text('database_status').notNull(),
    chainStatus: text('chain_status').notNull(),
    /** `announced_block_gone`: the level the lock had been announced at, and its block. */
    announcedFinality: text('announced_finality').$type<FinalityLevel>(),
    announcedBlockNumber: bigint('announced_block_number', { mode: 'number' }),
    announcedBlockHash: text('announced_block_hash'),
    firstSeenAt: timestamptzString('first_seen_at').notNull().defaultNow(),
    lastSeenAt: timestamptzString('last_seen_at').notNull().defaultNow(),
    resolvedAt: timestamptzString('resolved_at'),
    /** `repaired` (the reconciler moved the transaction) or `cleared` (the difference went away). */
    resolution: text('resolution'),
    repairedBy: text('repaired_by'),
  },
  (t) => [
    uniqueIndex('reconciliation_mismatches_open_unique').on(t.transactionId, t.kind).where(sql`resolved_at is null`),
    index('reconciliation_mismatches_seen_idx').on(t.firstSeenAt),
  ],
);

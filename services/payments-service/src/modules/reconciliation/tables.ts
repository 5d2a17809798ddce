import type { MismatchKind } from '@holdfast/contracts';
import { sql } from 'drizzle-orm';
import { index, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { transactions } from '../transactions/tables.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'string' });

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
    transactionId: uuid('transaction_id')
      .notNull()
      .references(() => transactions.id),
    batchId: uuid('batch_id'),
    network: text('network').notNull(),
    escrowAddress: text('escrow_address').notNull(),
    databaseStatus: text('database_status').notNull(),
    chainStatus: text('chain_status').notNull(),
    firstSeenAt: ts('first_seen_at').notNull().defaultNow(),
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
    resolvedAt: ts('resolved_at'),
    /** `repaired` (the reconciler moved the transaction) or `cleared` (the difference went away). */
    resolution: text('resolution'),
    repairedBy: text('repaired_by'),
  },
  (t) => [
    uniqueIndex('reconciliation_mismatches_open_unique').on(t.transactionId, t.kind).where(sql`resolved_at is null`),
    index('reconciliation_mismatches_seen_idx').on(t.firstSeenAt),
  ],
);

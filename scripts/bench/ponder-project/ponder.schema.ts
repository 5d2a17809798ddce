// The rows Ponder writes for scripts/bench/ponder.ts: one per EscrowCreated (a single escrow or a
// batch's leg) and one per BatchCreated, the same events our indexer publishes to the CHAIN stream.
import { onchainTable } from 'ponder';

export const escrow = onchainTable('escrow', (t) => ({
  id: t.hex().primaryKey(),
  sender: t.hex().notNull(),
  receiver: t.hex().notNull(),
  token: t.hex().notNull(),
  amount: t.bigint().notNull(),
  attester: t.hex().notNull(),
  holdDeadline: t.bigint().notNull(),
  expiresAt: t.bigint().notNull(),
  blockNumber: t.bigint().notNull(),
  transactionHash: t.hex().notNull(),
}));

export const batch = onchainTable('batch', (t) => ({
  id: t.text().primaryKey(),
  firstId: t.hex().notNull(),
  sender: t.hex().notNull(),
  token: t.hex().notNull(),
  legCount: t.bigint().notNull(),
  total: t.bigint().notNull(),
  blockNumber: t.bigint().notNull(),
}));

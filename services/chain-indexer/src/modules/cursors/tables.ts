import { bigint, integer, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { indexerSchema } from '../../db/pg-schema.js';

/**
 * How far the indexer has read each network: the last block whose events JetStream acknowledged.
 * Written only after the publish ack, so a restart resumes without losing an event.
 */
export const cursors = indexerSchema.table('cursors', {
  network: text('network').primaryKey(),
  chainId: integer('chain_id').notNull(),
  blockNumber: bigint('block_number', { mode: 'bigint' }).notNull(),
  blockHash: text('block_hash').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** Hashes of the most recent blocks read, to notice a reorg (a new block whose parent is not ours). */
export const recentBlocks = indexerSchema.table(
  'recent_blocks',
  {
    network: text('network').notNull(),
    blockNumber: bigint('block_number', { mode: 'bigint' }).notNull(),
    blockHash: text('block_hash').notNull(),
    parentHash: text('parent_hash').notNull(),
    seenAt: timestamp('seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.network, t.blockNumber] })],
);

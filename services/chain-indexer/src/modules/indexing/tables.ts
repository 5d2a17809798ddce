import type { EscrowContract } from '@holdfast/config';
import type { ChainEvent, FinalityLevel } from '@holdfast/contracts';
import { timestamptz, updatedAt } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
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
  /** Hash of block 0 of the chain the cursor belongs to: another genesis means the chain was reset. */
  genesisHash: text('genesis_hash'),
  updatedAt: updatedAt(),
});

/** Hashes of the most recent blocks read, to notice a reorg (a new block whose parent is not ours). */
export const recentBlocks = indexerSchema.table(
  'recent_blocks',
  {
    network: text('network').notNull(),
    blockNumber: bigint('block_number', { mode: 'bigint' }).notNull(),
    blockHash: text('block_hash').notNull(),
    parentHash: text('parent_hash').notNull(),
    seenAt: timestamptz('seen_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.network, t.blockNumber] })],
);

/**
 * Every event published to the CHAIN stream, written with the cursor in the transaction that follows
 * the publish ack. A reorg reads it to correct exactly what it published; a re-read range skips what is
 * already here. `removed_at` marks an event whose correction was published.
 */
export const events = indexerSchema.table(
  'events',
  {
    eventId: text('event_id').primaryKey(),
    network: text('network').notNull(),
    /** `<chainId>:<transactionHash>:<logIndex>`: the same log mined again after a reorg gets occurrence 2, 3... */
    logKey: text('log_key').notNull(),
    occurrence: integer('occurrence').notNull(),
    kind: text('kind').notNull(),
    blockNumber: bigint('block_number', { mode: 'bigint' }).notNull(),
    blockHash: text('block_hash').notNull(),
    logIndex: integer('log_index').notNull(),
    payload: jsonb('payload').$type<ChainEvent>().notNull(),
    /**
     * The highest level published for the event (docs/chain.md, levels): it is published again each
     * time its block reaches a higher one, until `finalized`. Events published before levels count
     * as `finalized` (they are history, and republishing all of it would flood the stream).
     */
    finality: text('finality').$type<FinalityLevel>().notNull().default('finalized'),
    publishedAt: timestamptz('published_at').notNull().defaultNow(),
    removedAt: timestamptz('removed_at'),
    removedReason: text('removed_reason'),
  },
  (t) => [
    uniqueIndex('events_log_key_occurrence_idx').on(t.logKey, t.occurrence),
    index('events_live_by_block_idx').on(t.network, t.blockNumber, t.logIndex).where(sql`${t.removedAt} is null`),
    // The live events whose level may still rise: read at every new head, few (minutes of events).
    index('events_rising_idx').on(t.network, t.blockNumber, t.logIndex).where(sql`${t.removedAt} is null and ${t.finality} <> 'finalized'`),
  ],
);

/** The escrow contracts indexed per network; a contract new to this table is read from its deployment block. */
export const contracts = indexerSchema.table(
  'contracts',
  {
    network: text('network').notNull(),
    address: text('address').notNull(),
    deploymentBlock: bigint('deployment_block', { mode: 'bigint' }).notNull(),
    addedAt: timestamptz('added_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.network, t.address] })],
);

/**
 * One instance follows a network at a time: it holds the lease and renews it; every write checks it
 * (a fence), so an instance that lost its lease while paused cannot move the cursor.
 */
export const leases = indexerSchema.table('leases', {
  network: text('network').primaryKey(),
  owner: text('owner').notNull(),
  expiresAt: timestamptz('expires_at').notNull(),
});

/**
 * Escrow contracts registered at run time (INDEXER_COMMANDS.followContract): a workspace's dedicated
 * escrow, announced by workspace-service after its deployment. Followed like the ESCROW_CONTRACTS
 * ones, from their deployment block, from the moment they arrive and after every restart; never
 * removed (a deprecated escrow may still hold funds).
 */
export const registeredContracts = indexerSchema.table(
  'registered_contracts',
  {
    network: text('network').$type<EscrowContract['network']>().notNull(),
    /** EIP-55 checksummed. */
    address: text('address').notNull(),
    deploymentBlock: bigint('deployment_block', { mode: 'bigint' }).notNull(),
    workspaceId: text('workspace_id').notNull(),
    deploymentId: text('deployment_id').notNull(),
    registeredAt: timestamptz('registered_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.network, t.address] })],
);

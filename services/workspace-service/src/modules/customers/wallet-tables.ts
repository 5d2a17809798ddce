import { cascadingReference, createdAt, timestamptz } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { check, index, integer, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';
import { workspaceIdColumn } from '../workspaces/tables.js';
import { customers } from './tables.js';

/**
 * The one wallet of a customer: linked by a signed SIWE message, created at CUSTODY_A, or derived
 * from the workspace's PLATFORM HD wallet (auto-created customer wallets).
 * Deleted with its customer or its workspace (ON DELETE CASCADE).
 */
export const customerWallets = workspaceSchema.table(
  'customer_wallets',
  {
    customerId: cascadingReference('customer_id', () => customers.id).primaryKey(),
    workspaceId: workspaceIdColumn(),
    walletAddress: text('wallet_address').notNull(),
    chainId: integer('chain_id'),
    source: text('source').$type<'siwe' | 'custody_a' | 'platform'>().notNull(),
    providerWalletId: text('provider_wallet_id'),
    blockchain: text('blockchain'),
    linkedAt: timestamptz('linked_at').notNull().defaultNow(),
  },
  () => [
    // An address belongs to at most one customer of a workspace.
    uniqueIndex('customer_wallets_address_idx').on(sql`workspace_id`, sql`lower(wallet_address)`),
    check('customer_wallets_source_ck', sql`source in ('siwe', 'custody_a', 'platform')`),
  ],
);
export type CustomerWalletRow = typeof customerWallets.$inferSelect;

/** Single-use SIWE nonces, stored as SHA-256 hashes, bound to the customer that asked for them. */
export const walletLinkNonces = workspaceSchema.table(
  'wallet_link_nonces',
  {
    nonceHash: text('nonce_hash').primaryKey(),
    workspaceId: workspaceIdColumn(),
    customerId: cascadingReference('customer_id', () => customers.id),
    chainId: integer('chain_id').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('wallet_link_nonces_customer_idx').on(t.customerId),
    /** The retention sweeper's scan (modules/retention). */
    index('wallet_link_nonces_expires_idx').on(t.expiresAt),
  ],
);

import type { AddressFormat, Curve } from '@holdfast/contracts';
import { cascadingReference, createdAt } from '@holdfast/db';
import { text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../../db/pg-schema.js';
import { workspaceIdColumn } from '../../workspaces/tables.js';

/**
 * The built-in PLATFORM provider: one HD wallet per workspace. `seed_sealed` is the BIP-39
 * mnemonic sealed with AES-256-GCM under DATA_ENCRYPTION_KEY, bound to the wallet id.
 * Deleted with its workspace (ON DELETE CASCADE): the funds at its addresses cannot be reached any more.
 */
export const platformWallets = workspaceSchema.table('platform_wallets', {
  id: uuid('id').primaryKey(),
  workspaceId: workspaceIdColumn().unique(),
  seedSealed: text('seed_sealed').notNull(),
  createdAt: createdAt(),
});
export type PlatformWalletRow = typeof platformWallets.$inferSelect;

/** The accounts derived from a platform wallet: the path is what re-derives the key. */
export const platformWalletAccounts = workspaceSchema.table(
  'platform_wallet_accounts',
  {
    id: uuid('id').primaryKey(),
    walletId: cascadingReference('wallet_id', () => platformWallets.id),
    workspaceId: workspaceIdColumn(),
    address: text('address').notNull(),
    addressFormat: text('address_format').$type<AddressFormat>().notNull(),
    curve: text('curve').$type<Curve>().notNull(),
    path: text('path').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('platform_wallet_accounts_path_idx').on(t.walletId, t.addressFormat, t.path),
    uniqueIndex('platform_wallet_accounts_address_idx').on(t.workspaceId, t.address),
  ],
);
export type PlatformWalletAccountRow = typeof platformWalletAccounts.$inferSelect;

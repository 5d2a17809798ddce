import { uuidv7, type WalletAccount } from '@holdfast/contracts';
import { and, asc, eq } from 'drizzle-orm';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { findRow } from '../../../db/queries.js';
import { type PlatformWalletRow, platformWalletAccounts, platformWallets } from './tables.js';

// biome-ignore lint/suspicious/noExplicitAny: repositories take the service's drizzle instance, whatever its table map
export type Db = PostgresJsDatabase<any>;

/** A wallet account as the providers answer it. */
const accountColumns = {
  address: platformWalletAccounts.address,
  addressFormat: platformWalletAccounts.addressFormat,
  curve: platformWalletAccounts.curve,
  path: platformWalletAccounts.path,
};

/** SQL of the built-in HD wallet: one sealed seed per workspace and the accounts derived from it. */
export function createPlatformWalletRepository(db: Db) {
  return {
    findByWorkspace: async (workspaceId: string): Promise<PlatformWalletRow | undefined> => {
      return findRow(db, platformWallets, eq(platformWallets.workspaceId, workspaceId));
    },

    /**
     * Stores a new wallet unless the workspace has one already (two requests racing: the first
     * wins and both use it). `seal` receives the new id, to bind the sealed seed to its row.
     */
    insertIfAbsent: async (workspaceId: string, seal: (id: string) => string): Promise<PlatformWalletRow> => {
      const id = uuidv7();
      await db
        .insert(platformWallets)
        .values({ id, workspaceId, seedSealed: seal(id) })
        .onConflictDoNothing();
      const [row] = await db.select().from(platformWallets).where(eq(platformWallets.workspaceId, workspaceId));
      if (!row) throw new Error('platform wallet vanished after insert');
      return row;
    },

    listAccounts: async (walletId: string): Promise<WalletAccount[]> =>
      db
        .select(accountColumns)
        .from(platformWalletAccounts)
        .where(eq(platformWalletAccounts.walletId, walletId))
        .orderBy(asc(platformWalletAccounts.createdAt), asc(platformWalletAccounts.id)),

    findAccount: async (walletId: string, address: string): Promise<WalletAccount | undefined> => {
      const [row] = await db
        .select(accountColumns)
        .from(platformWalletAccounts)
        .where(and(eq(platformWalletAccounts.walletId, walletId), eq(platformWalletAccounts.address, address)));
      return row;
    },

    /** Records derived accounts; one already recorded (same format and path) is kept as it is. */
    insertAccounts: async (walletId: string, workspaceId: string, accounts: WalletAccount[]): Promise<void> => {
      if (accounts.length === 0) return;
      const now = Date.now();
      await db
        .insert(platformWalletAccounts)
        .values(
          accounts.map((a, i) => ({
            // Ids ordered as requested (listing order), even within one millisecond.
            id: uuidv7(now + i),
            walletId,
            workspaceId,
            address: a.address,
            addressFormat: a.addressFormat,
            curve: a.curve,
            path: a.path ?? '',
          })),
        )
        .onConflictDoNothing();
    },
  };
}
export type PlatformWalletRepository = ReturnType<typeof createPlatformWalletRepository>;

import { and, eq, gt, isNotNull, isNull, lt, or } from 'drizzle-orm';
import { findRow, uniqueViolationOf } from '../../../db/queries.js';
import { type CustomerWalletRow, customerWallets, walletLinkNonces } from '../../customers/index.js';
import type { Tx } from '../provider-configs/repository.js';
import type { Db } from '../providers/repository.js';

export type NonceRow = typeof walletLinkNonces.$inferSelect;
export type NewCustomerWallet = typeof customerWallets.$inferInsert;

/** Why a customer wallet could not be stored. */
export type WalletInsertConflict = 'customer_has_wallet' | 'address_taken';

/** All SQL of customer wallets and their single-use SIWE nonces. */
export function createCustomerWalletRepository(db: Db) {
  return {
    transaction: <T>(work: (tx: Tx) => Promise<T>): Promise<T> => db.transaction((tx) => work(tx as Tx)),

    /** Stores a new nonce and drops the customer's spent or expired ones. */
    insertNonce: async (row: typeof walletLinkNonces.$inferInsert): Promise<void> => {
      await db
        .delete(walletLinkNonces)
        .where(
          and(
            eq(walletLinkNonces.customerId, row.customerId),
            or(lt(walletLinkNonces.expiresAt, new Date()), isNotNull(walletLinkNonces.usedAt)),
          ),
        );
      await db.insert(walletLinkNonces).values(row);
    },

    findNonce: async (nonceHash: string): Promise<NonceRow | undefined> => {
      return findRow(db, walletLinkNonces, eq(walletLinkNonces.nonceHash, nonceHash));
    },

    /** Marks an unused, unexpired nonce of this customer used; undefined when it was not (any more). */
    consumeNonce: async (tx: Tx, nonceHash: string, workspaceId: string, customerId: string): Promise<NonceRow | undefined> => {
      const [row] = await tx
        .update(walletLinkNonces)
        .set({ usedAt: new Date() })
        .where(
          and(
            eq(walletLinkNonces.nonceHash, nonceHash),
            eq(walletLinkNonces.workspaceId, workspaceId),
            eq(walletLinkNonces.customerId, customerId),
            isNull(walletLinkNonces.usedAt),
            gt(walletLinkNonces.expiresAt, new Date()),
          ),
        )
        .returning();
      return row;
    },

    findWallet: async (workspaceId: string, customerId: string): Promise<CustomerWalletRow | undefined> => {
      return findRow(db, customerWallets, and(eq(customerWallets.customerId, customerId), eq(customerWallets.workspaceId, workspaceId)));
    },

    /** Any wallet of the customer, whatever the workspace (a customer id belongs to one workspace). */
    findWalletOfCustomer: async (customerId: string): Promise<CustomerWalletRow | undefined> => {
      return findRow(db, customerWallets, eq(customerWallets.customerId, customerId));
    },

    insertWallet: async (tx: Tx, row: NewCustomerWallet): Promise<CustomerWalletRow | WalletInsertConflict> => {
      try {
        // A savepoint, so that a refused insert leaves the caller's transaction usable.
        return await tx.transaction(async (inner) => {
          const [inserted] = await inner.insert(customerWallets).values(row).returning();
          if (!inserted) throw new Error('insert returned nothing');
          return inserted;
        });
      } catch (error) {
        const constraint = uniqueViolationOf(error);
        if (constraint === 'customer_wallets_address_idx') return 'address_taken';
        if (constraint) return 'customer_has_wallet';
        throw error;
      }
    },
  };
}
export type CustomerWalletRepository = ReturnType<typeof createCustomerWalletRepository>;

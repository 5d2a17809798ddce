import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/store.js';
import { customerWallets } from '../customer-wallets/tables.js';
import { customers } from '../customers/tables.js';
import { platformMappings } from '../platform-mappings/tables.js';
import { platformWalletAccounts } from '../providers/tables.js';

/**
 * What the transaction reads need from this service's tables: the platforms mapped to a
 * workspace (active and revoked: their transactions stay the workspace's history) and its custody
 * addresses (the built-in wallet's accounts, customers' CUSTODY_A wallets), lower-cased.
 */
export function createTransactionScopeRepository(db: Executor) {
  return {
    platformIdsOf: async (workspaceIds: readonly string[] | 'all'): Promise<string[]> => {
      if (workspaceIds !== 'all' && workspaceIds.length === 0) return [];
      const rows = await db
        .select({ platformId: platformMappings.platformId })
        .from(platformMappings)
        .where(workspaceIds === 'all' ? undefined : inArray(platformMappings.workspaceId, [...workspaceIds]));
      return rows.map((r) => r.platformId);
    },

    custodyAddressesOf: async (workspaceId: string): Promise<string[]> => {
      const [accounts, wallets] = await Promise.all([
        db
          .select({ address: platformWalletAccounts.address })
          .from(platformWalletAccounts)
          .where(eq(platformWalletAccounts.workspaceId, workspaceId)),
        db
          .select({ address: customerWallets.walletAddress })
          .from(customerWallets)
          .where(and(eq(customerWallets.workspaceId, workspaceId), eq(customerWallets.source, 'custody_a'))),
      ]);
      return [...new Set([...accounts, ...wallets].map((r) => r.address.toLowerCase()))];
    },

    /** The workspace's default platform for creation: its newest active production mapping, else its newest active sandbox one. */
    defaultPlatformOf: async (workspaceId: string): Promise<string | undefined> => {
      const rows = await db
        .select({ platformId: platformMappings.platformId, kind: platformMappings.kind, createdAt: platformMappings.createdAt })
        .from(platformMappings)
        .where(and(eq(platformMappings.workspaceId, workspaceId), eq(platformMappings.status, 'active')));
      rows.sort((a, b) => (a.kind === b.kind ? b.createdAt.getTime() - a.createdAt.getTime() : a.kind === 'production' ? -1 : 1));
      return rows[0]?.platformId;
    },

    customerInWorkspace: async (workspaceId: string, customerId: string): Promise<boolean> => {
      const [row] = await db
        .select({ id: customers.id })
        .from(customers)
        .where(and(eq(customers.id, customerId), eq(customers.workspaceId, workspaceId)));
      return row !== undefined;
    },
  };
}

export type TransactionScopeRepository = ReturnType<typeof createTransactionScopeRepository>;

import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/store.js';
import { customers } from '../customers/index.js';
import { platformWalletAccounts } from '../wallets/index.js';
import { platformMappings } from '../workspaces/index.js';

/**
 * What the transaction reads need from this service's tables: the platforms mapped to a
 * workspace (active and revoked: their transactions stay the workspace's history) and the addresses
 * it has proven control of, lower-cased.
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

    /**
     * The addresses that widen what a workspace sees (docs/workspace-transactions.md, "Which
     * addresses count"): only those derived from its own PLATFORM HD wallet (its accounts and its
     * customers' auto-created wallets, both rows of platform_wallet_accounts), whose key this
     * service holds for the workspace. A CUSTODY_A address is whatever a tenant-set vendor answers
     * and a SIWE-linked one is the customer's own: neither proves anything, so neither counts.
     */
    provenAddressesOf: async (workspaceId: string): Promise<string[]> => {
      const accounts = await db
        .select({ address: platformWalletAccounts.address })
        .from(platformWalletAccounts)
        .where(eq(platformWalletAccounts.workspaceId, workspaceId));
      return [...new Set(accounts.map((r) => r.address.toLowerCase()))];
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

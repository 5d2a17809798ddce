import { and, asc, eq, sql } from 'drizzle-orm';
import { findRow, insertRow } from '../../db/queries.js';
import type { Executor } from '../../db/store.js';
import { type IssuanceStatus, sandboxIssuances } from './tables.js';

export type IssuanceRow = typeof sandboxIssuances.$inferSelect;

/** The sandbox issuance journal (see tables.ts). */
export function createSandboxIssuancesRepository(db: Executor) {
  return {
    insert: async (row: { id: string; workspaceId: string; name: string; requestedBy: string | null }): Promise<IssuanceRow> => {
      return insertRow(db, sandboxIssuances, row);
    },

    findForUpdate: async (id: string): Promise<IssuanceRow | undefined> => {
      return findRow(db, sandboxIssuances, eq(sandboxIssuances.id, id), 'update');
    },

    /** When each of the workspace's pending issuances began, oldest first. */
    pendingSince: async (workspaceId: string): Promise<Date[]> =>
      (
        await db
          .select({ createdAt: sandboxIssuances.createdAt })
          .from(sandboxIssuances)
          .where(and(eq(sandboxIssuances.workspaceId, workspaceId), eq(sandboxIssuances.status, 'pending')))
          .orderBy(asc(sandboxIssuances.createdAt))
      ).map((r) => r.createdAt),

    resolve: async (id: string, status: Exclude<IssuanceStatus, 'pending'>, platformId: string | null = null): Promise<void> => {
      await db
        .update(sandboxIssuances)
        .set({ status, platformId, resolvedAt: sql`now()` })
        .where(and(eq(sandboxIssuances.id, id), eq(sandboxIssuances.status, 'pending')));
    },
  };
}

export type SandboxIssuancesRepository = ReturnType<typeof createSandboxIssuancesRepository>;

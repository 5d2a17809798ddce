import type { WorkspaceStatus } from '@holdfast/contracts';
import { and, desc, eq } from 'drizzle-orm';
import type { PgColumn, PgInsertValue, PgTable, PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { principalRowWrites } from '../../db/principal-rows.js';
import { containsText, findRow, insertRow, pageOf, returnedRow, uniqueViolationOf } from '../../db/queries.js';
import type { Executor } from '../../db/store.js';
import type { PrincipalChanges } from '../access/index.js';
import { workspaceBilling, workspaces, workspaceWalletSettings } from './tables.js';

export type WorkspaceRow = typeof workspaces.$inferSelect;
export type NewWorkspaceRow = typeof workspaces.$inferInsert;
export type WorkspacePatch = Partial<Omit<NewWorkspaceRow, 'id' | 'createdAt' | 'slug'>>;
export type BillingRow = typeof workspaceBilling.$inferSelect;
export type WalletSettingsRow = typeof workspaceWalletSettings.$inferSelect;

export interface WorkspaceListFilter {
  onlyId?: string;
  status?: WorkspaceStatus;
  search?: string;
}

export function isDuplicateSlug(error: unknown): boolean {
  return uniqueViolationOf(error) === 'workspaces_slug_unique';
}

/** `principals`: told of every workspace changed or deleted (in that transaction), for the principal cache. */
export function createWorkspacesRepository(db: Executor, principals: PrincipalChanges) {
  const writes = principalRowWrites(db, workspaces, (id) => principals.changed(db, [`workspace:${id}`]));
  /** Writes a workspace's one row of `table` (its billing, its wallet settings): inserted, or replaced with `updated_at` now. */
  const upsertWorkspaceRow = async <T extends PgTable & { workspaceId: PgColumn; updatedAt: PgColumn }>(
    table: T,
    row: PgInsertValue<T> & PgUpdateSetSource<T> & { workspaceId: string },
  ): Promise<T['$inferSelect']> => {
    const { workspaceId: _id, ...set } = row;
    return returnedRow(
      await db
        .insert(table)
        .values(row)
        .onConflictDoUpdate({ target: table.workspaceId, set: { ...set, updatedAt: new Date() } })
        .returning(),
      'upsert',
    );
  };
  return {
    findById: async (id: string): Promise<WorkspaceRow | undefined> => {
      return findRow(db, workspaces, eq(workspaces.id, id));
    },

    findByIdForUpdate: async (id: string): Promise<WorkspaceRow | undefined> => {
      return findRow(db, workspaces, eq(workspaces.id, id), 'update');
    },

    /** Holds the workspace (FOR SHARE) until the transaction ends: a deletion waits for it. */
    findByIdForShare: async (id: string): Promise<WorkspaceRow | undefined> => {
      return findRow(db, workspaces, eq(workspaces.id, id), 'share');
    },

    slugTaken: async (slug: string): Promise<boolean> => {
      const [row] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.slug, slug));
      return row !== undefined;
    },

    insert: async (row: NewWorkspaceRow): Promise<WorkspaceRow> => {
      return insertRow(db, workspaces, row);
    },

    update: (id: string, patch: WorkspacePatch): Promise<WorkspaceRow> => writes.update(id, patch),

    /** Deletes the workspace; its billing, wallet settings and platform mappings go with it (ON DELETE CASCADE). */
    delete: (id: string): Promise<void> => writes.delete(id),

    list: async (filter: WorkspaceListFilter, page: number, limit: number): Promise<{ rows: WorkspaceRow[]; total: number }> => {
      const condition = and(
        filter.onlyId ? eq(workspaces.id, filter.onlyId) : undefined,
        filter.status ? eq(workspaces.status, filter.status) : undefined,
        containsText(filter.search, [workspaces.name, workspaces.slug, workspaces.email]),
      );
      return pageOf(db, workspaces, condition, [desc(workspaces.createdAt), desc(workspaces.id)], page, limit);
    },

    findBilling: async (workspaceId: string): Promise<BillingRow | undefined> => {
      return findRow(db, workspaceBilling, eq(workspaceBilling.workspaceId, workspaceId));
    },

    upsertBilling: (row: typeof workspaceBilling.$inferInsert): Promise<BillingRow> => upsertWorkspaceRow(workspaceBilling, row),

    findWalletSettings: async (workspaceId: string): Promise<WalletSettingsRow | undefined> => {
      return findRow(db, workspaceWalletSettings, eq(workspaceWalletSettings.workspaceId, workspaceId));
    },

    upsertWalletSettings: (row: typeof workspaceWalletSettings.$inferInsert): Promise<WalletSettingsRow> =>
      upsertWorkspaceRow(workspaceWalletSettings, row),
  };
}

export type WorkspacesRepository = ReturnType<typeof createWorkspacesRepository>;

import { and, asc, eq, or } from 'drizzle-orm';
import { findRow, insertRow, uniqueViolationOf, updateRow } from '../../db/queries.js';
import type { Executor } from '../../db/store.js';
import { workspaceIntegrations } from './tables.js';

export type IntegrationRow = typeof workspaceIntegrations.$inferSelect;
export type NewIntegrationRow = typeof workspaceIntegrations.$inferInsert;
export type IntegrationPatch = Partial<Omit<NewIntegrationRow, 'id' | 'workspaceId' | 'integrationId' | 'createdAt' | 'createdBy'>>;

/** A unique-violation of (workspace, kind): the workspace already has this integration. */
export function isDuplicateIntegration(error: unknown): boolean {
  return uniqueViolationOf(error) === 'workspace_integrations_kind_unique';
}

/** `ref` is the catalog kind's id or the row's own id, always within the workspace. */
const byRef = (workspaceId: string, ref: string) =>
  and(
    eq(workspaceIntegrations.workspaceId, workspaceId),
    or(eq(workspaceIntegrations.integrationId, ref), eq(workspaceIntegrations.id, ref)),
  );

export function createIntegrationsRepository(db: Executor) {
  return {
    list: async (workspaceId: string): Promise<IntegrationRow[]> =>
      db
        .select()
        .from(workspaceIntegrations)
        .where(eq(workspaceIntegrations.workspaceId, workspaceId))
        .orderBy(asc(workspaceIntegrations.createdAt), asc(workspaceIntegrations.id)),

    find: async (workspaceId: string, ref: string): Promise<IntegrationRow | undefined> => {
      return findRow(db, workspaceIntegrations, byRef(workspaceId, ref));
    },

    findForUpdate: async (workspaceId: string, ref: string): Promise<IntegrationRow | undefined> => {
      return findRow(db, workspaceIntegrations, byRef(workspaceId, ref), 'update');
    },

    insert: async (row: NewIntegrationRow): Promise<IntegrationRow> => {
      return insertRow(db, workspaceIntegrations, row);
    },

    update: async (id: string, patch: IntegrationPatch): Promise<IntegrationRow> => {
      return updateRow(db, workspaceIntegrations, id, patch);
    },

    delete: async (id: string): Promise<void> => {
      await db.delete(workspaceIntegrations).where(eq(workspaceIntegrations.id, id));
    },
  };
}

export type IntegrationsRepository = ReturnType<typeof createIntegrationsRepository>;

import { type Column, eq } from 'drizzle-orm';
import type { PgTable, PgUpdateSetSource } from 'drizzle-orm/pg-core';
import type { PrincipalChanges, PrincipalRef } from '../modules/access/index.js';
import { updateRow } from './queries.js';
import type { Executor } from './store.js';

/**
 * The update and the deletion of a row a principal is made of (a user, a customer, a workspace):
 * each tells `principals` of the change to `refOf(id)` in the write's own transaction, so that no
 * instance keeps serving the principal as it was.
 */
export function principalRowWrites<T extends PgTable & { id: Column; updatedAt: Column }>(
  db: Executor,
  table: T,
  principals: PrincipalChanges,
  refOf: (id: string) => PrincipalRef,
) {
  return {
    update: async (id: string, patch: PgUpdateSetSource<T>): Promise<T['$inferSelect']> => {
      const updated = await updateRow(db, table, id, patch);
      await principals.changed(db, [refOf(id)]);
      return updated;
    },
    delete: async (id: string): Promise<void> => {
      await db.delete(table).where(eq(table.id, id));
      await principals.changed(db, [refOf(id)]);
    },
  };
}

import { type Column, eq } from 'drizzle-orm';
import type { PgTable, PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { updateRow } from './queries.js';
import type { Executor } from './store.js';

/**
 * The update and the deletion of a row a principal is made of (a user, a customer, a workspace):
 * each calls `changed(id)` after the write, in the write's own transaction, so that the caller can
 * tell its principal cache and no instance keeps serving the principal as it was.
 */
export function principalRowWrites<T extends PgTable & { id: Column; updatedAt: Column }>(
  db: Executor,
  table: T,
  changed: (id: string) => Promise<void>,
) {
  return {
    update: async (id: string, patch: PgUpdateSetSource<T>): Promise<T['$inferSelect']> => {
      const updated = await updateRow(db, table, id, patch);
      await changed(id);
      return updated;
    },
    delete: async (id: string): Promise<void> => {
      await db.delete(table).where(eq(table.id, id));
      await changed(id);
    },
  };
}

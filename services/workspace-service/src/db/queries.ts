import { type Column, count, eq, ilike, or, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgTable } from 'drizzle-orm/pg-core';
import type { PostgresJsQueryResultHKT } from 'drizzle-orm/postgres-js';

// Query pieces the repositories of the service share.

/** The database or a transaction on it, whatever tables its schema declares. */
type Db = PgDatabase<PostgresJsQueryResultHKT, Record<string, unknown>>;

/** `text` inside a LIKE pattern: its `%`, `_` and `\` match themselves. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Rows where one of `columns` holds `search` (any case); no condition without a search. */
export function containsText(search: string | undefined, columns: (Column | SQL)[]): SQL | undefined {
  if (!search) return undefined;
  const pattern = `%${escapeLike(search)}%`;
  return or(...columns.map((column) => ilike(column, pattern)));
}

/** Page `page` (from 1) of `limit` rows of `table` matching `where` in `order`, and how many match. */
export async function pageOf<T extends PgTable>(
  db: Db,
  table: T,
  where: SQL | undefined,
  order: SQL[],
  page: number,
  limit: number,
): Promise<{ rows: T['$inferSelect'][]; total: number }> {
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(table as PgTable)
      .where(where)
      .orderBy(...order)
      .limit(limit)
      .offset((page - 1) * limit),
    db
      .select({ total: count() })
      .from(table as PgTable)
      .where(where),
  ]);
  return { rows: rows as T['$inferSelect'][], total: totals?.total ?? 0 };
}

/** Inserts `row` into `table` and answers it as stored. */
export async function insertRow<T extends PgTable>(db: Db, table: T, row: T['$inferInsert']): Promise<T['$inferSelect']> {
  const [inserted] = await db
    .insert(table as PgTable)
    .values(row as never)
    .returning();
  return inserted as T['$inferSelect'];
}

/** Sets `patch` on the row `id` of `table`, and its `updated_at` to now; answers the row as stored. */
export async function updateRow<T extends PgTable & { id: Column; updatedAt: Column }>(
  db: Db,
  table: T,
  id: string,
  patch: Partial<T['$inferInsert']>,
): Promise<T['$inferSelect']> {
  const [updated] = await db
    .update(table as PgTable)
    .set({ ...patch, updatedAt: new Date() } as never)
    .where(eq(table.id, id))
    .returning();
  return updated as T['$inferSelect'];
}

/**
 * The unique index a write broke (PostgreSQL 23505), or undefined for any other error. drizzle
 * wraps the driver's error: its `cause` holds the code.
 */
export function uniqueViolationOf(error: unknown): string | undefined {
  type PgError = { code?: string; constraint_name?: string };
  const cause = (error as { cause?: PgError } | undefined)?.cause ?? (error as PgError | undefined);
  return cause?.code === '23505' ? (cause.constraint_name ?? 'unknown') : undefined;
}

import { notFound } from '@holdfast/contracts';
import { type Column, count, eq, getTableName, ilike, or, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgInsertValue, PgTable, PgUpdateSetSource, TableLikeHasEmptySelection } from 'drizzle-orm/pg-core';
import type { PostgresJsQueryResultHKT } from 'drizzle-orm/postgres-js';
import type { DrizzleTypeError } from 'drizzle-orm/utils';

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

/**
 * A table as drizzle's `from()` takes it: its own parameter type, spelled out so that a table of a
 * generic type passes through (drizzle cannot decide that condition for a generic table; callers
 * pass the table itself and get its rows' type).
 */
type SelectableTable<T extends PgTable> =
  TableLikeHasEmptySelection<T> extends true
    ? DrizzleTypeError<"Cannot reference a data-modifying statement subquery if it doesn't contain a `returning` clause">
    : T;

/** Page `page` (from 1) of `limit` rows of `table` matching `where` in `order`, and how many match. */
export async function pageOf<T extends PgTable>(
  db: Db,
  table: SelectableTable<T>,
  where: SQL | undefined,
  order: SQL[],
  page: number,
  limit: number,
): Promise<{ rows: T['$inferSelect'][]; total: number }> {
  const [rows, [totals]] = await Promise.all([
    db
      .select()
      .from(table)
      .where(where)
      .orderBy(...order)
      .limit(limit)
      .offset((page - 1) * limit),
    db.select({ total: count() }).from(table).where(where),
  ]);
  return { rows, total: totals?.total ?? 0 };
}

/**
 * The row of `table` that `where` names (a condition on a unique key: the first row otherwise), or
 * undefined; with `lock`, held (FOR UPDATE / FOR SHARE) until the transaction ends.
 */
export async function findRow<T extends PgTable>(
  db: Db,
  table: SelectableTable<T>,
  where: SQL | undefined,
  lock?: 'update' | 'share',
): Promise<T['$inferSelect'] | undefined> {
  const query = db.select().from(table).where(where);
  const [row] = await (lock ? query.for(lock) : query);
  return row;
}

/** The row a write of one row answers (`returning`); none means the row was not there, a bug of the caller. */
export function returnedRow<R>([row]: R[], what: string): R {
  if (row === undefined) throw new Error(`${what} returned no row`);
  return row;
}

/** Inserts `row` into `table` and answers it as stored. */
export async function insertRow<T extends PgTable>(db: Db, table: T, row: PgInsertValue<T>): Promise<T['$inferSelect']> {
  return returnedRow(await db.insert(table).values(row).returning(), 'insert');
}

/**
 * Sets `patch` on the row `id` of `table`, and its `updated_at` to now; answers the row as stored.
 * A row deleted since the caller read it answers 404: the thing the request names is gone.
 */
export async function updateRow<T extends PgTable & { id: Column; updatedAt: Column }>(
  db: Db,
  table: T,
  id: string,
  patch: PgUpdateSetSource<T>,
): Promise<T['$inferSelect']> {
  const [row] = await db
    .update(table)
    .set({ ...patch, updatedAt: new Date() })
    .where(eq(table.id, id))
    .returning();
  if (row === undefined) throw notFound(`${getTableName(table)} row`, { id });
  return row;
}

/**
 * The unique index a write broke (PostgreSQL 23505), or undefined for any other error. drizzle
 * wraps the driver's error: its `cause` holds the code.
 */
export function uniqueViolationOf(error: unknown): string | undefined {
  const cause = typeof error === 'object' && error !== null && 'cause' in error && error.cause ? error.cause : error;
  if (typeof cause !== 'object' || cause === null || !('code' in cause) || cause.code !== '23505') return undefined;
  return 'constraint_name' in cause && typeof cause.constraint_name === 'string' ? cause.constraint_name : 'unknown';
}

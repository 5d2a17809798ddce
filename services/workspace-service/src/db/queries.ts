import { type Column, count, ilike, or, type SQL } from 'drizzle-orm';
import type { PgDatabase, PgTable } from 'drizzle-orm/pg-core';
import type { PostgresJsQueryResultHKT } from 'drizzle-orm/postgres-js';

// Query pieces the repositories of the service share.

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
  db: PgDatabase<PostgresJsQueryResultHKT, Record<string, unknown>>,
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

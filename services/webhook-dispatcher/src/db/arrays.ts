import type { PendingQuery, Row, Sql, TransactionSql } from 'postgres';

/**
 * A `text[]` parameter. Sent as JSON text and unpacked by PostgreSQL: postgres.js serialises a
 * `sql.array(...)` correctly only once a connection has fetched the array types, which the very
 * first query of a fresh pool has not. (JSON parameters here are always sent as `$n::text::jsonb`:
 * a `::jsonb` parameter would be JSON-encoded once more by a plain postgres.js client, and not by
 * the drizzle-wrapped one the process uses.)
 */
export function textArray(sql: Sql | TransactionSql, values: readonly string[]): PendingQuery<Row[]> {
  return sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::text::jsonb))::text[]`;
}

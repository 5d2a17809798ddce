import { getTableColumns, type Table } from 'drizzle-orm';
import { isoOf } from './time.js';

/** How a raw postgres.js value becomes the table's: as it is, a timestamp as ISO 8601, a `bigint` of `mode: 'number'` as a number. */
const AS_IS = 0;
const TIME = 1;
const NUMBER = 2;

/**
 * The one mapper from a row as raw postgres.js returns it (`select *`, `returning *`: the SQL
 * column names) to the drizzle table's own row type (`typeof table.$inferSelect`: its property
 * names), timestamps as ISO 8601 (`isoOf`) and `bigint(..., { mode: 'number' })` as numbers
 * (postgres.js answers an int8 as text). The row type is the table's, so a repository writes
 * neither a snake_case row interface nor a `toX` of its own, and a new column reaches every answer.
 * A column the row lacks (a statement that selects fewer) is undefined.
 */
export function rowMapper<T extends Table>(table: T): (row: Record<string, unknown>) => T['$inferSelect'] {
  const columns = Object.entries(getTableColumns(table)).map(
    ([key, column]) =>
      [key, column.name, column.getSQLType().startsWith('timestamp') ? TIME : column.columnType === 'PgBigInt53' ? NUMBER : AS_IS] as const,
  );
  return (row) => {
    const mapped: Record<string, unknown> = {};
    for (const [key, name, kind] of columns) {
      const value = row[name];
      mapped[key] =
        value === null || value === undefined || kind === AS_IS ? value : kind === TIME ? isoOf(value as string | Date) : Number(value);
    }
    return mapped as T['$inferSelect'];
  };
}

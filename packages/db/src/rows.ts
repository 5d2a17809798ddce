import { getTableColumns, type Table } from 'drizzle-orm';
import { isoOf } from './time.js';

/** A timestamp column's raw value as ISO 8601 (null and a column the row lacks as they are). */
const time = (value: string | Date | null | undefined) => (value === null || value === undefined ? value : isoOf(value));
/** A `bigint(..., { mode: 'number' })` column's raw value (postgres.js answers an int8 as text) as a number. */
const number = (value: string | number | null | undefined) => (value === null || value === undefined ? value : Number(value));

/**
 * The one mapper from a row as raw postgres.js returns it (`select *`, `returning *`: the SQL
 * column names) to the drizzle table's own row type (`typeof table.$inferSelect`: its property
 * names), timestamps as ISO 8601 (`isoOf`) and `bigint` columns of `mode: 'number'` as numbers.
 * The row type is the table's, so a repository writes neither a snake_case row interface nor a
 * `toX` of its own, and a new column reaches every answer. A column the row lacks (a statement that
 * selects fewer) is undefined.
 *
 * The mapper is one object literal of the table's columns, compiled once per table: built key by
 * key in a loop, the same object took several times as long (about 8 µs against 1 µs a row of
 * payments' 38 columns), on every row every read answers.
 */
export function rowMapper<T extends Table>(table: T): (row: Record<string, unknown>) => T['$inferSelect'] {
  const fields = Object.entries(getTableColumns(table)).map(([key, column]) => {
    const value = `row[${JSON.stringify(column.name)}]`;
    if (column.getSQLType().startsWith('timestamp')) return `${JSON.stringify(key)}: time(${value})`;
    if (column.columnType === 'PgBigInt53') return `${JSON.stringify(key)}: number(${value})`;
    return `${JSON.stringify(key)}: ${value}`;
  });
  // The names are the table definition's own (JSON-quoted), never a row's or a request's.
  return new Function('time', 'number', `return (row) => ({ ${fields.join(', ')} });`)(time, number);
}

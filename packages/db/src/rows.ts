import { type Column, getTableColumns, type Table } from 'drizzle-orm';
import { isoOf } from './time.js';

/** A property of the table's row type. */
type ColumnKey<T extends Table> = keyof T['$inferSelect'] & string;

/** Which of the table's columns a statement returns: `only` these, or all `except` these. */
export type ColumnChoice<K extends string> = { only: readonly K[] } | { except: readonly K[] };

/**
 * A column's value as raw postgres.js returns it, as the table's row type has it: a `timestamptz`
 * as ISO 8601 (`isoOf`; a `Date` in `mode: 'date'`), an `int8` (text on the wire) as the column's
 * number or bigint, a json(b) as postgres.js parsed it (drizzle's own decoding would parse a JSON
 * string value a second time), anything else as drizzle's column decodes it.
 */
function decoderOf(column: Column): (value: unknown) => unknown {
  if (column.columnType === 'PgTimestampString') return (value) => isoOf(value as string | Date);
  if (column.columnType === 'PgTimestamp') return (value) => (value instanceof Date ? value : new Date(isoOf(value as string)));
  if (column.columnType === 'PgJson' || column.columnType === 'PgJsonb') return (value) => value;
  return (value) => column.mapFromDriverValue(value);
}

/**
 * The one mapper from a row as raw postgres.js returns it (`select *`, `returning *`: the SQL
 * column names) to the drizzle table's own row type (`typeof table.$inferSelect`: its property
 * names), each value decoded as the column says (`decoderOf`). The row type is the table's, so a
 * repository writes neither a snake_case row interface nor a `toX` of its own, and a new column
 * reaches every answer. A statement that returns some of the columns names them (`only`), or the
 * ones it leaves out of its answer (`except`); its row type is then that `Pick` or `Omit`.
 */
export function rowMapper<T extends Table>(table: T): (row: Record<string, unknown>) => T['$inferSelect'];
export function rowMapper<T extends Table, K extends ColumnKey<T>>(
  table: T,
  columns: { only: readonly K[] },
): (row: Record<string, unknown>) => Pick<T['$inferSelect'], K>;
export function rowMapper<T extends Table, K extends ColumnKey<T>>(
  table: T,
  columns: { except: readonly K[] },
): (row: Record<string, unknown>) => Omit<T['$inferSelect'], K>;
export function rowMapper<T extends Table>(table: T, choice?: ColumnChoice<string>): (row: Record<string, unknown>) => unknown {
  const chosen = (key: string) => !choice || ('only' in choice ? choice.only.includes(key) : !choice.except.includes(key));
  const columns = Object.entries(getTableColumns(table))
    .filter(([key]) => chosen(key))
    .map(([key, column]) => [key, column.name, decoderOf(column)] as const);
  return (row) => {
    const mapped: Record<string, unknown> = {};
    for (const [key, name, decode] of columns) {
      const value = row[name];
      mapped[key] = value === null || value === undefined ? value : decode(value);
    }
    return mapped;
  };
}

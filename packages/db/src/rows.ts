import { type Column, getTableColumns, type Table } from 'drizzle-orm';
import { isoOf } from './time.js';

/** A property of the table's row type. */
type ColumnKey<T extends Table> = keyof T['$inferSelect'] & string;

/** Which of the table's columns a statement returns: `only` these, or all `except` these. */
export type ColumnChoice<K extends string> = { only: readonly K[] } | { except: readonly K[] };

/** Columns whose value postgres.js already answers as the row type has it. */
const AS_RETURNED = new Set([
  'PgText',
  'PgVarchar',
  'PgChar',
  'PgUUID',
  'PgBoolean',
  'PgInteger',
  'PgSmallInt',
  'PgNumeric',
  'PgEnumColumn',
]);

/**
 * A column's value as raw postgres.js returns it, as the table's row type has it: a `timestamptz`
 * as ISO 8601 (`isoOf`; a `Date` in `mode: 'date'`), an `int8` (text on the wire) as the column's
 * number or bigint, a json(b) as postgres.js parsed it (drizzle's own decoding would parse a JSON
 * string value a second time), anything else as drizzle's column decodes it. Undefined where the
 * value is as returned.
 */
function decoderOf(column: Column): ((value: unknown) => unknown) | undefined {
  if (AS_RETURNED.has(column.columnType) || column.columnType === 'PgJson' || column.columnType === 'PgJsonb') return undefined;
  if (column.columnType === 'PgTimestampString') return (value) => isoOf(value as string | Date);
  if (column.columnType === 'PgTimestamp') return (value) => (value instanceof Date ? value : new Date(isoOf(value as string)));
  if (column.columnType === 'PgBigInt53') return (value) => Number(value);
  return (value) => column.mapFromDriverValue(value);
}

/**
 * The one mapper from a row as raw postgres.js returns it (`select *`, `returning *`: the SQL
 * column names) to the drizzle table's own row type (`typeof table.$inferSelect`: its property
 * names), each value decoded as the column says (`decoderOf`; null and a column the row lacks as
 * they are). The row type is the table's, so a repository writes neither a snake_case row interface
 * nor a `toX` of its own, and a new column reaches every answer. A statement that returns some of
 * the columns names them (`only`), or the ones it leaves out of its answer (`except`); its row type
 * is then that `Pick` or `Omit`.
 *
 * The mapper is one object literal of the chosen columns, compiled once per table: built key by
 * key in a loop, the same object took several times as long (about 8 µs against 1 µs a row of
 * payments' 38 columns), on every row every read answers.
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
  const decoders: ((value: unknown) => unknown)[] = [];
  const fields = Object.entries(getTableColumns(table))
    .filter(([key]) => chosen(key))
    .map(([key, column]) => {
      const value = `row[${JSON.stringify(column.name)}]`;
      const decode = decoderOf(column);
      if (!decode) return `${JSON.stringify(key)}: ${value}`;
      decoders.push(decode);
      return `${JSON.stringify(key)}: decoded(${decoders.length - 1}, ${value})`;
    });
  const decoded = (index: number, value: unknown) => (value === null || value === undefined ? value : decoders[index]?.(value));
  // The names are the table definition's own (JSON-quoted), never a row's or a request's.
  return new Function('decoded', `return (row) => ({ ${fields.join(', ')} });`)(decoded);
}

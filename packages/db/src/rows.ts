import { getTableColumns, type Table } from 'drizzle-orm';
import { isoOf } from './time.js';

/**
 * The one mapper from a row as raw postgres.js returns it (`select *`, `returning *`: the SQL
 * column names) to the drizzle table's own row type (`typeof table.$inferSelect`: its property
 * names), timestamps as ISO 8601 (`isoOf`). The row type is the table's, so a repository writes
 * neither a snake_case row interface nor a `toX` of its own, and a new column reaches every answer.
 */
export function rowMapper<T extends Table>(table: T): (row: Record<string, unknown>) => T['$inferSelect'] {
  const columns = Object.entries(getTableColumns(table)).map(
    ([key, column]) => [key, column.name, column.getSQLType().startsWith('timestamp')] as const,
  );
  return (row) => {
    const mapped: Record<string, unknown> = {};
    for (const [key, name, time] of columns) {
      const value = row[name];
      mapped[key] = time && value !== null && value !== undefined ? isoOf(value as string | Date) : value;
    }
    return mapped as T['$inferSelect'];
  };
}

import { bigint, integer, type PgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import type { Sql } from 'postgres';

/** Request counters of the HTTP rate limits, shared by every instance of a process. */
export function rateLimitCountersTable(schema: PgSchema) {
  return schema.table(
    'rate_limit_counters',
    {
      key: text('key').notNull(),
      windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
      windowMs: integer('window_ms').notNull(),
      count: bigint('count', { mode: 'number' }).notNull(),
    },
    (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
  );
}

const SWEEP_EVERY_MS = 60_000;

/**
 * Fixed-window counters in PostgreSQL: one atomic upsert per request. The window is computed from
 * the database clock, so instances with skewed clocks still share windows.
 */
export function createPostgresWindowCounter(sql: Sql, schemaName: string) {
  const table = sql(`${schemaName}.rate_limit_counters`);
  let lastSweep = 0;
  return {
    increment: async (key: string, windowMs: number): Promise<{ count: number; resetAtMs: number }> => {
      const [row] = await sql<{ count: string; reset_at_ms: string }[]>`
        with w as (
          select to_timestamp(floor(extract(epoch from clock_timestamp()) * 1000 / ${windowMs}::integer) * ${windowMs}::integer / 1000.0) as start
        )
        insert into ${table} (key, window_start, window_ms, count)
        select ${key}, w.start, ${windowMs}::integer, 1 from w
        on conflict (key, window_start) do update set count = ${table}.count + 1
        returning count, (extract(epoch from window_start) * 1000 + window_ms)::bigint as reset_at_ms`;
      if (Date.now() - lastSweep > SWEEP_EVERY_MS) {
        lastSweep = Date.now();
        void sql`delete from ${table} where window_start < now() - interval '1 hour'`.catch(() => undefined);
      }
      return { count: Number(row?.count ?? 1), resetAtMs: Number(row?.reset_at_ms ?? Date.now() + windowMs) };
    },
  };
}

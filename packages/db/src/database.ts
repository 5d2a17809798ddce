import type { Logger } from '@holdfast/logging';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres, { type Sql } from 'postgres';

/** `Queryable`: the pool or a transaction (`sql.begin`), for repository functions that run in either. */
export type { ISql as Queryable, Sql, TransactionSql } from 'postgres';

export interface DatabaseOptions<TSchema extends Record<string, unknown>> {
  url: string;
  /** The one PostgreSQL schema this process owns; it is the connection's whole search_path. */
  schemaName: string;
  tables: TSchema;
  poolSize: number;
  applicationName: string;
  logger?: Logger;
}

export interface Database<TSchema extends Record<string, unknown>> {
  sql: Sql;
  db: PostgresJsDatabase<TSchema>;
  /** `select 1` within the caller's signal, for /health/ready. */
  ping: () => Promise<void>;
  close: () => Promise<void>;
}

/**
 * A pool bound to one schema. `search_path` holds only that schema, so an unqualified name can
 * never reach another process's tables.
 */
export function createDatabase<TSchema extends Record<string, unknown>>(options: DatabaseOptions<TSchema>): Database<TSchema> {
  const sql = postgres(options.url, {
    max: options.poolSize,
    connection: { application_name: options.applicationName, search_path: options.schemaName },
    onnotice: () => {},
    // Money columns are numeric: keep them as exact strings, never floats.
    types: { numeric: { to: 1700, from: [1700], serialize: (v: string | number) => String(v), parse: (v: string) => v } },
    // Reconnect within 2 s of PostgreSQL coming back (the driver's own back-off grows to 20 s).
    backoff: (attempt: number) => Math.min(0.1 * 2 ** attempt, 2),
    idle_timeout: 30,
    max_lifetime: 60 * 30,
  });
  const db = drizzle({ client: sql, schema: options.tables });
  return {
    sql,
    db,
    ping: async () => {
      await sql`select 1`;
    },
    close: async () => {
      await sql.end({ timeout: 5 });
    },
  };
}

/** `select 1` on a new connection, closed after: a pool would wait out its reconnect back-off instead. */
export async function pingOnce(url: string, applicationName: string): Promise<void> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {}, connection: { application_name: applicationName } });
  try {
    await sql`select 1`;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

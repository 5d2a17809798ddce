import type { Logger } from '@holdfast/logging';
import { sha256 } from '@holdfast/secrets';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';

/**
 * Where drizzle records applied migrations: one table per process in a schema of its own, kept out
 * of the process's schema (drizzle-kit fails with 42P06 when the two are the same).
 */
export const MIGRATIONS_SCHEMA = 'holdfast_migrations';

function lockKey(schemaName: string): bigint {
  return sha256(`holdfast:migrate:${schemaName}`, 'buffer').readBigInt64BE(0);
}

/**
 * Applies the committed drizzle-kit migrations of one process. An advisory lock serialises
 * instances that start together; the second finds nothing left to do.
 */
export async function runMigrations(options: {
  url: string;
  schemaName: string;
  migrationsFolder: string;
  logger?: Logger;
}): Promise<void> {
  const sql = postgres(options.url, { max: 1, onnotice: () => {} });
  try {
    const key = lockKey(options.schemaName);
    await sql`select pg_advisory_lock(${key.toString()}::bigint)`;
    try {
      await migrate(drizzle({ client: sql }), {
        migrationsFolder: options.migrationsFolder,
        migrationsSchema: MIGRATIONS_SCHEMA,
        migrationsTable: options.schemaName,
      });
    } finally {
      await sql`select pg_advisory_unlock(${key.toString()}::bigint)`;
    }
    options.logger?.info({ schema: options.schemaName }, 'migrations applied');
  } finally {
    await sql.end({ timeout: 5 });
  }
}

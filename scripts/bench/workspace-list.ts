// Workspace list benchmark: throughput and latency (p50, p99) of GET /api/v1/workspaces/{id}/customers
// (a page of 20 of a workspace's customers, bearer token of a signed-in user) on the built
// workspace-service, side by side with a bare Fastify route doing one postgres.js select of the same
// page from a table of the same shape and rows (bare-server.ts), loaded identically in the same run.
// Each server runs as its own process; the load is N closed loops of undici requests from this
// process. workspace-service gets a fresh database (migrated by its bundle/migrate.js), its own NATS
// subject prefix and rate limits far above the load, all removed afterwards. Also prints each
// server's CPU time per request (from /proc), the number to compare before and after a change on a
// busy machine. The two are measured in alternating rounds (rounds.ts: `--rounds`, 5 by default), the
// ratio per round, the verdict on the median.
//
//   pnpm exec turbo run build && node scripts/bench/workspace-list.ts [--rounds 5] [--requests 4000] [--warmup 500] [--customers 500] [--write [--force]]
//
// --write puts the results into docs/benchmarks.md (its workspace-list section; refused when the
// 1-minute load is above 1.5, unless --force); --keep keeps the
// bench database (its URL is printed). BENCH_WORKSPACE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"
// passes Node flags to the workspace-service process (to profile it). Needs PostgreSQL and NATS at
// DATABASE_URL and NATS_URL (./scripts/start's defaults otherwise).
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { request } from 'undici';
import { deletePrefixedStreams } from '../lib/stack/nats.ts';
import { portFor, waitFor } from '../lib/stack/ports.ts';
import {
  BARE_SERVER_APPLICATION,
  backendsOf,
  benchDatabase,
  benchServiceEnv,
  closedLoops,
  markdownTable,
  measured,
  migrateAndStart,
  REQUEST_RUN_HEADER,
  type Request,
  reportRequestBench,
  requestRunRow,
  serverVersions,
  startBareServer,
  stopChildren,
} from './load.ts';
import { benchmarksFile, databaseUrl, flag, natsUrl, nodeArgsFrom, numberOption, root } from './options.ts';
import { alternate, checkQuiet, loadNow, methodLine, ROUNDS, roundsVerdict, SPREAD_HEADER, spread, spreadCells } from './rounds.ts';

const REQUESTS = numberOption('requests', 4000);
const WARMUP = numberOption('warmup', 500);
const CUSTOMERS = numberOption('customers', 500);
const PAGE_SIZE = 20;
const IN_FLIGHT = [10, 50];
/** Issue 16: a Workspace API list at least half as fast as the bare select, at every load measured. */
const TARGET = 0.5;
const WRITE = flag('write');
const PASSWORD = `Bench-${randomBytes(9).toString('base64url')}1!`;

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function main(): Promise<void> {
  checkQuiet('bench', WRITE);
  const prefix = `bench${randomBytes(3).toString('hex')}.`;
  const database = await benchDatabase(databaseUrl);
  const benchDbUrl = database.url;
  let monitor: postgres.Sql | undefined;
  const children: ChildProcess[] = [];
  const startLoad = os.loadavg();
  try {
    // workspace-service, as ./scripts/start runs it: migrated by its own bundle/migrate.js, then bundle/main.js.
    const port = await portFor(0);
    const cwd = mkdtempSync(join(os.tmpdir(), 'holdfast-bench-'));
    const email = 'bench-admin@holdfast.local';
    const env = {
      ...benchServiceEnv(benchDbUrl, natsUrl, prefix),
      WORKSPACE_PORT: String(port),
      JWT_SECRET: randomBytes(32).toString('base64url'),
      WORKSPACE_BOOTSTRAP_EMAIL: email,
      WORKSPACE_BOOTSTRAP_PASSWORD: PASSWORD,
      WORKSPACE_STORAGE_DIR: join(cwd, 'storage'),
    };
    const workspace = await migrateAndStart(join(root, 'services/workspace-service'), {
      env,
      cwd,
      nodeArgs: nodeArgsFrom('BENCH_WORKSPACE_NODE_ARGS'),
      stdout: 'inherit',
    });
    children.push(workspace);
    const base = `http://127.0.0.1:${port}`;
    await waitFor('workspace-service', async () => (await request(`${base}/health`)).statusCode === 200, 60_000);

    // The bootstrap SUPER_ADMIN signs in and creates a workspace, through the API.
    const post = async (path: string, body: unknown, token?: string) => {
      const res = await request(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`${path}: ${res.statusCode} ${text}`);
      return JSON.parse(text) as { data: Record<string, unknown> };
    };
    const token = (await post('/identity/login', { email, password: PASSWORD })).data.accessToken as string;
    const workspaceId = (await post('/api/v1/workspaces', { name: 'Bench', email: 'bench@example.test' }, token)).data.id as string;

    // Its customers, written straight into the table (an API creation each would only slow the setup),
    // and the bare route's copy of them: same columns, indexes and rows, in the bench database.
    const bench = postgres(benchDbUrl, { max: 1, onnotice: () => {} });
    await bench`
      insert into workspace.customers (id, workspace_id, email, first_name, last_name, phone_number, city, country, status,
                                       email_verified, metadata, created_at, updated_at)
      select gen_random_uuid(), ${workspaceId}, 'customer-' || n || '@example.test', 'First' || n, 'Last' || n, '+4930' || n,
             'Berlin', 'DE', 'active', true, jsonb_build_object('tier', 'gold', 'n', n),
             now() - make_interval(secs => n), now() - make_interval(secs => n)
      from generate_series(1, ${CUSTOMERS}::int) as n`;
    await bench`create table bench_customers (like workspace.customers including all)`;
    await bench`insert into bench_customers select * from workspace.customers`;
    await bench`analyze`;
    await bench.end();
    const { child: bare, url: bareBase } = await startBareServer(benchDbUrl);
    // Reads which PostgreSQL backends serve each server, for their CPU per request.
    monitor = postgres(benchDbUrl, { max: 1, onnotice: () => {} });
    children.push(bare);

    // Identical requests to both: the bearer token and the page (the first page: the list as an admin opens it).
    const listRequest = (): Request => ({ method: 'GET', headers: { authorization: `Bearer ${token}` } });
    const listed = (status: number) => status === 200;
    const query = `?page=1&limit=${PAGE_SIZE}`;
    const workspaceUrl = `${base}/api/v1/workspaces/${workspaceId}/customers${query}`;
    const bareUrl = `${bareBase}/workspaces/${workspaceId}/customers${query}`;

    // Both answer the same page.
    const [ours, theirs] = await Promise.all(
      [workspaceUrl, bareUrl].map(async (url) => {
        const res = await request(url, { headers: listRequest().headers });
        return ((await res.body.json()) as { data: { email: string }[] }).data.map((c) => c.email);
      }),
    );
    if (JSON.stringify(ours) !== JSON.stringify(theirs) || ours?.length !== Math.min(PAGE_SIZE, CUSTOMERS)) {
      throw new Error(`the two routes answer different pages: ${JSON.stringify({ ours, theirs })}`);
    }

    const rows: string[][] = [];
    const ratioRows: string[][] = [];
    let failed = false;
    const measure = async (round: number, what: string, url: string, server: ChildProcess, inFlight: number) => {
      const r = await measured(
        server,
        () => closedLoops(url, REQUESTS, inFlight, listRequest, listed),
        backendsOf(monitor!, server === workspace ? 'workspace-service' : BARE_SERVER_APPLICATION),
      );
      const run = requestRunRow(round, what, inFlight, r);
      rows.push(run.row);
      if (r.errors > 0) failed = true;
      return run.perSecond;
    };

    // Warm-up, the same for both: connections, JIT, PostgreSQL caches.
    log('warming up…');
    await closedLoops(bareUrl, WARMUP, 10, listRequest, listed);
    await closedLoops(workspaceUrl, WARMUP, 10, listRequest, listed);

    // The list only reads: nothing of one run is left for the next to finish.
    const ratios = new Map<number, number[]>(IN_FLIGHT.map((n) => [n, []]));
    for (let round = 1; round <= ROUNDS; round += 1) {
      log(`round ${round} of ${ROUNDS} (load ${loadNow().toFixed(2)})`);
      for (const inFlight of IN_FLIGHT) {
        const [floor, listedPerSecond] = await alternate(
          round,
          () => measure(round, 'bare Fastify route, one postgres.js select', bareUrl, bare, inFlight),
          () => measure(round, 'workspace GET /api/v1/workspaces/{id}/customers', workspaceUrl, workspace, inFlight),
        );
        ratios.get(inFlight)!.push(listedPerSecond / floor);
      }
    }
    const spreads = IN_FLIGHT.map((inFlight) => ({ inFlight, s: spread(ratios.get(inFlight)!) }));
    for (const { inFlight, s } of spreads) {
      ratioRows.push(['workspace list / bare select', String(inFlight), ...spreadCells(s, '×', 2), `≥ ${TARGET}×`]);
    }
    // The target holds at every load: the verdict is on the lower of the two medians (its rounds' spread beside it).
    const lowest = spreads.reduce((a, b) => (b.s.median < a.s.median ? b : a));
    const verdicts = [
      roundsVerdict(`workspace list vs bare select at ${IN_FLIGHT.join(' and ')} in flight`, lowest.s, '≥', TARGET, '×', 2),
    ];

    report(rows, ratioRows, verdicts, await serverVersions(benchDbUrl, natsUrl), startLoad);
    if (failed) process.exitCode = 1;
  } finally {
    await monitor?.end();
    await stopChildren(children);
    await deletePrefixedStreams(natsUrl, prefix).catch(() => undefined);
    await database.drop(flag('keep'));
  }
}

function report(
  rows: string[][],
  ratioRows: string[][],
  verdicts: string[],
  software: { postgres: string; nats: string },
  startLoad: number[],
): void {
  reportRequestBench(
    {
      name: 'workspace-list',
      title: 'Workspace list',
      startLoad,
      software,
      command: `node scripts/bench/workspace-list.ts --rounds ${ROUNDS} --requests ${REQUESTS} --warmup ${WARMUP} --customers ${CUSTOMERS}`,
      setup: `the built workspace-service as its own process (\`APP_ENV=local\`, defaults but for \`RATE_LIMIT_*\` set far above the load: the limiter still counts every request; \`DATABASE_POOL_SIZE\` 10) on a fresh migrated database and its own NATS subject prefix, with one workspace of ${CUSTOMERS} customers; next to it, in a process of its own, a bare Fastify server whose one GET route does one postgres.js select of the same page (pool of 10) from \`bench_customers\`, a copy of \`workspace.customers\` (columns, indexes and rows) in the same database. Both get the same requests: \`GET …/workspaces/{id}/customers?page=1&limit=${PAGE_SIZE}\` with \`Authorization: Bearer\` (the access token of the bootstrap SUPER_ADMIN, signed in once). The load is N closed loops of undici requests from the bench process (each sends its next request when its answer is read); ${WARMUP} requests to each warm up first. Latency is from the start of a request to the end of its answer; any answer but 200 is an error. Server CPU per request is the process's user + system time over the run (\`/proc/<pid>/stat\`) divided by the requests, and system calls per request its reads and writes (\`/proc/<pid>/io\`, mostly one per socket read or write: its round trips): the numbers to compare before and after a change when the machine is not quiet. The list only reads, so no run leaves work behind for the next.`,
      method: methodLine('the bare select and the list at 10 and at 50 in flight, each pair'),
      table: markdownTable(REQUEST_RUN_HEADER, rows),
      ratioTable: markdownTable(['ratio', 'in flight', ...SPREAD_HEADER, 'target'], ratioRows),
      verdicts,
      difference:
        "What workspace-service does per list that the bare route does not: the request id, trace span and rate-limit counter of the HTTP kit; the access token's signature and claims; the user and session behind the token (kept per instance between requests, every change announced by PostgreSQL NOTIFY: docs/adr/0030-workspace-principal-cache.md); the route's role; in the one list query, the customers' wallets (a left join) and the list's `total` (a subquery) for the pagination (the workspace's existence is asked only when the page is empty); the answer's envelope (request id, pagination) serialized through its response schema.",
    },
    WRITE,
    benchmarksFile,
  );
}

await main();

// Create-transaction benchmark: throughput and latency (p50, p99) of POST /api/v2/transactions (bearer
// token, a unique Idempotency-Key per request) on the built payments-service, side by side with a bare
// Fastify route doing one postgres.js insert (bare-server.ts), loaded identically in the same run; plus
// the idempotent replay (the same key and body re-sent: `Idempotent-Replayed: true`), and GET
// /api/v2/transactions/{id} next to a bare route doing one indexed select. Each pair is measured in
// alternating rounds (rounds.ts: `--rounds`, 5 by default): it prints every run's row (with the server
// process's CPU time per request and the load as it began), a ratio row per target of issue 16 (the
// median of the rounds, their spread and each round's value) and one PASS/MISS line per target, on the
// median. Each server runs as its own process; the load is N closed loops of undici requests from this
// process. Payments gets a fresh database (migrated by its bundle/migrate.js), its own NATS subject
// prefix and rate limits far above the load, all removed afterwards.
//
//   pnpm exec turbo run build && node scripts/bench/create-transaction.ts [--rounds 5] [--requests 2000] [--replays 2000] [--reads 2000] [--warmup 300] [--history 10000] [--write [--force]]
//
// BENCH_PAYMENTS_NODE_ARGS (and BENCH_BARE_NODE_ARGS) pass Node flags to that server, e.g.
// "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it; BENCH_PAYMENTS_DIR measures another
// checkout's built payments-service (e.g. main before a change); BENCH_PAYMENTS_ENV adds settings
// to it as NAME=value words (e.g. "PAYMENTS_CREATION_GROUP_MAX=8"), to compare settings.
//
// Every request has its own sender (fromAddress): payments allows 10 creations per minute per sender.
// --write puts the results into docs/benchmarks.md (its create-transaction section; refused when the
// 1-minute load is above 1.5, unless --force); --keep keeps the
// bench database (its URL is printed). Needs PostgreSQL, NATS and Redis at DATABASE_URL, NATS_URL and
// REDIS_URL (./scripts/start's defaults otherwise).
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
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
  copyTables,
  type Measured,
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
import { benchmarksFile, databaseUrl, envFrom, flag, natsUrl, nodeArgsFrom, numberOption, root } from './options.ts';
import {
  alternate,
  checkQuiet,
  loadNow,
  methodLine,
  ROUNDS,
  type RoundsTarget,
  spread,
  targetsReport,
  vacuumBenchDatabase,
} from './rounds.ts';

/** The payments-service build to measure (BENCH_PAYMENTS_DIR: another checkout's, to compare two builds in one run). */
const paymentsDir = process.env.BENCH_PAYMENTS_DIR ?? join(root, 'services/payments-service');
const REQUESTS = numberOption('requests', 2000);
const REPLAYS = numberOption('replays', 2000);
const WARMUP = numberOption('warmup', 300);
/**
 * Creations made on each side (payments, the same-work route, the bare insert) before the first
 * round (`--history N`), so that round 1 runs on tables that hold a history, as a running system's
 * do, and on plans made for them (docs/perf/create-transaction-history.md).
 */
const HISTORY = numberOption('history', 10_000);
const READS = numberOption('reads', 2000);
const IN_FLIGHT = [10, 50];
const WRITE = flag('write');
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** A random EVM address (40 hex digits). */
const address = () => `0x${randomBytes(20).toString('hex')}`;

async function main(): Promise<void> {
  checkQuiet('bench', WRITE);
  const prefix = `bench${randomBytes(3).toString('hex')}.`;
  const database = await benchDatabase(databaseUrl);
  const benchDbUrl = database.url;
  const children: ChildProcess[] = [];
  const startLoad = os.loadavg();
  try {
    // payments-service, as ./scripts/start runs it: migrated by its own bundle/migrate.js, then bundle/main.js.
    const bootstrapKey = `hf_test_${randomBytes(32).toString('base64url')}`;
    const port = await portFor(0);
    const env = {
      ...benchServiceEnv(benchDbUrl, natsUrl, prefix),
      // As deployed: rate-limit counts added up in Redis (ADR 25).
      REDIS_URL: redisUrl,
      PAYMENTS_PORT: String(port),
      PAYMENTS_BOOTSTRAP_API_KEY: bootstrapKey,
      // Nothing here goes on chain (creation only writes the row and its event).
      CHAIN_RPC_URLS: 'base-sepolia=http://127.0.0.1:9',
      ...envFrom('BENCH_PAYMENTS_ENV'),
    };
    const cwd = mkdtempSync(join(os.tmpdir(), 'holdfast-bench-'));
    const payments = await migrateAndStart(paymentsDir, {
      env,
      cwd,
      nodeArgs: nodeArgsFrom('BENCH_PAYMENTS_NODE_ARGS'),
      stdout: 'inherit',
    });
    children.push(payments);
    const base = `http://127.0.0.1:${port}`;
    await waitFor('payments-service', async () => (await request(`${base}/health`)).statusCode === 200, 60_000);

    // A platform, an OAuth client with move:transactions, and a v2 access token, all through the API.
    const post = async (path: string, headers: Record<string, string>, body: unknown) => {
      const res = await request(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(`${path}: ${res.statusCode} ${text}`);
      return JSON.parse(text) as Record<string, unknown> & { data?: Record<string, unknown> };
    };
    const platform = await post(
      '/api/v1/auth/api-key',
      { 'x-api-key': bootstrapKey },
      { name: 'bench', scopes: ['read:transactions', 'write:transactions'] },
    );
    const client = await post(
      '/api/v1/oauth/clients',
      { 'x-api-key': bootstrapKey },
      { name: 'bench', scopes: ['read:transactions', 'move:transactions'], platformId: platform.platformId },
    );
    const token = (
      await post(
        '/api/v2/oauth/token',
        {},
        {
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
          scope: 'move:transactions read:transactions',
        },
      )
    ).data?.access_token as string;

    // The bare route: its table in the bench database, its server in a process of its own.
    const bench = postgres(benchDbUrl, { max: 1, onnotice: () => {} });
    await bench`create table bench_transactions (
      id uuid primary key default gen_random_uuid(),
      from_address text not null,
      to_address text not null,
      amount numeric(20, 6) not null,
      idempotency_key text,
      created_at timestamptz not null default now()
    )`;
    await sameWorkSchema(bench);
    await bench.end();
    const { child: bare, url: bareBase } = await startBareServer(benchDbUrl, {
      BENCH_SAME_WORK_PLATFORM: platform.platformId as string,
    });
    children.push(bare);

    // Identical requests to both: the bearer token, a unique Idempotency-Key, a new sender each time.
    const createRequest = (): Request => ({
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ fromAddress: address(), toAddress: address(), amount: '12.50' }),
    });
    const created = (status: number) => status === 201;
    const paymentsUrl = `${base}/api/v2/transactions`;
    const bareUrl = `${bareBase}/transactions`;
    const sameWorkUrl = `${bareBase}/same-work/transactions`;

    const rows: string[][] = [];
    let failed = false;
    /** Adds the run's row; answers its throughput (2xx per second) and p99 latency. */
    const row = (round: number, what: string, inFlight: number, r: Measured) => {
      const run = requestRunRow(round, what, inFlight, r);
      rows.push(run.row);
      if (r.errors > 0) failed = true;
      return run;
    };

    // Every creation leaves its `transaction.created` to payments' outbox relay, which publishes it
    // after the answer, in the same process. A run that started while the relay still drained the
    // previous run's events would share payments' CPU with it (and the bare route the machine's), so
    // each run of creations ends when the outbox is empty: its CPU per request includes publishing.
    const outbox = postgres(benchDbUrl, { max: 1, onnotice: () => {} });
    const paymentsBackends = backendsOf(outbox, 'payments-service');
    const bareBackends = backendsOf(outbox, BARE_SERVER_APPLICATION);
    const drained = async () => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const [left] = await outbox<{ n: number }[]>`select count(*)::int as n from payments.outbox where published_at is null`;
        if (left?.n === 0) return;
        if (Date.now() > deadline) throw new Error(`the outbox relay left ${left?.n} events unpublished after 60 s`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const creations = (total: number, inFlight: number) => async () => {
      const result = await closedLoops(paymentsUrl, total, inFlight, createRequest, created);
      await drained();
      return result;
    };

    // The history first, then the statistics of its tables. A backend keeps the plan of a foreign
    // key's check from its first use: made on an empty table, it was a sequential scan, and the
    // check of each creation's transition then read the whole transactions table for the rest of
    // round 1 (this machine's PostgreSQL runs without autovacuum, whose analyze would replan it).
    log(`a history of ${HISTORY} creations on each side…`);
    await closedLoops(sameWorkUrl, HISTORY, IN_FLIGHT[1]!, createRequest, created);
    await closedLoops(bareUrl, HISTORY, IN_FLIGHT[1]!, createRequest, created);
    await creations(HISTORY, IN_FLIGHT[1]!)();
    await vacuumBenchDatabase(outbox);

    // Warm-up, the same for both: connections, JIT, PostgreSQL caches, the token in payments'
    // credential cache; then payments' replay (its path is not the creation's: cold, the first
    // round's replay paid its JIT compilation) and reads of the rows each side made.
    log('warming up…');
    await closedLoops(bareUrl, WARMUP, IN_FLIGHT[0]!, createRequest, created);
    await creations(WARMUP, IN_FLIGHT[0]!)();
    const replayed = (status: number, headers: Record<string, string | string[] | undefined>) =>
      status === 201 && headers['idempotent-replayed'] === 'true';
    const warmKey = createRequest();
    await closedLoops(paymentsUrl, 1, 1, () => warmKey, created);
    await closedLoops(paymentsUrl, WARMUP, IN_FLIGHT[0]!, () => warmKey, replayed);
    const found = (status: number) => status === 200;
    /** GETs cycling through 1000 of the side's rows, drawn afresh each round. */
    const reader = async (table: 'payments.transactions' | 'bench_transactions') => {
      const ids = (await outbox.unsafe<{ id: string }[]>(`select id from ${table} order by random() limit 1000`)).map((r) => r.id);
      let i = 0;
      return (): Request => ({ method: 'GET', path: `/${ids[i++ % ids.length]}`, headers: { authorization: `Bearer ${token}` } });
    };
    await closedLoops(bareUrl, WARMUP, IN_FLIGHT[0]!, await reader('bench_transactions'), found);
    await closedLoops(paymentsUrl, WARMUP, IN_FLIGHT[0]!, await reader('payments.transactions'), found);

    /** Each target's value per round. */
    const perRound = {
      create10: [] as number[],
      create50: [] as number[],
      sameWork10: [] as number[],
      sameWork50: [] as number[],
      /** Payments' CPU plus its PostgreSQL backends' per creation at 10 in flight (ms). */
      cpuPerCreation: [] as number[],
      p99At10: [] as number[],
      replay: [] as number[],
      read: [] as number[],
    };
    const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
    const bareInsert = (round: number, inFlight: number) => async () =>
      row(
        round,
        'bare Fastify route, one postgres.js insert',
        inFlight,
        await measured(bare, () => closedLoops(bareUrl, REQUESTS, inFlight, createRequest, created), bareBackends),
      );
    /** The same-work route: payments' own creation statement, alone in a bare Fastify route (bare-server.ts). */
    const sameWork = (round: number, inFlight: number) => async () =>
      row(
        round,
        "same-work Fastify route, payments' creation statement",
        inFlight,
        await measured(bare, () => closedLoops(sameWorkUrl, REQUESTS, inFlight, createRequest, created), bareBackends),
      );
    await closedLoops(sameWorkUrl, WARMUP, IN_FLIGHT[0]!, createRequest, created);
    for (let round = 1; round <= ROUNDS; round += 1) {
      log(`round ${round} of ${ROUNDS} (load ${loadNow().toFixed(2)})`);
      await vacuumBenchDatabase(outbox);
      for (const inFlight of IN_FLIGHT) {
        // The baselines (the same-work route, then the one-row insert) against payments' creation.
        const [[sameWorkRun, bareRun], paymentsRun] = await alternate(
          round,
          async () => [await sameWork(round, inFlight)(), await bareInsert(round, inFlight)()] as const,
          async () =>
            row(
              round,
              'payments POST /api/v2/transactions',
              inFlight,
              await measured(payments, creations(REQUESTS, inFlight), paymentsBackends),
            ),
        );
        const at10 = inFlight === IN_FLIGHT[0];
        (at10 ? perRound.create10 : perRound.create50).push(ratio(paymentsRun.perSecond, bareRun.perSecond));
        (at10 ? perRound.sameWork10 : perRound.sameWork50).push(ratio(paymentsRun.perSecond, sameWorkRun.perSecond));
        if (at10) {
          perRound.p99At10.push(paymentsRun.p99);
          perRound.cpuPerCreation.push(paymentsRun.cpuMs);
        }
      }
      // The replay: a key of this round, created once, then re-sent with the same body; against a
      // bare insert run of its own beside it.
      const original = createRequest();
      const first = await request(paymentsUrl, { method: 'POST', headers: original.headers, body: original.body });
      await first.body.dump();
      if (first.statusCode !== 201) throw new Error(`replay original: ${first.statusCode}`);
      await drained();
      const [replayBare, replay] = await alternate(round, bareInsert(round, IN_FLIGHT[0]!), async () =>
        row(
          round,
          'payments, the same Idempotency-Key re-sent (replay)',
          IN_FLIGHT[0]!,
          await measured(payments, () => closedLoops(paymentsUrl, REPLAYS, IN_FLIGHT[0]!, () => original, replayed), paymentsBackends),
        ),
      );
      perRound.replay.push(ratio(replay.perSecond, replayBare.perSecond));
      // Reads: one stored row by id each.
      const bareReader = await reader('bench_transactions');
      const paymentsReader = await reader('payments.transactions');
      const [bareRead, paymentsRead] = await alternate(
        round,
        async () =>
          row(
            round,
            'bare Fastify route, one indexed select (GET by id)',
            IN_FLIGHT[0]!,
            await measured(bare, () => closedLoops(bareUrl, READS, IN_FLIGHT[0]!, bareReader, found), bareBackends),
          ),
        async () =>
          row(
            round,
            'payments GET /api/v2/transactions/{id}',
            IN_FLIGHT[0]!,
            await measured(payments, () => closedLoops(paymentsUrl, READS, IN_FLIGHT[0]!, paymentsReader, found), paymentsBackends),
          ),
      );
      perRound.read.push(ratio(paymentsRead.perSecond, bareRead.perSecond));
    }

    // The targets (issue 16), each on the median of the rounds.
    const ratioTarget = (what: string, values: number[], target: number, info = false): RoundsTarget => ({
      what,
      value: spread(values),
      unit: '×',
      op: '≥',
      target,
      decimals: 2,
      info,
    });
    const targets: RoundsTarget[] = [
      // Issue 34's targets: against the same work, and the CPU a creation costs.
      ratioTarget(`create vs same-work route at ${IN_FLIGHT[0]} in flight`, perRound.sameWork10, 0.8),
      ratioTarget(`create vs same-work route at ${IN_FLIGHT[1]} in flight`, perRound.sameWork50, 0.8),
      {
        what: `CPU per creation (payments and its PostgreSQL backends) at ${IN_FLIGHT[0]} in flight`,
        value: spread(perRound.cpuPerCreation),
        unit: ' ms',
        op: '≤',
        target: 0.45,
        decimals: 2,
      },
      {
        what: `create p99 latency at ${IN_FLIGHT[0]} in flight`,
        value: spread(perRound.p99At10),
        unit: ' ms',
        op: '≤',
        target: 25,
        decimals: 1,
      },
      ratioTarget(`GET by id vs bare indexed select at ${IN_FLIGHT[0]} in flight`, perRound.read, 0.75),
      // Issue 16's ratios against a one-row insert, kept as information (issue 34).
      ratioTarget(`create vs bare insert at ${IN_FLIGHT[0]} in flight`, perRound.create10, 0.6, true),
      ratioTarget(`create vs bare insert at ${IN_FLIGHT[1]} in flight`, perRound.create50, 0.6, true),
      ratioTarget(`idempotent replay vs bare insert at ${IN_FLIGHT[0]} in flight`, perRound.replay, 0.9, true),
    ];

    const [stored] = await outbox<{ n: number }[]>`select count(*)::int as n from payments.transactions`;
    const [sameWorkStored] = await outbox<{ n: number }[]>`select count(*)::int as n from bench_same_work.transactions`;
    // Every creation answered 201 is a row: the history's, the warm-up's and the rounds'.
    const sameWorkExpected = HISTORY + WARMUP + ROUNDS * REQUESTS * IN_FLIGHT.length;
    if (sameWorkStored?.n !== sameWorkExpected) {
      failed = true;
      log(`the same-work route's table holds ${sameWorkStored?.n} rows, expected ${sameWorkExpected}`);
    }
    await outbox.end();
    const expected = HISTORY + WARMUP + 1 + ROUNDS * (REQUESTS * IN_FLIGHT.length + 1);
    if (stored?.n !== expected) {
      failed = true;
      log(`payments.transactions holds ${stored?.n} rows, expected ${expected}`);
    }
    report(rows, targets, await serverVersions(benchDbUrl, natsUrl), startLoad);
    if (failed) process.exitCode = 1;
  } finally {
    await stopChildren(children);
    await deletePrefixedStreams(natsUrl, prefix).catch(() => undefined);
    await database.drop(flag('keep'));
  }
}

/**
 * The same-work route's tables (bare-server.ts): a copy of the three tables payments' creation
 * statement writes, so that it does the same work as in payments while payments' outbox relay never
 * sees its events (load.ts's copyTables).
 */
const sameWorkSchema = (sql: postgres.Sql) =>
  copyTables(sql, 'payments', ['transactions', 'transaction_transitions', 'outbox'], 'bench_same_work');

function report(rows: string[][], targets: RoundsTarget[], software: { postgres: string; nats: string }, startLoad: number[]): void {
  const command = `node scripts/bench/create-transaction.ts --rounds ${ROUNDS} --requests ${REQUESTS} --replays ${REPLAYS} --reads ${READS} --warmup ${WARMUP}`;
  const table = markdownTable(REQUEST_RUN_HEADER, rows);
  const { verdicts, table: ratioTable } = targetsReport(targets);
  reportRequestBench(
    {
      name: 'create-transaction',
      title: 'Create transaction',
      startLoad,
      software,
      command,
      setup: `the built payments-service as its own process (\`APP_ENV=local\`, defaults but for \`RATE_LIMIT_*\` set far above the load: the limiter still counts every request, in memory, added up in Redis at \`REDIS_URL\`; \`DATABASE_POOL_SIZE\` 10) on a fresh migrated database and its own NATS subject prefix; next to it, in a process of its own, a bare Fastify server whose one POST route does one postgres.js insert (pool of 10) into a five-column table of the same database, and whose GET route reads one of its rows by primary key; and, in the same server, the same-work route (issue 34's baseline): payments' own creation statement (\`repository.createSingle\` imported from payments' build, the SQL text itself: the idempotency key's check, the duplicate and per-sender windows, the sender's advisory lock, the row with its \`sender_seq\`, its transition and its \`transaction.created\` outbox row, in one statement, run again on a lost race) with the event built by payments' \`transactionEvent\`, on a copy of the three tables it writes (same columns, defaults, indexes, constraints and foreign keys, in a schema of its own, so that payments' relay does not publish its events), pool of 10, answering the row as JSON. Each baseline run does the same-work route first, then the one-row insert. All get the same requests: \`Authorization: Bearer\` (a v2 token with \`move:transactions\`), a unique \`Idempotency-Key\`, and a body with a new \`fromAddress\` each time (payments allows 10 creations per minute per sender). The load is N closed loops of undici requests from the bench process (each sends its next request when its answer is read); a history of ${HISTORY} creations on each side (at 50 in flight) and \`vacuum analyze\` first, so that round 1 meets tables that hold rows and plans made for them, as a running system's; then ${WARMUP} creations and ${WARMUP} reads to each warm up (and ${WARMUP} replays of a key to payments). Latency is from the start of a request to the end of its answer. Any answer but 201 (for the replay: 201 with \`Idempotent-Replayed: true\`; for reads: 200, cycling through 1000 stored rows of the side's own table, drawn afresh each round) is an error. Fair state between runs: a run of payments' creations ends only when its outbox relay has published every event of the run (before, the relay was still publishing the previous run's events during the next run, the replay's or the bare route's, on the same 2 cores), so its CPU per request includes publishing; each round's replay re-sends a key of its own, against a bare insert run of its own beside it; both tables grow each round (payments' by its two creation runs, the bare table by three: the replay's baseline inserts too), the order of each pair alternating so that neither always meets the larger table; both stay in PostgreSQL's memory. Each round starts with \`vacuum analyze\` of the database, as autovacuum keeps a production one (this machine's PostgreSQL runs with autovacuum off: without it the outbox's dead row versions and the planner's empty-table statistics made each round slower than the last, payments' creations 1180/s in a second round with it and 432/s without, at the same load).`,
      method: methodLine(
        "the baselines (the same-work route, then the bare insert) and payments' creation at 10 and at 50 in flight, a bare insert and the replay, the bare select and payments' GET by id, each pair",
      ),
      table,
      ratioTable,
      verdicts,
      difference:
        "What payments does per creation that the same-work route does not: everything around the statement (auth, rate limit, validation and fingerprint, the key's pre-lookup, group commit, the answer's schema, the relay publishing the event afterwards). " +
        "What payments does per creation that the bare route does not: the bearer token is hashed and looked up (in its credential cache after the first request, with the platform's billing settings); the rate limiter counts it in memory (added up in Redis every 100 ms, ADR 25); the body is validated against its schema and fingerprinted (SHA-256 of the canonical parameters); the idempotency key is looked up (one indexed read); then one statement, its own PostgreSQL transaction (ADR 32), reads the idempotency key, the duplicate window and the per-sender window (10 a minute) and writes the row (with its sender's next `sender_seq`), its creation transition row and its `transaction.created` outbox event, under the sender's advisory lock; the controls gate (no template here: nothing to run) is asked; the answer is serialized through its response schema. The creation then wakes the outbox relay, which publishes the waiting events to JetStream (at most one pass every 5 ms), in the same process, concurrently with the load (and after it, until the outbox is empty: part of the run's CPU). A replay stops after the key's lookup: auth, rate limit, one indexed read, the answer (the statement checks the key again, for two first uses at once). A read: auth, rate limit, one indexed read, the answer. The server CPU column is the server process's user + system CPU time over its run divided by the requests, the syscalls column its read and write system calls (socket reads and writes: round trips) per request, both from /proc.",
    },
    WRITE,
    benchmarksFile,
  );
}

await main();

// Backfill against a real peer (issue 34, ADR 63): our chain-indexer and Ponder 1.x read the same
// escrow history (escrow-history.ts: 2,000 single escrows and 40 batches of 50 legs, 4,040 events by
// default) from the same anvil, each on a fresh database, timed from the process start to its last
// row written, migrations included:
//
// - the indexer: from the spawn of its bundle/migrate.js (then bundle/main.js, as ./scripts/start runs
//   them) to its events table holding every event (each row written, with its range's cursor,
//   after JetStream acknowledged the event), polled every 20 ms;
// - Ponder: from the spawn of `ponder start` (its build, its migrations, its historical sync) to the
//   moment its tables (ponder-project/ponder.schema.ts: one row per EscrowCreated and per
//   BatchCreated) hold every event, polled every 20 ms; tuned (`maxRequestsPerSecond` raised, so
//   that its own request-rate limit is not what it waits for) and with its defaults.
//
// In alternating rounds (rounds.ts: `--rounds`, 5 by default), the verdict on the median of the rounds'
// ratios (Ponder tuned's time over the indexer's). Ponder is no dependency of the workspace: on first
// use this script copies ponder-project/ into scripts/bench/.ponder (ignored by git) and installs it
// there with npm; `--smoke` (all.ts) skips the run when it is not installed yet.
//
//   pnpm exec turbo run build && node scripts/bench/ponder.ts [--rounds 5] [--singles 2000] [--per-block 5] [--batches 40] [--legs 50] [--max-rps 10000] [--write]
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { holdfastEscrowAbi } from '@holdfast/contracts/escrow';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import postgres from 'postgres';
import { ensureChain, LOCAL_CHAIN_ID } from '../lib/stack/chain.ts';
import { deletePrefixedStreams } from '../lib/stack/nats.ts';
import { portFor } from '../lib/stack/ports.ts';
import { productionEntry, SERVICE_NODE_FLAGS, serviceAt, serviceEnvOf, setUpNats, stopProcess } from '../lib/stack/processes.ts';
import { historyEvents, mineEscrowHistory } from './escrow-history.ts';
import { benchDatabase, benchServiceEnv, machineLine, markdownTable, processCpuMs, writeBenchSection } from './load.ts';
import { benchmarksFile, databaseUrl, flag, natsUrl, nodeArgsFrom, numberOption, root } from './options.ts';
import { alternate, checkQuiet, loadNow, ROUNDS, ROUNDS_TEXT, type RoundsTarget, spread, targetsReport } from './rounds.ts';

const SINGLES = numberOption('singles', 2000);
const PER_BLOCK = numberOption('per-block', 5);
const BATCHES = numberOption('batches', 40);
const LEGS = numberOption('legs', 50);
/** Ponder tuned: its request-rate limit (`maxRequestsPerSecond`, default 50) raised to this. */
const MAX_RPS = numberOption('max-rps', 10_000);
const WRITE = flag('write');
const SMOKE = flag('smoke');
/** Only the indexer's runs (to profile it: BENCH_INDEXER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"); no verdict. */
const INDEXER_ONLY = flag('indexer-only');
/** Issue 34: the indexer's backfill at least 3 times as fast as Ponder tuned. */
const TARGET = 3;
/** A run that has not written every event by then failed. */
const RUN_TIMEOUT_MS = 180_000;

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

const projectSource = join(root, 'scripts/bench/ponder-project');
/** Where Ponder is installed (ignored by git): the project and its node_modules. */
const projectDir = join(root, 'scripts/bench/.ponder');
const pinnedVersion = (JSON.parse(readFileSync(join(projectSource, 'package.json'), 'utf8')) as { dependencies: { ponder: string } })
  .dependencies.ponder;
const ponderBin = join(projectDir, 'node_modules/ponder/dist/esm/bin/ponder.js');

/** Whether the pinned Ponder is installed in scripts/bench/.ponder. */
export function ponderInstalled(): boolean {
  const manifest = join(projectDir, 'node_modules/ponder/package.json');
  return existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version === pinnedVersion;
}

/** Copies the project (and the escrow contract's ABI) into scripts/bench/.ponder and installs Ponder there if needed. */
function preparePonder(): void {
  mkdirSync(projectDir, { recursive: true });
  cpSync(projectSource, projectDir, { recursive: true });
  writeFileSync(
    join(projectDir, 'abi.ts'),
    `// Written by scripts/bench/ponder.ts from @holdfast/contracts/escrow.\nexport const holdfastEscrowAbi = ${JSON.stringify(holdfastEscrowAbi)} as const;\n`,
  );
  if (ponderInstalled()) return;
  log(`installing ponder ${pinnedVersion} into ${projectDir} (first use)…`);
  const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel', 'error'], { cwd: projectDir, stdio: 'inherit' });
  if (npm.status !== 0 || !ponderInstalled()) throw new Error(`npm install of ponder ${pinnedVersion} failed (exit ${npm.status})`);
}

interface Backfill {
  seconds: number;
  /** The process's CPU time over the run (ms). */
  cpuMs: number;
  /** The indexer's: its migrate process, spawn to exit. */
  migrateSeconds?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  checkQuiet('bench', WRITE);
  if (!ponderInstalled() && SMOKE) {
    log(`ponder ${pinnedVersion} is not installed in ${projectDir}: skipped (run node scripts/bench/ponder.ts once to install it)`);
    return;
  }
  preparePonder();
  const startLoad = os.loadavg();
  const chain = await ensureChain(root, undefined, { ephemeral: true });
  const rpcUrl = chain.localRpcUrl!;
  const nc = await connect({ servers: natsUrl.split(','), name: 'holdfast-bench' });
  try {
    const options = { singles: SINGLES, perBlock: PER_BLOCK, batches: BATCHES, legs: LEGS };
    const { escrow, blocks } = await mineEscrowHistory(rpcUrl, options);
    const events = historyEvents(options);
    const jsm = await jetstreamManager(nc);

    /** The indexer on a fresh database and subject prefix: migrate + main spawned to its last event on the CHAIN stream. */
    const indexerBackfill = async (): Promise<Backfill> => {
      const database = await benchDatabase(databaseUrl);
      const prefix = `bench${randomBytes(3).toString('hex')}.`;
      const env = {
        ...benchServiceEnv(database.url, natsUrl, prefix),
        CHAIN_RPC_URLS: `base-sepolia=${rpcUrl}`,
        ESCROW_CONTRACTS: `base-sepolia=${escrow.address}@${escrow.blockNumber}`,
        INDEXER_PORT: String(await portFor(0)),
      };
      const cwd = mkdtempSync(join(os.tmpdir(), 'holdfast-bench-'));
      const service = join(root, 'services/chain-indexer');
      const sql = postgres(database.url, { max: 1, onnotice: () => {} });
      let indexer: ChildProcess | undefined;
      try {
        // The streams exist before any process starts, as ./scripts/start makes them.
        await setUpNats(root, env);
        const stream = `${prefix}CHAIN`.replaceAll('.', '_');
        const started = Date.now();
        const migrate = spawn(process.execPath, [productionEntry(service, 'migrate')], { env, cwd, stdio: 'inherit' });
        await new Promise<void>((resolve, reject) =>
          migrate.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`migrate exited ${code}`)))),
        );
        indexer = spawn(
          process.execPath,
          [...SERVICE_NODE_FLAGS, ...nodeArgsFrom('BENCH_INDEXER_NODE_ARGS'), productionEntry(service, 'main')],
          {
            env: { ...serviceEnvOf(serviceAt(service)), ...env },
            cwd,
            stdio: ['ignore', 'inherit', 'inherit'],
          },
        );
        const migrated = Date.now();
        // Its rows: each event is written to its events table with the range's cursor, after
        // JetStream acknowledged it (polled as Ponder's tables are).
        for (;;) {
          const [written] = await sql<{ n: number }[]>`select count(*)::int as n from indexer.events`;
          if ((written?.n ?? 0) >= events) break;
          if (Date.now() - started > RUN_TIMEOUT_MS) throw new Error(`the indexer wrote ${written?.n} of ${events} events`);
          await sleep(20);
        }
        const seconds = (Date.now() - started) / 1000;
        const cpuMs = processCpuMs(indexer.pid) ?? Number.NaN;
        const published = (await jsm.streams.info(stream)).state.messages;
        if (published < events) throw new Error(`the indexer wrote ${events} events but published ${published}`);
        return { seconds, cpuMs, migrateSeconds: (migrated - started) / 1000 };
      } finally {
        if (indexer) await stopProcess(indexer);
        await sql.end();
        await deletePrefixedStreams(natsUrl, prefix).catch(() => undefined);
        await database.drop(false);
      }
    };

    /** Ponder on a fresh database: `ponder start` spawned to its tables holding every event. */
    const ponderBackfill = async (maxRps: number | undefined): Promise<Backfill> => {
      const database = await benchDatabase(databaseUrl);
      const sql = postgres(database.url, { max: 1, onnotice: () => {} });
      let ponder: ChildProcess | undefined;
      try {
        const port = await portFor(0);
        const started = Date.now();
        ponder = spawn(
          process.execPath,
          [ponderBin, 'start', '--schema', 'bench', '--hostname', '127.0.0.1', '--port', String(port), '--log-level', 'warn'],
          {
            cwd: projectDir,
            env: {
              PATH: process.env.PATH ?? '',
              DATABASE_URL: database.url,
              PONDER_RPC_URL: rpcUrl,
              PONDER_CHAIN_ID: String(LOCAL_CHAIN_ID),
              ESCROW_ADDRESS: escrow.address,
              ESCROW_START_BLOCK: String(escrow.blockNumber),
              PONDER_TELEMETRY_DISABLED: 'true',
              ...(maxRps === undefined ? {} : { PONDER_MAX_RPS: String(maxRps) }),
            },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        // Its log (on stdout), the end of it kept for the error of a run that fails; its stderr passed
        // on but for the line its HTTP server (@hono/node-server) prints on every start under Node 24.
        let output = '';
        ponder.stdout!.on('data', (chunk: Buffer) => {
          output = (output + chunk.toString()).slice(-4000);
        });
        ponder.stderr!.on('data', (chunk: Buffer) => {
          const text = chunk
            .toString()
            .split('\n')
            .filter((line) => line !== 'Failed to find Response internal state key')
            .join('\n');
          if (text.trim()) process.stderr.write(text);
        });
        const exited = new Promise<never>((_, reject) =>
          ponder!.once('exit', (code) => reject(new Error(`ponder exited ${code}:\n${output}`))),
        );
        exited.catch(() => undefined);
        for (;;) {
          const written = await Promise.race([
            sql<{ n: number }[]>`select ((select count(*) from bench.escrow) + (select count(*) from bench.batch))::int as n`.then(
              ([r]) => r?.n ?? 0,
              () => 0,
            ),
            exited,
          ]);
          if (written >= events) break;
          if (Date.now() - started > RUN_TIMEOUT_MS) throw new Error(`ponder wrote ${written} of ${events} rows`);
          await sleep(20);
        }
        const seconds = (Date.now() - started) / 1000;
        return { seconds, cpuMs: processCpuMs(ponder.pid) ?? Number.NaN };
      } finally {
        if (ponder) await stopProcess(ponder);
        await sql.end();
        await database.drop(false);
      }
    };

    if (INDEXER_ONLY) {
      for (let round = 1; round <= ROUNDS; round += 1) {
        const b = await indexerBackfill();
        log(`indexer: ${events} events in ${b.seconds.toFixed(2)} s (${JSON.stringify(b)})`);
      }
      return;
    }
    // Warm-up: the OS's file cache for both (Ponder's build reads its sources and node_modules).
    log('warming up (one run of each, not counted)…');
    await indexerBackfill();
    await ponderBackfill(MAX_RPS);

    const rows: string[][] = [];
    const row = (round: number, what: string, b: Backfill, load: number) => {
      rows.push([
        String(round),
        what,
        String(events),
        b.seconds.toFixed(2),
        Math.round(events / b.seconds).toString(),
        (b.cpuMs / 1000).toFixed(2),
        b.migrateSeconds === undefined ? '' : b.migrateSeconds.toFixed(2),
        load.toFixed(2),
      ]);
      log(rows.at(-1)!.join(' | '));
      return b;
    };
    const tuned: number[] = [];
    const defaults: number[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      log(`round ${round} of ${ROUNDS} (load ${loadNow().toFixed(2)})`);
      const [[ponderTuned, ponderDefaults], indexer] = await alternate(
        round,
        async () =>
          [
            row(round, `Ponder ${pinnedVersion}, tuned (maxRequestsPerSecond ${MAX_RPS})`, await ponderBackfill(MAX_RPS), loadNow()),
            row(round, `Ponder ${pinnedVersion}, defaults (maxRequestsPerSecond 50)`, await ponderBackfill(undefined), loadNow()),
          ] as const,
        async () => row(round, 'chain-indexer', await indexerBackfill(), loadNow()),
      );
      tuned.push(ponderTuned.seconds / indexer.seconds);
      defaults.push(ponderDefaults.seconds / indexer.seconds);
    }
    const targets: RoundsTarget[] = [
      {
        what: `indexer backfill vs Ponder tuned (${events} escrow events, process start to last row written, migrations included)`,
        value: spread(tuned),
        unit: '×',
        op: '≥',
        target: TARGET,
        decimals: 2,
      },
      {
        what: 'indexer backfill vs Ponder with its defaults',
        value: spread(defaults),
        unit: '×',
        op: '≥',
        target: TARGET,
        decimals: 2,
        info: true,
      },
    ];
    const { verdicts, table: ratioTable } = targetsReport(targets);
    const command = `node scripts/bench/ponder.ts --rounds ${ROUNDS} --singles ${SINGLES} --per-block ${PER_BLOCK} --batches ${BATCHES} --legs ${LEGS} --max-rps ${MAX_RPS}`;
    const section = [
      '<!-- ponder:start -->',
      '## Backfill against Ponder',
      '',
      `- **date**: ${new Date().toISOString().slice(0, 10)}`,
      `- **machine**: ${machineLine(startLoad)}`,
      `- **software**: Node ${process.versions.node}, Ponder ${pinnedVersion} (npm, in scripts/bench/.ponder), anvil`,
      `- **command**: \`pnpm exec turbo run build && ${command}\``,
      `- **setup**: one throw-away anvil holding ${events} escrow events (${SINGLES} single escrows, ${PER_BLOCK} a block; ${BATCHES} batches of ${LEGS} legs, each with its \`BatchCreated\`, one a block) in ${blocks} blocks; each run on a fresh database of the shared PostgreSQL, timed from its process's spawn to its last row written, migrations included. The indexer: \`bundle/migrate.js\` then \`bundle/main.js\` with their production flags and defaults, its rows those of its events table (each written with its range's cursor after JetStream acknowledged it), polled every 20 ms. Ponder: \`ponder start\` (its build of the project, its migrations, its historical sync and indexing functions, ponder-project/), each \`EscrowCreated\` and \`BatchCreated\` one row of its tables, polled every 20 ms until they hold all; tuned with \`maxRequestsPerSecond\` ${MAX_RPS} (its default, 50, is the second row). One run of each before the rounds warms the file cache.`,
      `- **method**: ${ROUNDS_TEXT}: in each, the two Ponder runs and the indexer's, back to back, Ponder first in odd rounds; the ratio (Ponder's time over the indexer's) per round, the verdict on the median of the rounds. The CPU column is the process's user + system time over its run (the indexer's migrate process not included; Ponder's PostgreSQL work is not in it either).`,
      '',
      markdownTable(['round', 'run', 'events', 'seconds, start to last row', 'events/s', 'process CPU (s)', 'load (1 min) at start'], rows),
      '',
      ratioTable,
      '',
      '```',
      ...verdicts,
      '```',
      '<!-- ponder:end -->',
    ].join('\n');
    writeBenchSection('ponder', section, verdicts, WRITE, benchmarksFile);
  } finally {
    await nc.close();
    await chain.started?.stop();
  }
}

await main();

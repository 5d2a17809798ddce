// chain-indexer benchmark: backfill speed (escrow events per second, read from anvil and acknowledged
// by JetStream) and head lag (a transaction mined on anvil -> its escrow.created on the CHAIN stream,
// p50 and p99). Runs the built indexer (services/chain-indexer/bundle/main.js) as a real process against a
// throw-away anvil, a fresh database and its own NATS subject prefix, all removed afterwards.
//
//   pnpm exec turbo run build && node scripts/bench/chain-indexer.ts [--singles 2000] [--per-block 5] [--batches 40] [--legs 50] [--lag 200] [--write]
//
// The head lag's baseline in the same run is a bare `eth_subscribe newHeads` client on the same anvil
// (mined -> its head announced); the indexer's CPU time per transaction comes from /proc. Ends with
// one PASS/MISS line: the indexer's part against issue 16's whole budget (p99 ≤ 250 ms).
// --write puts the results into docs/benchmarks.md (its chain-indexer section). Needs PostgreSQL and NATS
// at DATABASE_URL and NATS_URL (./scripts/start's defaults otherwise).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { ensureChain } from '../lib/stack/chain.ts';
import { deletePrefixedStreams } from '../lib/stack/nats.ts';
import { portFor, waitFor } from '../lib/stack/ports.ts';
import { productionEntry, SERVICE_NODE_FLAGS, serviceAt, serviceEnvOf, setUpNats } from '../lib/stack/processes.ts';
import { mineEscrowHistory } from './escrow-history.ts';
import { bareHeadSubscriber, HEAD_LAG_TARGET_MS, headLagTargetRow, headLagVerdict, writeHeadLagSection } from './head-lag.ts';
import { benchDatabase, benchServiceEnv, percentile, processCpuMs, stopChildren } from './load.ts';
import { databaseUrl, flag, natsUrl, numberOption, root } from './options.ts';
import { checkQuiet } from './rounds.ts';

const SINGLES = numberOption('singles', 2000);
const BATCHES = numberOption('batches', 40);
const LEGS = numberOption('legs', 50);
const LAG_SAMPLES = numberOption('lag', 200);
const PER_BLOCK = numberOption('per-block', 5);
const WRITE = flag('write');

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

async function main(): Promise<void> {
  checkQuiet('bench', WRITE);
  const chain = await ensureChain(root, undefined, { ephemeral: true });
  const rpcUrl = chain.localRpcUrl!;
  const startLoad = os.loadavg();
  const database = await benchDatabase(databaseUrl);
  const prefix = `bench${randomBytes(3).toString('hex')}.`;
  const nc = await connect({ servers: natsUrl.split(','), name: 'holdfast-bench' });
  let indexer: ChildProcess | undefined;
  try {
    const { escrow, blocks, send, createData, wait } = await mineEscrowHistory(rpcUrl, {
      singles: SINGLES,
      perBlock: PER_BLOCK,
      batches: BATCHES,
      legs: LEGS,
    });
    const backfillEvents = SINGLES + BATCHES * (LEGS + 1);

    const env = {
      ...benchServiceEnv(database.url, natsUrl, prefix),
      CHAIN_RPC_URLS: `base-sepolia=${rpcUrl}`,
      ESCROW_CONTRACTS: `base-sepolia=${escrow.address}@${escrow.blockNumber}`,
      INDEXER_PORT: String(await portFor(0)),
    };
    const cwd = mkdtempSync(join(os.tmpdir(), 'holdfast-bench-'));
    await setUpNats(root, env);
    await new Promise<void>((resolve, reject) =>
      spawn(process.execPath, [productionEntry(join(root, 'services/chain-indexer'), 'migrate')], { env, cwd, stdio: 'inherit' }).once(
        'exit',
        (code) => (code === 0 ? resolve() : reject(new Error(`migrate exited ${code}`))),
      ),
    );

    // Backfill: from the moment the process serves HTTP (its workers start then) to the stream's
    // timestamp of the last event, i.e. its JetStream acknowledgement.
    const jsm = await jetstreamManager(nc);
    const stream = `${prefix}CHAIN`.replaceAll('.', '_');
    const started = Date.now();
    // With the Node flags and environment it has in production.
    indexer = spawn(process.execPath, [...SERVICE_NODE_FLAGS, productionEntry(join(root, 'services/chain-indexer'), 'main')], {
      env: { ...serviceEnvOf(serviceAt(join(root, 'services/chain-indexer'))), ...env },
      cwd,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    await waitFor(
      'the indexer',
      async () => {
        // Tighter than waitFor's own pace: the start of the measurement.
        for (let i = 0; i < 20; i++) {
          if (
            await fetch(`http://127.0.0.1:${env.INDEXER_PORT}/health`).then(
              (r) => r.ok,
              () => false,
            )
          )
            return true;
          await new Promise((r) => setTimeout(r, 10));
        }
        return false;
      },
      30_000,
    );
    const serving = Date.now();
    log(`backfilling ${backfillEvents} events in ${blocks} blocks…`);
    let messages = 0;
    while (messages < backfillEvents) {
      await new Promise((r) => setTimeout(r, 20));
      messages = await jsm.streams
        .info(stream)
        .then((i) => i.state.messages)
        .catch(() => 0);
    }
    const finished = Date.now();
    const lastMessage = await jsm.streams.getMessage(stream, { seq: backfillEvents });
    const backfillMs = Date.parse(lastMessage!.timestamp) - serving;
    const backfill = {
      events: backfillEvents,
      blocks: Number(blocks),
      seconds: backfillMs / 1000,
      eventsPerSecond: Math.round(backfillEvents / (backfillMs / 1000)),
      withStartSeconds: (finished - started) / 1000,
    };
    log(`backfill: ${JSON.stringify(backfill)}`);

    // Head lag: one escrow at a time; mined when anvil answers the send (it mines on receipt), seen when
    // the CHAIN message arrives at a plain subscriber of the stream's subject.
    const seen = new Map<string, number>();
    const subscription = nc.subscribe(`${prefix}chain.base-sepolia.escrow.created`, {
      callback: (_error, message) => {
        seen.set((message.json() as { transactionId: string }).transactionId, performance.now());
      },
    });
    const lags: number[] = [];
    const bareLags: number[] = [];
    const bare = await bareHeadSubscriber(rpcUrl);
    const cpuBefore = processCpuMs(indexer?.pid);
    log(`head lag over ${LAG_SAMPLES} transactions…`);
    for (let i = 0; i < LAG_SAMPLES; i++) {
      const id = randomUUID();
      const hash = await send(createData(id), 300_000n);
      const mined = performance.now();
      const receipt = await wait(hash);
      bareLags.push((bare.announced.get(receipt.blockNumber) ?? Number.NaN) - mined);
      while (!seen.has(id)) await new Promise((r) => setTimeout(r, 2));
      lags.push(seen.get(id)! - mined);
      // Spread the sends over the indexer's poll interval instead of hitting the same phase each time.
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 250));
    }
    subscription.unsubscribe();
    bare.close();
    const cpuAfter = processCpuMs(indexer?.pid);
    lags.sort((a, b) => a - b);
    bareLags.sort((a, b) => a - b);
    const lag = {
      samples: lags.length,
      p50: Math.round(percentile(lags, 50)),
      p99: Math.round(percentile(lags, 99)),
      max: Math.round(lags.at(-1)!),
      bareP50: Math.round(percentile(bareLags, 50)),
      bareP99: Math.round(percentile(bareLags, 99)),
      cpuMsPerTransaction: cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / lags.length,
    };
    log(`head lag: ${JSON.stringify(lag)}`);
    report(backfill, lag, startLoad);
  } finally {
    await stopChildren(indexer ? [indexer] : []);
    await nc.close();
    await chain.started?.stop();
    await deletePrefixedStreams(natsUrl, prefix).catch(() => undefined);
    await database.drop(false);
  }
}

function report(
  backfill: { events: number; blocks: number; seconds: number; eventsPerSecond: number; withStartSeconds: number },
  lag: {
    samples: number;
    p50: number;
    p99: number;
    max: number;
    bareP50: number;
    bareP99: number;
    cpuMsPerTransaction: number | undefined;
  },
  startLoad: number[],
): void {
  const verdict = headLagVerdict("the indexer's part of a lock mined to transaction.escrowed (mined -> escrow.created)", lag.p99);
  const command = `node scripts/bench/chain-indexer.ts --singles ${SINGLES} --per-block ${PER_BLOCK} --batches ${BATCHES} --legs ${LEGS} --lag ${LAG_SAMPLES}`;
  writeHeadLagSection(
    {
      name: 'chain-indexer',
      title: 'chain-indexer',
      startLoad,
      command,
      about: [
        '- **setup**: the built indexer as its own process (defaults: `INDEXER_BLOCK_RANGE=2000`, new heads by `eth_subscribe` at the RPC address as `ws://`, `INDEXER_POLL_INTERVAL=500ms` as the fallback, 0 confirmations in `local`) against a throw-away anvil, the shared PostgreSQL and NATS JetStream. For the head lag anvil mines a block as each transaction arrives.',
      ],
      rows: [
        `| backfill | ${backfill.events} escrow events (${SINGLES} single escrows, ${PER_BLOCK} a block; ${BATCHES} batches of ${LEGS} legs with one \`escrow.batch-created\` each, one a block) in ${backfill.blocks} blocks |`,
        `| backfill speed: workers started -> last event acknowledged by JetStream | **${backfill.eventsPerSecond} events/s** (${backfill.seconds.toFixed(2)} s) |`,
        `| the same from the process start (Node, connections, migrations check) | ${backfill.withStartSeconds.toFixed(1)} s |`,
        `| head lag, transaction mined -> \`escrow.created\` on the CHAIN stream (${lag.samples} transactions) | **p50 ${lag.p50} ms, p99 ${lag.p99} ms** (max ${lag.max} ms) |`,
        `| baseline: a bare \`eth_subscribe newHeads\` client on the same anvil, mined -> head announced | p50 ${lag.bareP50} ms, p99 ${lag.bareP99} ms |`,
        `| indexer CPU time per transaction (the head-lag loop, pauses included) | ${lag.cpuMsPerTransaction === undefined ? 'n/a' : `${lag.cpuMsPerTransaction.toFixed(1)} ms`} |`,
        headLagTargetRow(
          `the whole lock -> \`transaction.escrowed\` p99 ≤ ${HEAD_LAG_TARGET_MS} ms; the indexer's part`,
          lag.p99,
          lag.bareP99,
          'budget',
        ),
      ],
      verdict,
      note: 'Head lag is one range (`eth_getLogs`, headers, publish, commit) after the new head reaches the indexer over its websocket subscription ([ADR 28](adr/0028-new-heads-subscription.md); the poll every `INDEXER_POLL_INTERVAL` is the fallback). The lag to `transaction.escrowed` adds payments applying the event (its CHAIN consumer and outbox relay): [Escrow lag](#escrow-lag) (`scripts/bench/escrow-lag.ts`).',
    },
    WRITE,
  );
}

await main();

// Webhook delivery benchmark: deliveries per second to a loopback receiver and event-to-delivery
// latency (p50, p99) through the real path (event published on JetStream -> dispatcher intake ->
// PostgreSQL -> claimed -> signed -> POSTed), side by side with a plain undici POST loop to the
// same receiver in the same run, then paced runs and one dispatcher against two. Prints the
// dispatcher's CPU time per delivery (a measure that machine load hardly moves), the ratio rows and
// one PASS/MISS line per target of issue 16. Each pair of runs is measured in alternating rounds
// (rounds.ts: `--rounds`, 5 by default), the verdicts on the median of the rounds. See README.md here
// for how to run it; results go to docs/benchmarks.md with --write (refused when the 1-minute load is
// above 1.5, unless --force).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { type DomainEvent, newEventId, WebhookCommands, webhookCommandOf } from '@holdfast/contracts';
import { runMigrations } from '@holdfast/db';
import { createLogger } from '@holdfast/logging';
import { connectBus, deleteStreams, publishEvent, sendCommand, setUpNats } from '@holdfast/messaging';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import postgres from 'postgres';
import { Agent, request } from 'undici';
import { portFor } from '../lib/stack/ports.ts';
import { productionEntry, SERVICE_ENV, SERVICE_NODE_FLAGS, serviceAt, serviceEnvOf, stopProcess } from '../lib/stack/processes.ts';
import {
  benchDatabase,
  closedLoops,
  copyTables,
  machineLine,
  markdownTable,
  processCpuMs,
  serverVersions,
  stdoutLines,
  stopChildren,
  writeSection,
} from './load.ts';
import { benchmarksFile, databaseUrl, flag, natsUrl, numberOption, root, stringOption } from './options.ts';
import { percentile } from './percentile.ts';
import {
  alternate,
  checkQuiet,
  loadNow,
  methodLine,
  ROUNDS,
  ROUNDS_TEXT,
  type RoundsTarget,
  spread,
  targetsReport,
  vacuumBenchDatabase,
} from './rounds.ts';

const DELIVERIES = numberOption('deliveries', 5000);
/** The paced runs: events per second of each (issue 16's targets are at 200/s and 1000/s). */
const PACED_RATES = (stringOption('rates') ?? '200,1000').split(',').map(Number);
/** Deliveries of a warm-up burst (JIT, connections, caches) of the baselines. */
const WARMUP_DELIVERIES = 500;
/**
 * Deliveries made before the first round (`--history N`, at least the warm-up's), so that the rounds run on a deliveries
 * table that holds a history, as a running system's does, not on one that grows from empty within
 * the round on statistics that say it is empty (ADR 43, docs/perf/dispatcher-statistics.md).
 */
const HISTORY = Math.max(WARMUP_DELIVERIES, numberOption('history', 20_000));
/**
 * The warm-up burst of each dispatcher of the one-against-two pair: the first's once it is
 * restarted with INSTANCES_SUBSCRIPTION_CONCURRENCY, the second's each time it is started. The
 * second shares its burst with the first, so it takes about half of it.
 * It was 500 for the second against 5,000 for the first: a process that fresh still spent about
 * twice the CPU per delivery of a warm one in the measured burst (its JIT tiers, a heap still
 * growing under --heap-growing-percent=50), and the pair's ratio measured that
 * (docs/perf/dispatcher-two-instances.md).
 */
const INSTANCE_WARMUP_DELIVERIES = Math.max(WARMUP_DELIVERIES, Math.min(HISTORY, numberOption('instance-warmup', 5000)));
/**
 * Events of each paced run (one per rate and round): its p99 is then the 20th-slowest of 2000 at
 * every rate (10 s at 200/s, 2 s at 1000/s). Runs of 3 s gave 600 samples at 200/s, so that one
 * garbage collection's pause decided the p99 (ADR 41). `--seconds S` sends rate × S instead.
 */
const PACED_EVENTS = numberOption('events', 2000);
const PACED_SECONDS = stringOption('seconds') === undefined ? undefined : numberOption('seconds', 3);
const pacedEvents = (rate: number) => (PACED_SECONDS === undefined ? PACED_EVENTS : Math.max(1, Math.round(rate * PACED_SECONDS)));
const WRITE = flag('write');
/**
 * WEBHOOK_SUBSCRIPTION_CONCURRENCY of the dispatchers of the one-against-two pair: counted across
 * instances (ADR 36), the default 10 on 5 subscriptions is 50 in flight for one or two instances
 * alike, so it would bound the pair; at 40 each subscription admits what two instances send it.
 */
const INSTANCES_SUBSCRIPTION_CONCURRENCY = 40;
/** Only one dispatcher against two on the same burst (claims shared through FOR UPDATE SKIP LOCKED); the default run measures it last. */
const COMPARE_INSTANCES = flag('compare-instances');

/** The targets: issue 34's (same-work loop, CPU per delivery, two instances) and issue 16's (paced p99). */
const TARGETS = {
  /** Dispatcher deliveries/s against the plain undici loop at the same in flight (issue 16; information now). */
  againstUndici: 0.5,
  /** Dispatcher deliveries/s against the same-work loop (same-work-deliveries.ts) at the same in flight. */
  againstSameWork: 0.7,
  /** The dispatcher's CPU and its PostgreSQL backends' per delivery (µs), 5 subscriptions at 50 in flight. */
  cpuPerDeliveryUs: 250,
  /** Two dispatcher processes against one, the per-subscription limit raised so that it is not the bound: no collapse. */
  twoInstances: 0.95,
  /** Event published to delivered, p99 (ms), per paced rate. */
  pacedP99Ms: { 200: 20, 1000: 50 } as Record<number, number>,
};

const logger = createLogger({ service: 'bench', level: 'warn' });

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (child.exitCode !== null) throw new Error(`the process for ${url} exited with ${child.exitCode} before it was ready`);
    try {
      if ((await request(`${url}/health/ready`)).statusCode === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not become ready`);
}

interface Stats {
  count: number;
  first: number;
  last: number;
  latencies: number[];
  duplicates: number;
}

async function main() {
  checkQuiet('bench', WRITE);
  const startLoad = os.loadavg();
  const database = await benchDatabase(databaseUrl);
  const benchDbUrl = database.url;
  const prefix = `bench${randomBytes(4).toString('hex')}.`;
  const children: ChildProcess[] = [];
  const bus = await connectBus({ url: natsUrl, name: 'bench', prefix, logger });
  let nc: NatsConnection | undefined;
  let sameWorkStreamMade: string | undefined;
  try {
    await runMigrations({ url: benchDbUrl, schemaName: 'webhooks', migrationsFolder: `${root}/services/webhook-dispatcher/drizzle` });
    await setUpNats(bus);

    const receiverProcess = spawn(process.execPath, [`${root}/scripts/bench/receiver.ts`], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(receiverProcess);
    const { port } = JSON.parse((await stdoutLines(receiverProcess).next()).value as string) as { port: number };
    const receiver = `http://127.0.0.1:${port}`;
    const stats = async (): Promise<Stats> => (await (await request(`${receiver}/stats`)).body.json()) as Stats;
    const reset = async () => void (await (await request(`${receiver}/reset`, { method: 'POST' })).body.text());

    const dataEncryptionKey = randomBytes(32).toString('base64');
    const dispatchers: ChildProcess[] = [];
    const dispatcherCpuMs = () => dispatchers.reduce((sum, d) => sum + (processCpuMs(d.pid) ?? 0), 0);
    /** Whose CPU a run counts: the dispatchers' (and their backends'), or the same-work loop's. */
    let measuring: 'dispatchers' | 'same-work' = 'dispatchers';
    let sameWorkPid: number | undefined;
    const measuredCpuMs = () => (measuring === 'dispatchers' ? dispatcherCpuMs() : (processCpuMs(sameWorkPid) ?? 0));
    const startDispatcher = async (settings: Record<string, string> = {}) => {
      // A port the OS says is free (a random one could be taken by another process and never answer).
      const dispatcherPort = await portFor(0);
      const env = {
        PATH: process.env.PATH ?? '',
        APP_ENV: 'local',
        DATABASE_URL: benchDbUrl,
        NATS_URL: natsUrl,
        NATS_SUBJECT_PREFIX: prefix,
        HOST: '127.0.0.1',
        DISPATCHER_PORT: String(dispatcherPort),
        LOG_LEVEL: 'warn',
        DATA_ENCRYPTION_KEY: dataEncryptionKey,
        ...settings,
      };
      const dispatcher = spawn(
        process.execPath,
        [
          // The flags it has in production (its young generation's cap among them), then the bench's own.
          ...SERVICE_NODE_FLAGS,
          ...(process.env.BENCH_DISPATCHER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
          process.env.BENCH_DISPATCHER_MAIN ?? productionEntry(`${root}/services/webhook-dispatcher`, 'main'),
        ],
        // Its production environment (SERVICE_ENV, its `holdfast.env`) under the bench's.
        { env: { ...serviceEnvOf(serviceAt(`${root}/services/webhook-dispatcher`)), ...env }, stdio: ['ignore', 'inherit', 'inherit'] },
      );
      children.push(dispatcher);
      dispatchers.push(dispatcher);
      await waitReady(`http://127.0.0.1:${dispatcherPort}`, dispatcher);
      return dispatcher;
    };
    const stopDispatcher = async (dispatcher: ChildProcess) => {
      await stopProcess(dispatcher);
      dispatchers.splice(dispatchers.indexOf(dispatcher), 1);
      children.splice(children.indexOf(dispatcher), 1);
    };
    let firstDispatcher = await startDispatcher();

    // The same-work loop (same-work-deliveries.ts): its own stream and tables, its own process.
    const sameWorkStream = `BENCH_SAME_WORK_${randomBytes(4).toString('hex')}`;
    const sameWorkSubject = `${prefix}same-work.events`;
    nc = await connect({ servers: natsUrl.split(','), name: 'bench-same-work' });
    await (await jetstreamManager(nc)).streams.add({ name: sameWorkStream, subjects: [sameWorkSubject] });
    sameWorkStreamMade = sameWorkStream;
    const js = jetstream(nc);
    const copies = postgres(benchDbUrl, { max: 1, onnotice: () => {} });
    await copyTables(copies, 'webhooks', ['received_events', 'deliveries', 'delivery_attempts'], 'bench_same_work');
    await copies.end();
    const sameWorkProcess = spawn(process.execPath, [...SERVICE_NODE_FLAGS, `${root}/scripts/bench/same-work-deliveries.ts`], {
      env: {
        PATH: process.env.PATH ?? '',
        ...SERVICE_ENV,
        DATABASE_URL: benchDbUrl,
        NATS_URL: natsUrl,
        BENCH_STREAM: sameWorkStream,
        BENCH_SUBJECT: sameWorkSubject,
        BENCH_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(sameWorkProcess);
    const sameWorkPort = (JSON.parse((await stdoutLines(sameWorkProcess).next()).value as string) as { port: number }).port;
    const sameWorkInFlight = async (events: number) =>
      void (await (await request(`http://127.0.0.1:${sameWorkPort}/in-flight/${events}`, { method: 'POST' })).body.text());

    const body = (createdAt: string) =>
      JSON.stringify({
        id: newEventId(),
        type: 'transaction.created',
        createdAt,
        data: { transaction: { id: randomUUID(), status: 'pending', amount: '12.50', currency: 'USDC' } },
      });

    /** Plain undici: `inFlight` POSTs at a time until `total` are sent (the receiver counts them). */
    async function undiciLoop(total: number, inFlight: number): Promise<Stats & { started: number }> {
      await reset();
      const started = Date.now();
      const plainPost = () => ({ headers: { 'content-type': 'application/json' }, body: body(new Date().toISOString()) });
      await closedLoops(`${receiver}/plain`, total, inFlight, plainPost, () => true);
      return { ...(await stats()), started };
    }

    /**
     * Calls `send` `total` times, `rate` times a second (on schedule, not waiting for what each
     * started), then waits for all of them: the counters reset first, and when it started.
     */
    async function paced(rate: number, total: number, send: () => Promise<unknown>): Promise<{ total: number; started: number }> {
      await reset();
      const started = Date.now();
      const pending: Promise<unknown>[] = [];
      for (let i = 0; i < total; i += 1) {
        const due = started + (i * 1000) / rate;
        if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        pending.push(send());
      }
      await Promise.all(pending);
      return { total, started };
    }

    /** Plain undici at a fixed rate (one POST every 1/rate s, not waiting for answers). */
    async function undiciPaced(rate: number, events: number): Promise<Stats & { started: number }> {
      const agent = new Agent({ keepAliveTimeout: 30_000 });
      const { started } = await paced(rate, events, () =>
        request(`${receiver}/plain`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json' },
          body: body(new Date().toISOString()),
        }).then((res) => res.body.dump()),
      );
      await agent.close();
      return { ...(await stats()), started };
    }

    let currentPlatform = randomUUID();
    let subscriptionCount = 0;
    async function subscriptions(count: number): Promise<void> {
      // Each run gets its own platform, so that earlier subscriptions receive nothing.
      subscriptionCount = count;
      currentPlatform = randomUUID();
      for (let i = 0; i < count; i += 1) {
        await sendCommand(bus, webhookCommandOf(WebhookCommands.create, 'platform'), {
          owner: { platformId: currentPlatform },
          url: `${receiver}/hook/${i}`,
          eventTypes: ['transaction.created'],
        });
      }
    }
    const event = (): DomainEvent => ({
      id: newEventId(),
      type: 'transaction.created',
      createdAt: new Date().toISOString(),
      platformId: currentPlatform,
      data: { transaction: { id: randomUUID(), status: 'pending', amount: '12.50', currency: 'USDC' } },
    });

    async function waitFor(total: number): Promise<Stats> {
      for (;;) {
        const s = await stats();
        if (s.count >= total) return s;
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    /** Publishes events (256 in flight) and waits until every delivery arrived. */
    async function dispatcherBurst(total: number): Promise<Stats & { started: number }> {
      await reset();
      const events = Math.ceil(total / subscriptionCount);
      let published = 0;
      const started = Date.now();
      await Promise.all(
        Array.from({ length: 256 }, async () => {
          while (published < events) {
            published += 1;
            await publishEvent(bus, event());
          }
        }),
      );
      return { ...(await waitFor(events * subscriptionCount)), started };
    }

    /**
     * The same-work loop's burst: `total` deliveries' events published to its stream (256 in flight),
     * the loop handling `inFlight / subscriptions` events at once (so `inFlight` deliveries), until
     * every delivery arrived.
     */
    async function sameWorkBurst(total: number, inFlight: number): Promise<Stats & { started: number }> {
      await sameWorkInFlight(Math.max(1, Math.round(inFlight / subscriptionCount)));
      await reset();
      const events = Math.ceil(total / subscriptionCount);
      let published = 0;
      const started = Date.now();
      await Promise.all(
        Array.from({ length: 256 }, async () => {
          while (published < events) {
            published += 1;
            await js.publish(sameWorkSubject, JSON.stringify(event()));
          }
        }),
      );
      return { ...(await waitFor(events * subscriptionCount)), started };
    }

    async function dispatcherPaced(rate: number, events: number): Promise<Stats & { started: number }> {
      const { total, started } = await paced(rate, events, () => publishEvent(bus, event()));
      return { ...(await waitFor(total * subscriptionCount)), started };
    }

    const rows: string[][] = [];
    interface Run {
      perSecond: number;
      p99: number;
      /** The measured processes' CPU plus their PostgreSQL backends' per delivery (µs; NaN when not measured). */
      cpuUs: number;
      duplicates: number;
    }
    /** One measured run: its row (with the dispatchers' CPU per delivery when `cpuBefore` is given). */
    function row(
      round: number,
      what: string,
      inFlight: string,
      s: Stats & { started: number },
      load: number,
      cpuBefore?: number,
      postgresCpuMs?: number,
    ): Run {
      const sorted = [...s.latencies].sort((a, b) => a - b);
      const seconds = Math.max(1, s.last - s.started) / 1000;
      const cpuUs = cpuBefore === undefined || s.count === 0 ? Number.NaN : ((measuredCpuMs() - cpuBefore) * 1000) / s.count;
      const postgresUs = postgresCpuMs === undefined || s.count === 0 ? Number.NaN : (postgresCpuMs * 1000) / s.count;
      const run = { perSecond: s.count / seconds, p99: percentile(sorted, 99), cpuUs: cpuUs + postgresUs, duplicates: s.duplicates };
      const cpu = Number.isNaN(cpuUs) ? '' : cpuUs.toFixed(0);
      rows.push([
        String(round),
        what,
        inFlight,
        String(s.count),
        run.perSecond.toFixed(0),
        String(percentile(sorted, 50)),
        String(run.p99),
        String(s.duplicates),
        cpu,
        Number.isNaN(postgresUs) ? '' : postgresUs.toFixed(0),
        load.toFixed(2),
      ]);
      process.stderr.write(`${rows.at(-1)!.join(' | ')}\n`);
      return run;
    }
    /** A plain undici run. */
    const plain = (round: number, what: string, inFlight: string, run: () => Promise<Stats & { started: number }>) => async () => {
      const load = loadNow();
      return row(round, what, inFlight, await run(), load);
    };
    // A burst ends at the receiver once every delivery arrived, but each dispatcher still writes the
    // last results: a dispatcher run ends when no delivery is pending, so that the next run (plain
    // undici's, on the same 2 cores) starts on an idle dispatcher and the CPU per delivery is whole.
    const deliveriesTable = postgres(benchDbUrl, { max: 1, onnotice: () => {} });
    const settled = async () => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const [left] = await deliveriesTable<{ n: number }[]>`
          select (select count(*)::int from webhooks.deliveries where status = 'pending')
            + (select count(*)::int from bench_same_work.deliveries where status = 'pending') as n`;
        if (left?.n === 0) return;
        if (Date.now() > deadline) throw new Error(`${left?.n} deliveries still pending 60 s after the run`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    /**
     * CPU time (ms) of the measured processes' PostgreSQL backends, by process id: the same-work
     * loop's (by its application_name), or every backend of the bench database but this
     * connection's and the loop's (the dispatchers').
     */
    const postgresCpu = async () =>
      new Map(
        (
          await deliveriesTable<{ pid: number }[]>`
          select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
            and (application_name = 'bench-same-work-deliveries') = ${measuring === 'same-work'}`
        ).map(({ pid }) => [pid, processCpuMs(pid) ?? 0]),
      );
    /** A dispatcher run on `count` fresh subscriptions (made before it starts), with the CPU its processes and their PostgreSQL backends used. */
    const dispatched =
      (round: number, what: string, inFlight: string, count: number, run: () => Promise<Stats & { started: number }>) => async () => {
        await subscriptions(count);
        const load = loadNow();
        measuring = 'dispatchers';
        const cpuBefore = dispatcherCpuMs();
        const postgresBefore = await postgresCpu();
        const stats = await run();
        await settled();
        let postgresMs = 0;
        for (const [pid, ms] of await postgresCpu()) postgresMs += ms - (postgresBefore.get(pid) ?? 0);
        return row(round, what, inFlight, stats, load, cpuBefore, postgresMs);
      };
    sameWorkPid = sameWorkProcess.pid;
    /** A same-work loop run on `count` fresh subscriptions, with the CPU of its process and of its PostgreSQL backends. */
    const sameWorkRun = (round: number, what: string, inFlight: number, count: number) => async () => {
      await subscriptions(count);
      const load = loadNow();
      measuring = 'same-work';
      try {
        const cpuBefore = measuredCpuMs();
        const postgresBefore = await postgresCpu();
        const stats = await sameWorkBurst(DELIVERIES, inFlight);
        await settled();
        let postgresMs = 0;
        for (const [pid, ms] of await postgresCpu()) postgresMs += ms - (postgresBefore.get(pid) ?? 0);
        return row(round, what, String(inFlight), stats, load, cpuBefore, postgresMs);
      } finally {
        measuring = 'dispatchers';
      }
    };

    // Warm-up: connections, JIT, PostgreSQL caches, and the history the first round's `vacuum
    // analyze` gives the planner.
    await subscriptions(1);
    await dispatcherBurst(HISTORY);
    await settled();
    await undiciLoop(WARMUP_DELIVERIES, 10);
    await sameWorkBurst(WARMUP_DELIVERIES, 10);
    await settled();

    /** Each target's value per round. */
    const perRound = {
      undici10: [] as number[],
      undici50: [] as number[],
      sameWork10: [] as number[],
      sameWork50: [] as number[],
      cpuPerDelivery: [] as number[],
      duplicates: 0,
      paced: new Map<number, number[]>(PACED_RATES.map((rate) => [rate, []])),
      instances: [] as number[],
    };
    for (let round = 1; round <= ROUNDS && !COMPARE_INSTANCES; round += 1) {
      process.stderr.write(`[bench] round ${round} of ${ROUNDS} (load ${loadNow().toFixed(2)})\n`);
      await vacuumBenchDatabase(deliveriesTable);
      // The baselines (the same-work loop, then plain undici) against the dispatcher, at each load.
      const [[sameWork10, undici10], one] = await alternate(
        round,
        async () =>
          [
            await sameWorkRun(round, 'same-work loop, 1 subscription (burst)', 10, 1)(),
            await plain(round, 'plain undici POST loop', '10', () => undiciLoop(DELIVERIES, 10))(),
          ] as const,
        dispatched(round, 'dispatcher, 1 subscription (burst)', '≤ 10 (per-subscription limit)', 1, () => dispatcherBurst(DELIVERIES)),
      );
      perRound.undici10.push(one.perSecond / undici10.perSecond);
      perRound.sameWork10.push(one.perSecond / sameWork10.perSecond);
      const [[sameWork50, undici50], five] = await alternate(
        round,
        async () =>
          [
            await sameWorkRun(round, 'same-work loop, 5 subscriptions (burst)', 50, 5)(),
            await plain(round, 'plain undici POST loop', '50', () => undiciLoop(DELIVERIES, 50))(),
          ] as const,
        dispatched(round, 'dispatcher, 5 subscriptions (burst)', '≤ 50 (WEBHOOK_CONCURRENCY)', 5, () => dispatcherBurst(DELIVERIES)),
      );
      perRound.undici50.push(five.perSecond / undici50.perSecond);
      perRound.sameWork50.push(five.perSecond / sameWork50.perSecond);
      perRound.cpuPerDelivery.push(five.cpuUs);
      for (const rate of PACED_RATES) {
        const [, paced] = await alternate(
          round,
          plain(round, `plain undici POST, paced ${rate}/s`, 'as needed', () => undiciPaced(rate, pacedEvents(rate))),
          dispatched(round, `dispatcher, 1 subscription, paced ${rate} events/s`, 'as needed', 1, () =>
            dispatcherPaced(rate, pacedEvents(rate)),
          ),
        );
        perRound.paced.get(rate)!.push(paced.p99);
      }
    }
    // One dispatcher against two on the same burst, each with the per-subscription limit raised
    // (INSTANCES_SUBSCRIPTION_CONCURRENCY) so that it is not the bound: the first dispatcher is
    // replaced by one with that setting, warmed up as the first was; the second is started for its
    // run and stopped after it.
    await stopDispatcher(firstDispatcher);
    const instanceSettings = { WEBHOOK_SUBSCRIPTION_CONCURRENCY: String(INSTANCES_SUBSCRIPTION_CONCURRENCY) };
    firstDispatcher = await startDispatcher(instanceSettings);
    await subscriptions(5);
    await dispatcherBurst(INSTANCE_WARMUP_DELIVERIES);
    await settled();
    for (let round = 1; round <= ROUNDS; round += 1) {
      process.stderr.write(`[bench] one dispatcher against two, round ${round} of ${ROUNDS} (load ${loadNow().toFixed(2)})\n`);
      await vacuumBenchDatabase(deliveriesTable);
      const [oneInstance, two] = await alternate(
        round,
        dispatched(round, '1 dispatcher, 5 subscriptions (burst)', '≤ 50 (WEBHOOK_CONCURRENCY)', 5, () => dispatcherBurst(DELIVERIES)),
        async () => {
          const second = await startDispatcher(instanceSettings);
          try {
            // Warmed up as the first one was (JIT, connections), on a burst both share.
            await subscriptions(5);
            await dispatcherBurst(INSTANCE_WARMUP_DELIVERIES);
            await settled();
            return await dispatched(round, '2 dispatchers, 5 subscriptions (burst)', '≤ 100 (50 each)', 5, () =>
              dispatcherBurst(DELIVERIES),
            )();
          } finally {
            await stopDispatcher(second);
          }
        },
      );
      perRound.instances.push(two.perSecond / oneInstance.perSecond);
      perRound.duplicates += two.duplicates + oneInstance.duplicates;
    }
    await deliveriesTable.end();

    const targets: RoundsTarget[] = [];
    if (!COMPARE_INSTANCES) {
      const ratioTarget = (what: string, values: number[], target: number, info = false): RoundsTarget => ({
        what,
        value: spread(values),
        unit: '×',
        op: '≥',
        target,
        decimals: 2,
        info,
      });
      targets.push(
        ratioTarget('dispatcher vs same-work loop, 1 subscription at 10 in flight', perRound.sameWork10, TARGETS.againstSameWork),
      );
      targets.push(
        ratioTarget('dispatcher vs same-work loop, 5 subscriptions at 50 in flight', perRound.sameWork50, TARGETS.againstSameWork),
      );
      targets.push({
        what: 'CPU per delivery (dispatcher and its PostgreSQL backends), 5 subscriptions at 50 in flight',
        value: spread(perRound.cpuPerDelivery),
        unit: ' µs',
        op: '≤',
        target: TARGETS.cpuPerDeliveryUs,
        decimals: 0,
      });
      for (const rate of PACED_RATES) {
        const target = TARGETS.pacedP99Ms[rate];
        if (target !== undefined)
          targets.push({
            what: `event published to delivered, paced ${rate}/s, p99`,
            value: spread(perRound.paced.get(rate)!),
            unit: ' ms',
            op: '≤',
            target,
            decimals: 0,
          });
      }
      // Issue 16's ratios against a plain undici loop, kept as information (issue 34).
      targets.push(
        ratioTarget('dispatcher vs plain undici, 1 subscription at 10 in flight', perRound.undici10, TARGETS.againstUndici, true),
      );
      targets.push(
        ratioTarget('dispatcher vs plain undici, 5 subscriptions at 50 in flight', perRound.undici50, TARGETS.againstUndici, true),
      );
    }
    targets.push({
      what: `two dispatchers vs one, 5 subscriptions (WEBHOOK_SUBSCRIPTION_CONCURRENCY ${INSTANCES_SUBSCRIPTION_CONCURRENCY})`,
      value: spread(perRound.instances),
      unit: '×',
      op: '≥',
      target: TARGETS.twoInstances,
      decimals: 2,
    });
    const report = targetsReport(targets);
    const ratioTable = report.table;
    const verdicts = [
      ...report.verdicts,
      `${perRound.duplicates === 0 ? 'PASS' : 'MISS'} two dispatchers vs one: no attempt sent twice (${perRound.duplicates} duplicate deliveries over ${ROUNDS_TEXT}; target 0)`,
    ];

    const software = await serverVersions(benchDbUrl, natsUrl);
    const header = [
      'round',
      'run',
      'in flight',
      'deliveries',
      'deliveries/s',
      'latency p50 (ms)',
      'latency p99 (ms)',
      'duplicates',
      'dispatcher CPU per delivery (µs)',
      'PostgreSQL CPU per delivery (µs)',
      'load (1 min) at start',
    ];
    const table = markdownTable(header, rows);
    // The command as given, without --force (all.ts passes it after its own check of the load).
    const args = process.argv.slice(2).filter((a) => a !== '--force');
    const sectionName = COMPARE_INSTANCES ? 'webhooks-instances' : 'webhooks';
    const section = [
      `<!-- ${sectionName}:start -->`,
      `## Webhook deliveries${COMPARE_INSTANCES ? ', one dispatcher against two' : ''}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      '',
      `- Machine: ${machineLine(startLoad)}`,
      `- Software: Node ${process.version}, PostgreSQL ${software.postgres}, NATS ${software.nats}; one dispatcher process (Node flags of production: ${SERVICE_NODE_FLAGS.join(' ')}), a second one for the last run (one PostgreSQL, one NATS), default settings (WEBHOOK_CONCURRENCY 50, WEBHOOK_SUBSCRIPTION_CONCURRENCY 10), receiver in its own process answering 200 at once; the same-work loop (\`same-work-deliveries.ts\`, its own process, pool of 10): per event taken from a JetStream stream of its own, the dispatcher's intake statement (the event and one delivery per matching subscription) committed, the message acknowledged, each delivery signed with the dispatcher's \`deliveryHeaders\`, POSTed with undici and its result (attempt log entry and status) stored in one statement without waiting for the WAL flush, on copies of the dispatcher's tables; ${INSTANCES_SUBSCRIPTION_CONCURRENCY} per subscription (WEBHOOK_SUBSCRIPTION_CONCURRENCY) for the one-against-two pair, so that the per-subscription limit is not its bound`,
      `- Command: \`node scripts/bench/webhooks.ts ${args.join(' ')}\` (${ROUNDS_TEXT}, ${DELIVERIES} deliveries a burst${COMPARE_INSTANCES ? '' : PACED_SECONDS === undefined ? `, paced runs of ${PACED_EVENTS} events` : `, paced runs of ${PACED_SECONDS} s`})`,
      `- Method: ${methodLine(
        `${COMPARE_INSTANCES ? '' : 'the baselines (the same-work loop, then the plain undici loop) and the dispatcher at 10 and at 50 in flight, plain undici and the dispatcher at each paced rate, and (after all of those rounds, on dispatchers restarted with the raised per-subscription limit) '}one dispatcher and two on the same burst, each pair`,
      )} Each dispatcher run has subscriptions of its own, made before it starts, and ends when no delivery is pending (the dispatchers write the last results after the receiver has them: that work is the run's, not the next one's); the second dispatcher is started before its run, warmed up by a burst of ${INSTANCE_WARMUP_DELIVERIES} (shared with the first) as the first one was after its restart, and stopped after it. Before the first round the first dispatcher delivers a history of ${HISTORY} deliveries (\`--history\`), so that the rounds run on a deliveries table that holds one, as a running system's does (ADR 43). Each round starts with \`vacuum analyze\` of the database (finished deliveries leave dead row versions in the claim's index; autovacuum, which would remove them in production, is off on this machine's PostgreSQL).`,
      '',
      table,
      '',
      ratioTable,
      '',
      ...verdicts.map((v) => `- ${v}`),
      `<!-- ${sectionName}:end -->`,
    ].join('\n');
    process.stdout.write(`\n${section}\n`);
    if (WRITE) writeSection(benchmarksFile, sectionName, section);
  } finally {
    await stopChildren(children);
    await deleteStreams(bus).catch(() => undefined);
    await bus.close();
    if (nc && sameWorkStreamMade) await (await jetstreamManager(nc)).streams.delete(sameWorkStreamMade).catch(() => undefined);
    await nc?.close();
    await database.drop(flag('keep'));
  }
}

await main();

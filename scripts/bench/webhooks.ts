// Webhook delivery benchmark: deliveries per second to a loopback receiver and event-to-delivery
// latency (p50, p99) through the real path (event published on JetStream -> dispatcher intake ->
// PostgreSQL -> claimed -> signed -> POSTed), side by side with a plain undici POST loop to the
// same receiver in the same run, then paced runs and one dispatcher against two. Prints the
// dispatcher's CPU time per delivery (a measure that machine load hardly moves), the ratio rows and
// one PASS/MISS line per target of issue 16. See README.md here for how to run it; results go to
// docs/benchmarks.md with --write.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { type DomainEvent, newEventId, WebhookCommands } from '@holdfast/contracts';
import { runMigrations } from '@holdfast/db';
import { createLogger } from '@holdfast/logging';
import { connectBus, deleteStreams, ensureStreams, publishEvent, sendCommand } from '@holdfast/messaging';
import { Agent, request } from 'undici';
import { portFor } from '../lib/stack/ports.ts';
import { productionEntry } from '../lib/stack/processes.ts';
import {
  benchDatabase,
  closedLoops,
  machineLine,
  markdownTable,
  processCpuMs,
  serverVersions,
  stdoutLines,
  stopChildren,
  writeSection,
} from './load.ts';
import { benchmarksFile, databaseUrl, flag, natsUrl, numberOption, root, stringOption } from './options.ts';

const DELIVERIES = numberOption('deliveries', 5000);
/** The paced runs: events per second of each (issue 16's targets are at 200/s and 1000/s). */
const PACED_RATES = (stringOption('rates') ?? '200,1000').split(',').map(Number);
const PACED_SECONDS = numberOption('seconds', 5);
const WRITE = flag('write');
/** Only one dispatcher against two on the same burst (claims shared through FOR UPDATE SKIP LOCKED); the default run measures it last. */
const COMPARE_INSTANCES = flag('compare-instances');

/** Issue 16's targets. */
const TARGETS = {
  /** Dispatcher deliveries/s against the plain undici loop at the same in flight. */
  againstUndici: 0.5,
  /** Two dispatcher processes against one. */
  twoInstances: 1.7,
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

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function main() {
  const startLoad = os.loadavg();
  const database = await benchDatabase(databaseUrl);
  const benchDbUrl = database.url;
  const prefix = `bench${randomBytes(4).toString('hex')}.`;
  const children: ChildProcess[] = [];
  const bus = await connectBus({ url: natsUrl, name: 'bench', prefix, logger });
  try {
    await runMigrations({ url: benchDbUrl, schemaName: 'webhooks', migrationsFolder: `${root}/services/webhook-dispatcher/drizzle` });
    await ensureStreams(bus);

    const receiverProcess = spawn(process.execPath, [`${root}/scripts/bench/receiver.ts`], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(receiverProcess);
    const { port } = JSON.parse((await stdoutLines(receiverProcess).next()).value as string) as { port: number };
    const receiver = `http://127.0.0.1:${port}`;
    const stats = async (): Promise<Stats> => (await (await request(`${receiver}/stats`)).body.json()) as Stats;
    const reset = async () => void (await (await request(`${receiver}/reset`, { method: 'POST' })).body.text());

    const dataEncryptionKey = randomBytes(32).toString('base64');
    const dispatchers: ChildProcess[] = [];
    const dispatcherCpuMs = () => dispatchers.reduce((sum, d) => sum + (processCpuMs(d.pid) ?? 0), 0);
    const startDispatcher = async () => {
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
      };
      const dispatcher = spawn(
        process.execPath,
        [
          ...(process.env.BENCH_DISPATCHER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
          process.env.BENCH_DISPATCHER_MAIN ?? productionEntry(`${root}/services/webhook-dispatcher`, 'main'),
        ],
        { env, stdio: ['ignore', 'inherit', 'inherit'] },
      );
      children.push(dispatcher);
      dispatchers.push(dispatcher);
      await waitReady(`http://127.0.0.1:${dispatcherPort}`, dispatcher);
    };
    await startDispatcher();

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
     * Calls `send` `rate` times a second for `seconds` (on schedule, not waiting for what each
     * started), then waits for all of them: the counters reset first, and when it started.
     */
    async function paced(rate: number, seconds: number, send: () => Promise<unknown>): Promise<{ total: number; started: number }> {
      await reset();
      const total = rate * seconds;
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
    async function undiciPaced(rate: number, seconds: number): Promise<Stats & { started: number }> {
      const agent = new Agent({ keepAliveTimeout: 30_000 });
      const { started } = await paced(rate, seconds, () =>
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
        await sendCommand(bus, WebhookCommands.create, {
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

    async function dispatcherPaced(rate: number, seconds: number): Promise<Stats & { started: number }> {
      const { total, started } = await paced(rate, seconds, () => publishEvent(bus, event()));
      return { ...(await waitFor(total * subscriptionCount)), started };
    }

    const rows: string[][] = [];
    const verdicts: string[] = [];
    interface Run {
      perSecond: number;
      p99: number;
    }
    /** One measured run: its row (with the dispatchers' CPU per delivery when `cpuBefore` is given). */
    function row(what: string, inFlight: string, s: Stats & { started: number }, cpuBefore?: number): Run {
      const sorted = [...s.latencies].sort((a, b) => a - b);
      const seconds = Math.max(1, s.last - s.started) / 1000;
      const run = { perSecond: s.count / seconds, p99: percentile(sorted, 99) };
      const cpu = cpuBefore === undefined || s.count === 0 ? '' : (((dispatcherCpuMs() - cpuBefore) * 1000) / s.count).toFixed(0);
      rows.push([
        what,
        inFlight,
        String(s.count),
        run.perSecond.toFixed(0),
        String(percentile(sorted, 50)),
        String(run.p99),
        String(s.duplicates),
        cpu,
      ]);
      process.stderr.write(`${rows.at(-1)!.join(' | ')}\n`);
      return run;
    }
    function ratioRow(what: string, value: Run, against: Run, target: number) {
      const ratio = value.perSecond / against.perSecond;
      rows.push([`ratio: ${what}`, '', '', `${ratio.toFixed(2)}×`, '', '', '', '']);
      verdicts.push(`${ratio >= target ? 'PASS' : 'MISS'} ${what}: ${ratio.toFixed(2)}× (target ≥ ${target}×)`);
      process.stderr.write(`${verdicts.at(-1)}\n`);
    }
    /** A dispatcher run with the CPU its processes used. */
    async function measured(what: string, inFlight: string, run: () => Promise<Stats & { started: number }>): Promise<Run> {
      const cpuBefore = dispatcherCpuMs();
      return row(what, inFlight, await run(), cpuBefore);
    }

    // Warm-up: connections, JIT, PostgreSQL caches.
    await subscriptions(1);
    await dispatcherBurst(500);
    await undiciLoop(500, 10);

    let oneInstance: Run | undefined;
    if (!COMPARE_INSTANCES) {
      const undici10 = row('plain undici POST loop', '10', await undiciLoop(DELIVERIES, 10));
      await subscriptions(1);
      const one = await measured('dispatcher, 1 subscription (burst)', '≤ 10 (per-subscription limit)', () => dispatcherBurst(DELIVERIES));
      const undici50 = row('plain undici POST loop', '50', await undiciLoop(DELIVERIES, 50));
      await subscriptions(5);
      oneInstance = await measured('dispatcher, 5 subscriptions (burst)', '≤ 50 (WEBHOOK_CONCURRENCY)', () => dispatcherBurst(DELIVERIES));
      ratioRow('dispatcher vs plain undici, 1 subscription at 10 in flight', one, undici10, TARGETS.againstUndici);
      ratioRow('dispatcher vs plain undici, 5 subscriptions at 50 in flight', oneInstance, undici50, TARGETS.againstUndici);
      await subscriptions(1);
      for (const rate of PACED_RATES) {
        row(`plain undici POST, paced ${rate}/s`, 'as needed', await undiciPaced(rate, PACED_SECONDS));
        const paced = await measured(`dispatcher, 1 subscription, paced ${rate} events/s`, 'as needed', () =>
          dispatcherPaced(rate, PACED_SECONDS),
        );
        const target = TARGETS.pacedP99Ms[rate];
        if (target !== undefined)
          verdicts.push(
            `${paced.p99 <= target ? 'PASS' : 'MISS'} event published to delivered, paced ${rate}/s: p99 ${paced.p99} ms (target ≤ ${target} ms)`,
          );
      }
      await subscriptions(5);
    } else {
      await subscriptions(5);
      oneInstance = await measured('1 dispatcher, 5 subscriptions (burst)', '≤ 50 (WEBHOOK_CONCURRENCY)', () =>
        dispatcherBurst(DELIVERIES),
      );
    }
    await startDispatcher();
    const two = await measured('2 dispatchers, 5 subscriptions (burst)', '≤ 100 (50 each)', () => dispatcherBurst(DELIVERIES));
    ratioRow('two dispatcher instances vs one, 5 subscriptions', two, oneInstance, TARGETS.twoInstances);

    const software = await serverVersions(benchDbUrl, natsUrl);
    const header = [
      'run',
      'in flight',
      'deliveries',
      'deliveries/s',
      'latency p50 (ms)',
      'latency p99 (ms)',
      'duplicates',
      'dispatcher CPU per delivery (µs)',
    ];
    const table = markdownTable(header, rows);
    const sectionName = COMPARE_INSTANCES ? 'webhooks-instances' : 'webhooks';
    const section = [
      `<!-- ${sectionName}:start -->`,
      `## Webhook deliveries${COMPARE_INSTANCES ? ', one dispatcher against two' : ''}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
      '',
      `- Machine: ${machineLine(startLoad)}`,
      `- Software: Node ${process.version}, PostgreSQL ${software.postgres}, NATS ${software.nats}; one dispatcher process, a second one for the last run (one PostgreSQL, one NATS), default settings (WEBHOOK_CONCURRENCY 50, WEBHOOK_SUBSCRIPTION_CONCURRENCY 10), receiver in its own process answering 200 at once`,
      `- Command: \`node scripts/bench/webhooks.ts ${process.argv.slice(2).join(' ')}\``,
      '',
      table,
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
    await database.drop(flag('keep'));
  }
}

await main();

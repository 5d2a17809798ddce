// Soak benchmark: the RSS curve of each of the four built processes over N mixed requests (100,000 by
// default), bounded in time. The mix, by request number: 35 % transaction creations (each makes a
// `transaction.created` the dispatcher delivers to a loopback webhook receiver), 25 % reads of a
// recent transaction, 10 % transaction lists, 5 % webhook subscription lists (payments asks the
// dispatcher over NATS), 24 % Workspace API lists (workspaces, customers) and 1 % Workspace logins
// (argon2id). The chain-indexer follows a throw-away anvil meanwhile. RSS (VmRSS) of every process is
// read once idle (after start) and every --sample-every requests, when the database also gets a
// `vacuum analyze` alongside the load, as autovacuum would (--no-vacuum to leave it out).
//
//   pnpm exec turbo run build && node scripts/bench/soak.ts [--requests 100000] [--in-flight 20] [--sample-every 5000] [--max-minutes 30]
//
// Prints the RSS curve as a Markdown table and one PASS/MISS line per process and target: idle RSS at
// most 120 MiB, at most 200 MiB after all requests, growth from the half-way sample to the last under
// 5 %. The exit code is 1 on any failed request, an undelivered webhook or a missing sample, never on
// a memory target (./scripts/test runs a short form: `--requests 3000`). BENCH_NODE_ARGS="..." adds Node
// flags to every process (after those it has in production: `--max-semi-space-size=0` undoes ours);
// --services-root DIR runs another checkout's built services (a before/after comparison).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import postgres from 'postgres';
import { Agent, request } from 'undici';
import { SERVICE_NODE_FLAGS } from '../lib/stack/processes.ts';
import { cpuMsOf, prepareFourProcesses } from './four-processes.ts';
import { machineLine, markdownTable, writeLinesSection } from './load.ts';
import { benchmarksFile, flag, nodeArgsFrom, numberOption, root, stringOption } from './options.ts';
import { soakVerdicts } from './process-verdicts.ts';
import { checkQuiet, vacuumBenchDatabase } from './rounds.ts';

const REQUESTS = numberOption('requests', 100_000);
const IN_FLIGHT = numberOption('in-flight', 20);
const SAMPLE_EVERY = numberOption('sample-every', Math.max(500, Math.round(REQUESTS / 20)));
const MAX_MINUTES = numberOption('max-minutes', 30);
const servicesRoot = stringOption('services-root');
const nodeArgs = nodeArgsFrom('BENCH_NODE_ARGS');
const log = (message: string) => process.stderr.write(`[soak] ${message}\n`);
const address = () => `0x${randomBytes(20).toString('hex')}`;

interface Sample {
  requests: number;
  seconds: number;
  rss: Record<string, number>;
  cpuMs: Record<string, number>;
}

checkQuiet('soak', flag('write'));
const startLoad = os.loadavg();
const stack = await prepareFourProcesses({
  lane: 'soak',
  ...(servicesRoot ? { servicesRoot } : {}),
});
const names = stack.list.map((s) => s.name);
let receiver: ChildProcess | undefined;
let failed = false;
const samples: Sample[] = [];
const errors = new Map<string, { count: number; first: string }>();
let stoppedEarly = false;
try {
  // The webhook receiver: its own process, answers 200 at once, counts what arrives.
  receiver = spawn(process.execPath, [join(root, 'scripts/bench/receiver.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const receiverLine = (await createInterface({ input: receiver.stdout! })[Symbol.asyncIterator]().next()).value as string;
  const receiverUrl = `http://127.0.0.1:${(JSON.parse(receiverLine) as { port: number }).port}`;
  const deliveredCount = async () => ((await (await request(`${receiverUrl}/stats`)).body.json()) as { count: number }).count;

  await Promise.all(names.map((name) => stack.start(name, nodeArgs)));
  const pids = Object.fromEntries(names.map((name) => [name, stack.pidOf(name)]));
  // Idle: a few seconds after all four are ready, before any request.
  await new Promise((r) => setTimeout(r, 5000));
  const sample = (requests: number, seconds: number) =>
    samples.push({
      requests,
      seconds,
      rss: Object.fromEntries(names.map((n) => [n, stack.rssMiB(n)])),
      cpuMs: Object.fromEntries(names.map((n) => [n, cpuMsOf(pids[n]!)])),
    });
  sample(0, 0);

  const agent = new Agent({ keepAliveTimeout: 30_000, connections: IN_FLIGHT });
  const database = postgres(stack.databaseUrl, { max: 1, onnotice: () => {} });
  let vacuuming: Promise<void> | undefined;
  const call = async (url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) => {
    const res = await request(url, { dispatcher: agent, method: (init.method ?? 'GET') as 'GET', headers: init.headers, body: init.body });
    const text = await res.body.text();
    return { status: res.statusCode, text };
  };
  const json = async (url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown }, expected: number) => {
    const res = await call(url, {
      method: init.method ?? 'POST',
      headers: { 'content-type': 'application/json', ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    if (res.status !== expected) throw new Error(`${url}: ${res.status} ${res.text.slice(0, 300)}`);
    return JSON.parse(res.text) as Record<string, unknown> & { data?: Record<string, unknown> };
  };

  // Payments: a platform with its API key, an OAuth client and a v2 token; a webhook subscription
  // of the platform to transaction.created at the receiver.
  const payments = stack.url('payments-service');
  const admin = { 'x-api-key': stack.adminKey };
  const platform = await json(
    `${payments}/api/v1/auth/api-key`,
    { headers: admin, body: { name: 'soak', scopes: ['read:transactions', 'write:transactions', 'read:webhooks', 'write:webhooks'] } },
    201,
  );
  const client = await json(
    `${payments}/api/v1/oauth/clients`,
    { headers: admin, body: { name: 'soak', scopes: ['read:transactions', 'move:transactions'], platformId: platform.platformId } },
    201,
  );
  const token = (
    await json(
      `${payments}/api/v2/oauth/token`,
      {
        body: {
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: client.clientSecret,
          scope: 'read:transactions move:transactions',
        },
      },
      200,
    )
  ).data?.access_token as string;
  const platformKey = { 'x-api-key': platform.apiKey as string };
  await json(
    `${payments}/api/v1/webhooks`,
    { headers: platformKey, body: { url: `${receiverUrl}/hook`, eventTypes: ['transaction.created'] } },
    201,
  );

  // Workspace: the bootstrap SUPER_ADMIN's session.
  const workspace = stack.url('workspace-service');
  const login = async () =>
    (
      await json(
        `${workspace}/identity/login`,
        { body: { email: stack.workspaceAdmin.email, password: stack.workspaceAdmin.password } },
        200,
      )
    ).data?.accessToken as string;
  let session = await login();

  const bearer = () => ({ authorization: `Bearer ${token}` });
  const recent: string[] = [];
  let created = 0;
  /** One request of the mix, by its number; resolves to an error text, or undefined when it answered as expected. */
  const one = async (i: number): Promise<[string, string] | undefined> => {
    const slot = i % 20;
    if (slot < 7 || recent.length === 0) {
      const res = await call(`${payments}/api/v2/transactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...bearer() },
        // A new sender each time: payments allows 10 creations a minute per sender.
        body: JSON.stringify({ fromAddress: address(), toAddress: address(), amount: '12.50' }),
      });
      if (res.status !== 201) return ['create', `${res.status} ${res.text.slice(0, 200)}`];
      created += 1;
      recent.push((JSON.parse(res.text) as { id: string }).id);
      if (recent.length > 1000) recent.shift();
      return undefined;
    }
    let what: string;
    let res: { status: number; text: string };
    if (slot < 12) {
      what = 'read';
      res = await call(`${payments}/api/v2/transactions/${recent[i % recent.length]}`, { headers: bearer() });
    } else if (slot < 14) {
      what = 'list transactions';
      res = await call(`${payments}/api/v2/transactions?limit=20`, { headers: bearer() });
    } else if (slot === 14) {
      what = 'list webhooks';
      res = await call(`${payments}/api/v1/webhooks`, { headers: platformKey });
    } else if (slot === 19 && i % 100 === 19) {
      try {
        session = await login();
        return undefined;
      } catch (error) {
        return ['workspace login', (error as Error).message];
      }
    } else {
      what = 'workspace list';
      res = await call(`${workspace}/api/v1/${slot % 2 ? 'workspaces' : 'customers'}?limit=20`, {
        headers: { authorization: `Bearer ${session}` },
      });
    }
    return res.status === 200 ? undefined : [what, `${res.status} ${res.text.slice(0, 200)}`];
  };

  log(`${REQUESTS} requests, ${IN_FLIGHT} in flight, RSS every ${SAMPLE_EVERY}`);
  const started = performance.now();
  const deadline = Date.now() + MAX_MINUTES * 60_000;
  let sent = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (sent < REQUESTS) {
        if (Date.now() > deadline) {
          stoppedEarly = true;
          return;
        }
        const i = sent;
        sent += 1;
        const error = await one(i).catch((e: Error): [string, string] => ['transport', e.message]);
        if (error) {
          const entry = errors.get(error[0]) ?? { count: 0, first: error[1] };
          entry.count += 1;
          errors.set(error[0], entry);
        }
        done += 1;
        if (done % SAMPLE_EVERY === 0 || done === REQUESTS) {
          sample(done, (performance.now() - started) / 1000);
          // Alongside the load, as autovacuum would (off on this machine's PostgreSQL: without it
          // the outbox's and the deliveries' dead row versions slowed the soak 3x by its end).
          vacuuming ??= vacuumBenchDatabase(database).finally(() => {
            vacuuming = undefined;
          });
          const last = samples.at(-1)!;
          log(`${done} requests, ${last.seconds.toFixed(0)} s: ${names.map((n) => `${n} ${last.rss[n]!.toFixed(0)} MiB`).join(', ')}`);
        }
      }
    }),
  );
  await agent.close();
  await vacuuming;
  await database.end();

  // Every creation's transaction.created reaches the receiver (at least once).
  const waitUntil = Date.now() + 120_000;
  let delivered = await deliveredCount();
  while (delivered < created && Date.now() < waitUntil) {
    await new Promise((r) => setTimeout(r, 500));
    delivered = await deliveredCount();
  }
  log(`${created} transactions created, ${delivered} webhook deliveries received`);
  if (delivered < created) {
    failed = true;
    log(`MISSING ${created - delivered} webhook deliveries after 120 s`);
  }
  for (const [what, { count, first }] of errors) {
    failed = true;
    log(`${count} failed ${what} requests; the first: ${first}`);
  }
  const expectedSamples = 1 + Math.floor(Math.min(done, REQUESTS) / SAMPLE_EVERY) + (done % SAMPLE_EVERY === 0 ? 0 : 1);
  if (stoppedEarly || samples.length !== expectedSamples || samples.some((s) => names.some((n) => !(s.rss[n]! > 0)))) {
    failed = true;
    log(`sampling: ${samples.length} samples (expected ${expectedSamples})${stoppedEarly ? `; stopped after ${MAX_MINUTES} min` : ''}`);
  }
  report(created, delivered);
} finally {
  if (receiver && receiver.exitCode === null) receiver.kill('SIGTERM');
  await stack.close();
}
if (failed) process.exitCode = 1;

function report(created: number, delivered: number): void {
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const header = ['requests', 'seconds', ...names.map((n) => `${n} RSS (MiB)`)];
  const rows = samples.map((s) => [String(s.requests), s.seconds.toFixed(0), ...names.map((n) => s.rss[n]!.toFixed(1))]);
  const seconds = last.seconds || 1;
  const cpu = names.map((n) => `${n} ${((last.cpuMs[n]! - first.cpuMs[n]!) / Math.max(1, last.requests)).toFixed(2)} ms`).join(', ');
  const lines = [
    `Soak, ${new Date().toISOString()}: Node flags ${[...SERVICE_NODE_FLAGS, ...nodeArgs].join(' ')}; ${last.requests} mixed requests, ${IN_FLIGHT} in flight, ${(last.requests / seconds).toFixed(0)} requests/s; ${created} created, ${delivered} webhook deliveries`,
    `${machineLine(startLoad)}; Node ${process.versions.node}`,
    `CPU time per request (whole process, all requests): ${cpu}`,
    '',
    markdownTable(header, rows),
    '',
  ];
  for (const n of names) lines.push(...soakVerdicts(n, samples));
  writeLinesSection(
    {
      name: 'soak',
      title: 'Soak: RSS of each process over mixed requests',
      command: `node scripts/bench/soak.ts --requests ${REQUESTS}`,
      lines,
    },
    flag('write'),
    benchmarksFile,
  );
}

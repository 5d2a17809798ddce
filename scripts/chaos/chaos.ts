// The chaos suite: the four Holdfast processes (one or two instances each) on a private
// PostgreSQL, NATS and anvil, under steady load; one fault at a time; then a count of what came
// out. Run by ./scripts/chaos/run (every scenario) and, in its short form, by ./scripts/test.
//
//   node scripts/chaos/chaos.ts [--short] [--instances 2] [--rate 30] [scenario ...]
//
// Scenarios: kill-<process> (kill -9, restarted after 3 s), term-<process> (SIGTERM: must exit 0,
// restarted after 3 s), nats-crash (kill -9 of nats-server for 10 s, restarted on its store),
// postgres-crash (pg_ctl -m immediate for 10 s), postgres-failover (a primary with a synchronous
// standby: the primary is killed, the standby promoted a second later, the processes follow it through
// their multi-host DATABASE_URL; always run last, the old primary stays dead), postgres-restore (the
// WAL archive and base backup restored to a moment under load, into a second PostgreSQL: every
// creation answered before that moment is there, none started after it).
// chain-reorg (anvil_reorg replaces the last 3 blocks under load: every escrow locked in them is
// gone; its transaction must not stay escrowed, nothing may be released or refunded on it, and a
// transaction.reorged must say so for each one payments had escrowed).
// <process>: payments, workspace, dispatcher, indexer.
// --nats-cluster: three nats-server nodes with every stream replicated 3 times (NATS_STREAM_REPLICAS),
// and the scenario nats-node-crash (kill -9 of one node for 10 s, restarted on its store).
// Exits 1 when anything was lost, a process died on its own, or a check failed.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { ensureChain, LOCAL_CHAIN_ID, LOCAL_NETWORK } from '../lib/stack/chain.ts';
import { deployLocalContracts } from '../lib/stack/contracts.ts';
import { say } from '../lib/stack/log.ts';
import { portFor } from '../lib/stack/ports.ts';
import { ensureDatabase } from '../lib/stack/postgres.ts';
import { migrateAll, services } from '../lib/stack/processes.ts';
import {
  type Instance,
  instance,
  type PostgresPair,
  type PrivateNats,
  readiness,
  startArchivedPostgres,
  startNats,
  startNatsCluster,
  startPostgres,
  startPostgresPair,
  type WalArchive,
  waitReady,
} from './infra.ts';
import { createTransaction, type Load, setUpPlatform, startLoad, startReceiver } from './load.ts';

const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
const { values, positionals } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    instances: { type: 'string', default: '1' },
    rate: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'nats-cluster': { type: 'boolean', default: false },
  },
  allowPositionals: true,
});

const PROCESSES = {
  payments: 'payments-service',
  workspace: 'workspace-service',
  dispatcher: 'webhook-dispatcher',
  indexer: 'chain-indexer',
} as const;
type ProcessKey = keyof typeof PROCESSES;
const ALL_SCENARIOS = [
  ...Object.keys(PROCESSES).map((p) => `kill-${p}`),
  ...Object.keys(PROCESSES).map((p) => `term-${p}`),
  'nats-crash',
  'postgres-crash',
  'postgres-failover',
  'postgres-restore',
  'chain-reorg',
  'nats-node-crash',
];
const cluster = values['nats-cluster'];
const chosen =
  positionals.length > 0
    ? positionals
    : values.short
      ? ['kill-payments', 'kill-dispatcher', 'postgres-restore', 'chain-reorg', 'postgres-failover']
      : cluster
        ? ['nats-node-crash', 'kill-payments', 'kill-dispatcher']
        : ALL_SCENARIOS.filter((s) => s !== 'nats-node-crash');
// After a failover the old primary is gone for the rest of the run: it goes last.
const scenarios = [...chosen.filter((s) => s !== 'postgres-failover'), ...chosen.filter((s) => s === 'postgres-failover')];
const withStandby = scenarios.includes('postgres-failover');
const withArchive = scenarios.includes('postgres-restore');
if (scenarios.includes('nats-node-crash') && !cluster) throw new Error('nats-node-crash needs --nats-cluster');
if (scenarios.includes('nats-crash') && cluster)
  throw new Error('nats-crash stops a single server; with --nats-cluster use nats-node-crash');
for (const s of scenarios) if (!ALL_SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s} (one of ${ALL_SCENARIOS.join(', ')})`);
const copies = Number(values.instances);
const rate = Number(values.rate ?? (values.short ? 10 : 30));
const PRE_MS = values.short ? 3000 : 5000;
const POST_MS = values.short ? 5000 : 8000;
const SETTLE_TIMEOUT_MS = 120_000;

interface Row {
  scenario: string;
  requests: number;
  created: number;
  failures: Record<string, number>;
  ready503: boolean | null;
  recoverySeconds: number | null;
  exitCode: string;
  lostTransactions: number;
  idempotencyMismatches: number;
  lostEvents: number;
  duplicates: number;
  escrows: string;
  crashed: string[];
  ok: boolean;
  notes: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-chaos-'));
  const logDir = join(dir, 'logs');
  mkdirSync(logDir);
  say(`chaos: private PostgreSQL, NATS and anvil; logs in ${logDir}`);
  const pair = withStandby ? await startPostgresPair(join(dir, 'pg'), { archive: withArchive }) : undefined;
  const archived = !pair && withArchive ? await startArchivedPostgres(join(dir, 'pg')) : undefined;
  const pg = pair?.primary ?? archived?.pg ?? (await startPostgres(join(dir, 'pg')));
  const archive = pair?.archive ?? archived?.archive;
  const databaseUrl = pair?.url ?? pg.url;
  const natsCluster = cluster ? await startNatsCluster(dir) : undefined;
  const nats: Pick<PrivateNats, 'url' | 'stop'> & Partial<PrivateNats> = natsCluster ?? (await startNats(dir));
  const chain = await ensureChain(root, undefined, { ephemeral: true });
  const instances: Instance[] = [];
  let failed = true;
  const cleanup = async () => {
    await Promise.all(instances.map((i) => i.signal('SIGKILL')));
    await chain.started?.stop();
    await nats.stop();
    pg.stop();
    pair?.standby.stop();
    // The run's logs stay for a failed run (or with --keep).
    if (!values.keep && !failed) rmSync(dir, { recursive: true, force: true });
    else say(`chaos: logs and stores kept in ${dir}`);
  };
  // Ctrl-C or a kill stops what the suite started (processes, PostgreSQL, NATS, anvil).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanup().finally(() => process.exit(130)));
  }
  try {
    await ensureDatabase(pg.url);
    await pair?.synchronous();
    const deployment = await deployLocalContracts({ rpcUrl: chain.localRpcUrl!, network: LOCAL_NETWORK, chainId: LOCAL_CHAIN_ID });
    const receiverPort = await portFor(0);
    const receiver = await startReceiver(receiverPort);
    const adminKey = `hf_test_${randomBytes(32).toString('base64url')}`;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      APP_ENV: 'local',
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      NATS_URL: nats.url,
      NATS_STREAM_REPLICAS: cluster ? '3' : '1',
      NATS_SUBJECT_PREFIX: 'chaos.',
      CHAIN_RPC_URLS: chain.rpcUrls,
      PAYMENTS_BOOTSTRAP_API_KEY: adminKey,
      TX_RATE_LIMIT_PER_SENDER: '0',
      RATE_LIMIT_STANDARD: '1000000',
      RATE_LIMIT_HIGH: '1000000',
      RATE_LIMIT_ADMIN: '1000000',
      RATE_LIMIT_PUBLIC: '1000000',
      WEBHOOK_RETRY_SCHEDULE: '1s,2s,5s,10s,10s,10s,10s,10s',
      ...deployment.env,
    };
    await migrateAll(root, env);
    for (const service of services(root)) {
      for (let n = 1; n <= copies; n++) {
        instances.push(await instance({ root, service, label: copies > 1 ? `${service.name}-${n}` : service.name, env, logDir }));
      }
    }
    for (const i of instances) i.start();
    await waitReady(instances, 180_000);
    say(`chaos: ${instances.length} processes ready`);
    const paymentsUrls = () => instances.filter((i) => i.service.name === PROCESSES.payments && i.running()).map((i) => i.url);
    const platform = await setUpPlatform(paymentsUrls()[0]!, adminKey, receiver.url);
    const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });

    const rows: Row[] = [];
    for (const scenario of scenarios) {
      say(`chaos: ▶ ${scenario}`);
      const row = await runScenario({
        scenario,
        instances,
        pg,
        pair,
        archive,
        dir,
        nats,
        natsNodes: natsCluster?.nodes ?? [],
        platform,
        paymentsUrls,
        sql,
        receiver,
        rpcUrl: chain.localRpcUrl!,
      });
      rows.push(row);
      say(`chaos: ${row.ok ? '✔' : '✘'} ${scenario}${row.notes.length ? ` (${row.notes.join('; ')})` : ''}`);
    }
    await sql.end({ timeout: 2 }).catch(() => undefined);
    printTable(rows, { instances: copies, rate });
    failed = !rows.every((r) => r.ok);
    return failed ? 1 : 0;
  } finally {
    await cleanup();
  }
}

async function runScenario(ctx: {
  scenario: string;
  instances: Instance[];
  pg: Awaited<ReturnType<typeof startPostgres>>;
  pair: PostgresPair | undefined;
  archive: WalArchive | undefined;
  dir: string;
  nats: Partial<PrivateNats>;
  natsNodes: PrivateNats[];
  platform: Awaited<ReturnType<typeof setUpPlatform>>;
  paymentsUrls: () => string[];
  sql: postgres.Sql;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  rpcUrl: string;
}): Promise<Row> {
  const { scenario, instances } = ctx;
  const notes: string[] = [];
  const exitsBefore = new Map(instances.map((i) => [i, i.unexpectedExits.length]));
  const duplicatesBefore = duplicatesSoFar(ctx.receiver.received);
  const load: Load = startLoad({
    paymentsUrls: ctx.paymentsUrls,
    platform: ctx.platform,
    ratePerSecond: rate,
    rpcUrl: ctx.rpcUrl,
    chainId: LOCAL_CHAIN_ID,
    escrowEvery: 10,
  });
  // Readiness of every instance, twice a second.
  const readinessLog: { at: number; label: string; status: number }[] = [];
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      await Promise.all(instances.map(async (i) => readinessLog.push({ at: Date.now(), label: i.label, status: await readiness(i.url) })));
      await sleep(500);
    }
  })();

  await sleep(PRE_MS);
  const [kind, target] = scenario.split('-') as [string, string];
  let outageStart = Date.now();
  let outageEnd = outageStart;
  let exitCode = '';
  let restoreFailed = false;
  let failover = '';
  if (kind === 'kill' || kind === 'term') {
    // One instance of the process: with two, the other keeps serving. Of two indexers, the leader.
    const candidates = instances.filter((i) => i.service.name === PROCESSES[target as ProcessKey]);
    const leaders = target === 'indexer' ? await Promise.all(candidates.map((i) => isLeader(i.url))) : [];
    const victim = candidates[Math.max(0, leaders.indexOf(true))]!;
    const survivor = candidates.find((i) => i !== victim);
    outageStart = Date.now();
    const code = await victim.signal(kind === 'kill' ? 'SIGKILL' : 'SIGTERM');
    if (target === 'indexer' && survivor) {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && !(await isLeader(survivor.url))) await sleep(100);
      failover = (await isLeader(survivor.url)) ? `${((Date.now() - outageStart) / 1000).toFixed(1)} s` : 'none in 60 s';
      notes.push(`indexer lease taken over by ${survivor.label} ${failover.startsWith('none') ? 'never' : `in ${failover}`}`);
    }
    if (kind === 'term') {
      exitCode = `${code} in ${((Date.now() - outageStart) / 1000).toFixed(1)} s`;
      if (code !== 0) notes.push(`SIGTERM exit code ${code}, expected 0`);
    }
    await sleep(3000);
    outageEnd = Date.now();
    victim.start();
  } else if (scenario === 'nats-crash') {
    outageStart = Date.now();
    await ctx.nats.kill?.();
    await sleep(10_000);
    outageEnd = Date.now();
    await ctx.nats.start?.();
  } else if (scenario === 'nats-node-crash') {
    // The first node; the other two keep a quorum and the services move to them by themselves.
    const node = ctx.natsNodes[0]!;
    outageStart = Date.now();
    await node.kill();
    await sleep(10_000);
    outageEnd = Date.now();
    await node.start();
  } else if (scenario === 'postgres-restore') {
    // No outage: a point in time under load, then the archive restored to it in a second server.
    outageStart = Date.now();
    const restored = await restoreCheck(ctx, load);
    notes.push(...restored.notes);
    if (!restored.ok) restoreFailed = true;
    outageEnd = Date.now();
  } else if (scenario === 'chain-reorg') {
    // No outage: the chain replaces its last blocks (anvil_reorg, nothing mined again in them).
    outageStart = Date.now();
    await rpc(ctx.rpcUrl, 'anvil_reorg', [REORG_DEPTH, []]);
    outageEnd = Date.now();
    notes.push(`anvil_reorg replaced the last ${REORG_DEPTH} blocks`);
  } else if (scenario === 'postgres-failover') {
    // The primary dies; a second later (CloudNativePG's detection of a dead primary is of that order)
    // the synchronous standby is promoted. Nothing restarts the old primary.
    outageStart = Date.now();
    ctx.pair!.primary.crash();
    await sleep(1000);
    ctx.pair!.standby.promote();
    outageEnd = Date.now();
    notes.push(`standby promoted ${((outageEnd - outageStart) / 1000).toFixed(1)} s after the primary died`);
  } else {
    outageStart = Date.now();
    ctx.pg.crash();
    await sleep(10_000);
    outageEnd = Date.now();
    await ctx.pg.start();
  }
  // Recovered: every instance ready again and a creation started after the restart answered 201.
  let recoverySeconds: number | null = null;
  const recoveryDeadline = Date.now() + 120_000;
  while (Date.now() < recoveryDeadline) {
    const ready = (await Promise.all(instances.map((i) => readiness(i.url)))).every((s) => s === 200);
    const served = load.creations.some((c) => c.at >= outageEnd && c.status === 201);
    if (ready && served) {
      recoverySeconds = (Date.now() - outageEnd) / 1000;
      break;
    }
    await sleep(250);
  }
  if (recoverySeconds === null) notes.push('did not recover within 120 s');
  await sleep(POST_MS);
  await load.stop();
  watching = false;
  await watcher;
  // Locks the chain no longer holds (a reorg): they are not expected to be escrowed; checked below.
  const removed = scenario === 'chain-reorg' ? await removedLocks(ctx.rpcUrl, load) : [];

  // Settle: every event of ours published and delivered, every locked escrow applied.
  const settled = await settle(ctx, load);
  if (!settled) notes.push(`not settled within ${SETTLE_TIMEOUT_MS / 1000} s`);

  const creations = load.creations;
  const during = creations.filter((c) => c.at >= outageStart - 1000 && c.at <= outageEnd + (recoverySeconds ?? 0) * 1000);
  const failures: Record<string, number> = {};
  for (const c of during) {
    if (c.status === 201) continue;
    const label = c.status === 0 ? (c.error ?? 'error') : String(c.status);
    failures[label] = (failures[label] ?? 0) + 1;
  }
  const otherFailures = creations.filter((c) => !during.includes(c) && c.status !== 201);
  if (otherFailures.length > 0)
    notes.push(
      `${otherFailures.length} failures outside the outage (${[...new Set(otherFailures.map((c) => c.status || c.error))].join(', ')})`,
    );

  if (load.lastLockError && load.locked.size === 0) notes.push(`escrow locker: ${load.lastLockError}`);
  const verify = await verifyScenario(ctx, load);
  let reorgOk = true;
  if (scenario === 'chain-reorg') {
    const checked = await checkRemovedLocks(ctx.sql, removed);
    notes.push(...checked.notes);
    reorgOk = checked.ok;
  }
  // The retries created the transactions the outage refused: their events must arrive too.
  if (!(await settle(ctx, load))) notes.push("the retries' events did not settle");
  const { undelivered } = await pending(ctx);
  if (undelivered.length > 0) notes.push(`${undelivered.length} events never delivered`);
  notes.push(...verify.notes);

  const inOutage = readinessLog.filter((r) => r.at >= outageStart && r.at <= outageEnd);
  // A dependency down: readiness must say so. A process killed, one node of three, a reorg: n/a.
  // A failover's outage is the second before the promotion: too short to require a 503 in it.
  const ready503 =
    kind === 'kill' ||
    kind === 'term' ||
    scenario === 'nats-node-crash' ||
    scenario === 'postgres-failover' ||
    scenario === 'postgres-restore' ||
    scenario === 'chain-reorg'
      ? null
      : inOutage.some((r) => r.status === 503);
  if (ready503 === false) notes.push('no 503 from /health/ready during the outage');
  const crashed = instances.filter((i) => i.unexpectedExits.length > (exitsBefore.get(i) ?? 0)).map((i) => i.label);
  if (crashed.length > 0) notes.push(`died on their own: ${crashed.join(', ')} (see their logs)`);
  for (const i of instances) if (!i.running()) i.start();

  const row: Row = {
    scenario,
    requests: creations.length,
    created: creations.filter((c) => c.status === 201).length,
    failures,
    ready503,
    recoverySeconds,
    exitCode,
    lostTransactions: verify.lostTransactions,
    idempotencyMismatches: verify.idempotencyMismatches,
    lostEvents: undelivered.length,
    duplicates: duplicatesSoFar(ctx.receiver.received) - duplicatesBefore,
    escrows: `${verify.escrowedOnce}/${load.locked.size}`,
    crashed,
    notes,
    ok: false,
  };
  row.ok =
    settled &&
    recoverySeconds !== null &&
    row.lostTransactions === 0 &&
    row.idempotencyMismatches === 0 &&
    row.lostEvents === 0 &&
    verify.escrowedOnce === load.locked.size &&
    crashed.length === 0 &&
    ready503 !== false &&
    !(kind === 'term' && !exitCode.startsWith('0 ')) &&
    !failover.startsWith('none') &&
    !restoreFailed &&
    reorgOk;
  return row;
}

/**
 * The restore of a backup, as infra/k8s's runbook does it with CloudNativePG (base backup plus the
 * WAL archive, recovered to a target time), here into a second private PostgreSQL: a moment is
 * taken under load, the primary's WAL is switched so the archive covers it, and the restored server
 * must hold every creation answered 201 before the moment and none sent after it (a margin of half
 * a second either side for the client's clock against the server's commit).
 */
async function restoreCheck(ctx: Parameters<typeof runScenario>[0], load: Load): Promise<{ ok: boolean; notes: string[] }> {
  if (!ctx.archive) throw new Error('postgres-restore needs the WAL archive (it is set up when the scenario is named)');
  const [{ target }] = (await ctx.sql`select now()::text as target`) as unknown as [{ target: string }];
  const targetMs = Date.now();
  await sleep(2000);
  // Close the segment holding the target so it reaches the archive (archive_timeout would, later).
  const [{ segment }] = (await ctx.sql`select pg_walfile_name(pg_switch_wal()) as segment`) as unknown as [{ segment: string }];
  const archivedBy = Date.now() + 30_000;
  for (;;) {
    const [row] = await ctx.sql<{ last: string | null }[]>`select last_archived_wal as last from pg_stat_archiver`;
    if (row?.last && row.last >= segment) break;
    if (Date.now() > archivedBy) return { ok: false, notes: [`WAL segment ${segment} not archived within 30 s`] };
    await sleep(100);
  }
  const t0 = Date.now();
  const restored = await ctx.archive.restore(join(ctx.dir, `restored-${t0}`), target);
  const seconds = (Date.now() - t0) / 1000;
  const sql = postgres(restored.url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ key: string; id: string }[]>`
      select idempotency_key as key, id::text as id from payments.transactions where platform_id = ${ctx.platform.platformId}`;
    const byKey = new Map(rows.map((r) => [r.key, r.id]));
    const before = load.creations.filter((c) => c.status === 201 && (c.answeredAt ?? Infinity) < targetMs - 500);
    const missing = before.filter((c) => byKey.get(c.key) !== c.id);
    const after = load.creations.filter((c) => c.at > targetMs + 500 && byKey.has(c.key));
    const notes = [
      `restored to ${target} in ${seconds.toFixed(1)} s: ${before.length - missing.length} of the ${before.length} creations answered before it, ${after.length} sent after it`,
    ];
    if (missing.length > 0) notes.push(`${missing.length} creations answered 201 before the target are missing from the restore`);
    if (after.length > 0) notes.push(`${after.length} creations sent after the target are in the restore`);
    return { ok: missing.length === 0 && after.length === 0 && before.length > 0, notes };
  } finally {
    await sql.end({ timeout: 1 });
    restored.stop();
  }
}

const REORG_DEPTH = 3;

/** A JSON-RPC call to the private anvil. */
async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/** The locked transactions whose lock is no longer on the chain, taken out of `load.locked`. */
async function removedLocks(rpcUrl: string, load: Load): Promise<string[]> {
  const removed: string[] = [];
  for (const [id, hash] of load.locked) {
    if ((await rpc<unknown>(rpcUrl, 'eth_getTransactionReceipt', [hash])) === null) removed.push(id);
  }
  for (const id of removed) load.locked.delete(id);
  return removed;
}

/**
 * No money moved on a removed block: each transaction whose lock a reorg removed is back before
 * escrow (pending), has no release or refund sent or done, and, when payments had escrowed it, one
 * `transaction.reorged` per `transaction.escrowed` it had.
 */
async function checkRemovedLocks(sql: postgres.Sql, ids: string[]): Promise<{ ok: boolean; notes: string[] }> {
  if (ids.length === 0) return { ok: true, notes: ['the reorg removed no lock (none in the last blocks)'] };
  const rows = await sql<{ id: string; status: string; paid: number; escrowed: number; reorged: number }[]>`
    select t.id::text, t.status,
      (select count(*) from payments.settlements s where s.transaction_id = t.id and s.status in ('sending', 'done'))::int as paid,
      (select count(*) from payments.outbox o where o.type = 'transaction.escrowed'
         and o.payload->'data'->'transaction'->>'id' = t.id::text)::int as escrowed,
      (select count(*) from payments.outbox o where o.type = 'transaction.reorged'
         and o.payload->'data'->'transaction'->>'id' = t.id::text)::int as reorged
    from payments.transactions t where t.id = any(${ids}::uuid[])`;
  const notBack = rows.filter((r) => r.status !== 'pending' && r.status !== 'pending_user_action');
  const paid = rows.filter((r) => r.paid > 0);
  const unannounced = rows.filter((r) => r.reorged !== r.escrowed);
  const notes = [`${ids.length} locks removed by the reorg, ${rows.filter((r) => r.reorged > 0).length} announced as transaction.reorged`];
  if (notBack.length > 0) notes.push(`${notBack.length} of them not back to pending (${notBack.map((r) => r.status).join(', ')})`);
  if (paid.length > 0) notes.push(`${paid.length} of them had a release or refund sent: money moved on a removed block`);
  if (unannounced.length > 0) notes.push(`${unannounced.length} of them escrowed without a transaction.reorged for each escrow`);
  return { ok: notBack.length === 0 && paid.length === 0 && unannounced.length === 0 && rows.length === ids.length, notes };
}

/** Whether this chain-indexer instance holds the local network's lease (its metrics say). */
async function isLeader(url: string): Promise<boolean> {
  try {
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(2000) })).text();
    return /^chain_indexer_leader\{[^}]*network="base-sepolia"[^}]*\} 1$/m.test(text);
  } catch {
    return false;
  }
}

/** Deliveries beyond the first of each event, since the start of the run. */
function duplicatesSoFar(received: { byEvent: Map<string, number> }): number {
  let n = 0;
  for (const count of received.byEvent.values()) n += count - 1;
  return n;
}

/** Our events in the payments outbox that are not yet published, or published and not received. */
async function pending(ctx: {
  sql: postgres.Sql;
  platform: { platformId: string };
  receiver: { received: { byEvent: Map<string, number> } };
}) {
  const rows = await ctx.sql<{ id: string; published: boolean }[]>`
    select id, published_at is not null as published from payments.outbox
    where type like 'transaction.%' and payload->>'platformId' = ${ctx.platform.platformId}`;
  return { all: rows.map((r) => r.id), undelivered: rows.filter((r) => !ctx.receiver.received.byEvent.has(r.id)).map((r) => r.id) };
}

async function escrowedCount(sql: postgres.Sql, ids: string[]): Promise<Map<string, { status: string; events: number }>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: string; status: string; events: number }[]>`
    select t.id::text, t.status,
      (select count(*)::int from payments.outbox o
        where o.type = 'transaction.escrowed' and o.payload->'data'->'transaction'->>'id' = t.id::text) as events
    from payments.transactions t where t.id = any(${ids}::uuid[])`;
  return new Map(rows.map((r) => [r.id, { status: r.status, events: r.events }]));
}

async function settle(ctx: Parameters<typeof pending>[0], load: Load): Promise<boolean> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      const { undelivered } = await pending(ctx);
      const escrows = await escrowedCount(ctx.sql, [...load.locked.keys()]);
      const allEscrowed = [...load.locked.keys()].every((id) => escrows.get(id)?.status === 'escrowed');
      if (undelivered.length === 0 && allEscrowed) return true;
    } catch {
      // PostgreSQL still coming back
    }
    await sleep(1000);
  }
  return false;
}

async function verifyScenario(
  ctx: Parameters<typeof pending>[0] & { paymentsUrls: () => string[]; platform: Awaited<ReturnType<typeof setUpPlatform>> },
  load: Load,
): Promise<{
  lostTransactions: number;
  idempotencyMismatches: number;
  escrowedOnce: number;
  notes: string[];
}> {
  const notes: string[] = [];
  const keys = load.creations.map((c) => c.key);
  const stored = await ctx.sql<{ key: string; id: string; n: number }[]>`
    select idempotency_key as key, min(id::text) as id, count(*)::int as n from payments.transactions
    where platform_id = ${ctx.platform.platformId} and idempotency_key = any(${keys})
    group by idempotency_key`;
  const byKey = new Map(stored.map((r) => [r.key, r]));
  // Every 201 exists, under its key, once.
  const lost = load.creations.filter((c) => c.status === 201 && byKey.get(c.key)?.id !== c.id);
  let mismatches = stored.filter((r) => r.n > 1).length;
  // A client retry with the same key returns the same transaction: every failed request, and 20 of the 201s.
  const retried = [...load.creations.filter((c) => c.status !== 201), ...load.creations.filter((c) => c.status === 201).slice(0, 20)];
  for (const c of retried) {
    const before = byKey.get(c.key)?.id ?? c.id;
    const again = await createTransaction(ctx.paymentsUrls(), ctx.platform, c.key, c.body);
    if (again.status !== 201 && again.status !== 200) {
      mismatches += 1;
      notes.push(`retry of ${c.key} answered ${again.status || again.error}`);
    } else if (before && again.id !== before) {
      mismatches += 1;
      notes.push(`retry of ${c.key} returned ${again.id}, first ${before}`);
    }
  }
  const escrows = await escrowedCount(ctx.sql, [...load.locked.keys()]);
  const escrowedOnce = [...load.locked.keys()].filter(
    (id) => escrows.get(id)?.status === 'escrowed' && escrows.get(id)?.events === 1,
  ).length;
  if (lost.length > 0) notes.push(`${lost.length} answered 201 but missing`);
  return {
    lostTransactions: lost.length,
    idempotencyMismatches: mismatches,
    escrowedOnce,
    notes,
  };
}

function printTable(rows: Row[], run: { instances: number; rate: number }): void {
  const header = [
    'scenario',
    'requests',
    '201s',
    'failures during outage',
    'ready 503',
    'recovery s',
    'SIGTERM exit',
    'lost tx',
    'idem. mismatch',
    'lost events',
    'duplicates',
    'escrowed once',
    'ok',
  ];
  const lines = rows.map((r) => [
    r.scenario,
    String(r.requests),
    String(r.created),
    Object.entries(r.failures)
      .map(([k, v]) => `${k}×${v}`)
      .join(' ') || '-',
    r.ready503 === null ? 'n/a' : r.ready503 ? 'yes' : 'NO',
    r.recoverySeconds === null ? 'never' : r.recoverySeconds.toFixed(1),
    r.exitCode || '-',
    String(r.lostTransactions),
    String(r.idempotencyMismatches),
    String(r.lostEvents),
    String(r.duplicates),
    r.escrows,
    r.ok ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(`\nchaos: ${run.instances} instance(s) of each process, ${run.rate} creations/s, ${new Date().toISOString()}\n`);
  process.stdout.write(`${fmt(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n`);
  for (const l of lines) process.stdout.write(`${fmt(l)}\n`);
  for (const r of rows) for (const n of r.notes) process.stdout.write(`  ${r.scenario}: ${n}\n`);
}

process.exit(await main());

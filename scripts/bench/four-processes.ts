// The four built processes as the soak and start-up benchmarks run them: a fresh database migrated by
// each service's bundle/migrate.js, a throw-away anvil with the contracts deployed, the shared NATS
// under a subject prefix of this run, free ports, rate limits far above the load. Each process is
// started (and stopped) on its own, so that its start-to-ready time and its RSS can be read.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { ensureChain, LOCAL_CHAIN_ID, LOCAL_NETWORK } from '../lib/stack/chain.ts';
import { deployLocalContracts } from '../lib/stack/contracts.ts';
import { deletePrefixedStreams } from '../lib/stack/nats.ts';
import { portFor } from '../lib/stack/ports.ts';
import {
  migrateAll,
  productionEntry,
  SERVICE_ENV,
  SERVICE_NODE_FLAGS,
  type ServiceInfo,
  services,
  stopProcess,
} from '../lib/stack/processes.ts';
import { benchServiceEnv, processCpuMs, withDatabase } from './load.ts';
import { databaseUrl as defaultDatabaseUrl, natsUrl as defaultNatsUrl, root } from './options.ts';

export interface FourProcesses {
  list: ServiceInfo[];
  /** The run's database (every process's). */
  databaseUrl: string;
  /** Base URL of a process (http://127.0.0.1:port). */
  url: (name: string) => string;
  adminKey: string;
  workspaceAdmin: { email: string; password: string };
  /**
   * Starts a process (with the Node flags and environment it has in production, then `nodeArgs`) and resolves once its /health/ready answers 200, with the time that took and the
   * CPU time the process spent until then (less sensitive to other load on the machine than the time).
   */
  start: (name: string, nodeArgs?: string[]) => Promise<{ readyMs: number; cpuMs: number }>;
  stop: (name: string) => Promise<void>;
  pidOf: (name: string) => number;
  /** Resident set size of a running process, in MiB (VmRSS of /proc/<pid>/status). */
  rssMiB: (name: string) => number;
  close: () => Promise<void>;
}

/** User plus system CPU time of a running process so far, in ms (/proc/<pid>/stat). */
export function cpuMsOf(pid: number): number {
  const ms = processCpuMs(pid);
  if (ms === undefined) throw new Error(`no CPU time for process ${pid}`);
  return ms;
}

export function rssMiBOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

async function readyWithin(url: string, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode} before it was ready`);
    const ok = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(1000) }).then(
      async (res) => {
        await res.arrayBuffer();
        return res.status === 200;
      },
      () => false,
    );
    if (ok) return;
    // Polled often: this is the start-to-ready measurement.
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${url} was not ready within ${Math.round(timeoutMs / 1000)} s`);
}

export async function prepareFourProcesses(options: {
  lane: string;
  /** The PostgreSQL and NATS to run on (the benchmarks' defaults: options.ts). */
  databaseUrl?: string;
  natsUrl?: string;
  /** Another checkout whose built services to run (to compare two builds in one run); this one's by default. */
  servicesRoot?: string;
  /** Variables added to every process's environment. */
  env?: NodeJS.ProcessEnv;
}): Promise<FourProcesses> {
  const { databaseUrl = defaultDatabaseUrl, natsUrl = defaultNatsUrl } = options;
  const database = `hf_${options.lane}_${randomBytes(4).toString('hex')}`;
  const prefix = `${options.lane}${randomBytes(3).toString('hex')}.`;
  const admin = postgres(withDatabase(databaseUrl, 'postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${database}"`);
  const chain = await ensureChain(root, undefined, { ephemeral: true });
  const list = services(options.servicesRoot ?? root);
  const ports = Object.fromEntries(await Promise.all(list.map(async (s) => [s.name, await portFor(0)] as const)));
  const running = new Map<string, ChildProcess>();
  const adminKey = `hf_test_${randomBytes(32).toString('base64url')}`;
  const workspaceAdmin = { email: 'soak@holdfast.local', password: `Hf-${randomBytes(12).toString('base64url')}1!` };
  const close = async () => {
    await Promise.all([...running.keys()].map((name) => stop(name)));
    await chain.started?.stop();
    await deletePrefixedStreams(natsUrl, prefix).catch(() => undefined);
    await admin.unsafe(`drop database if exists "${database}" with (force)`);
    await admin.end();
  };
  const stop = async (name: string) => {
    const child = running.get(name);
    running.delete(name);
    if (child) await stopProcess(child);
  };
  try {
    const deployment = await deployLocalContracts({ rpcUrl: chain.localRpcUrl!, network: LOCAL_NETWORK, chainId: LOCAL_CHAIN_ID });
    const env: NodeJS.ProcessEnv = {
      ...SERVICE_ENV,
      ...benchServiceEnv(withDatabase(databaseUrl, database), natsUrl, prefix),
      CHAIN_RPC_URLS: chain.rpcUrls,
      PAYMENTS_BOOTSTRAP_API_KEY: adminKey,
      WORKSPACE_BOOTSTRAP_EMAIL: workspaceAdmin.email,
      WORKSPACE_BOOTSTRAP_PASSWORD: workspaceAdmin.password,
      ...deployment.env,
      ...Object.fromEntries(list.map((s) => [s.portEnv, String(ports[s.name])])),
      ...options.env,
    };
    await migrateAll(options.servicesRoot ?? root, env);
    const url = (name: string) => `http://127.0.0.1:${ports[name]}`;
    const pidOf = (name: string) => {
      const pid = running.get(name)?.pid;
      if (pid === undefined) throw new Error(`${name} is not running`);
      return pid;
    };
    return {
      list,
      databaseUrl: withDatabase(databaseUrl, database),
      url,
      adminKey,
      workspaceAdmin,
      start: async (name, nodeArgs = []) => {
        const service = list.find((s) => s.name === name);
        if (!service) throw new Error(`no service ${name}`);
        const t0 = performance.now();
        const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...nodeArgs, productionEntry(service.dir, 'main')], {
          // The service's own variables (holdfast.env: what its Dockerfile sets) before the caller's.
          env: { ...env, ...service.env, ...options.env },
          cwd: root,
          stdio: ['ignore', 'inherit', 'inherit'],
        });
        running.set(name, child);
        await readyWithin(url(name), 120_000, child);
        return { readyMs: performance.now() - t0, cpuMs: cpuMsOf(child.pid!) };
      },
      stop,
      pidOf,
      rssMiB: (name) => rssMiBOf(pidOf(name)),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { labeller, say } from './log.ts';
import { waitFor } from './ports.ts';

export interface ServiceInfo {
  name: string;
  dir: string;
  schema: string;
  port: number;
  portEnv: string;
  /** Variables of this service's process alone (its Dockerfile's `ENV` too), after SERVICE_ENV. */
  env?: Record<string, string>;
}

/**
 * Node flags of every service process, here and in infra/docker/*.Dockerfile, infra/k8s/base/*.yaml and
 * each service's `start` script:
 * - a young generation of at most 2 × 8 MiB. Node sizes it from the machine's memory otherwise
 *   (2 × 64 MiB on 16 GiB and more), and a busy process filled it, which was most of its RSS
 *   (docs/adr/0029-start-up-and-memory.md has the measurements);
 * - the old generation collected once it has grown by half of what was live after the last
 *   collection. V8 otherwise lets it grow by up to 4 times under load before collecting, and keeps
 *   the pages: payments-service held 96 MiB of old space for about 30 MiB live
 *   (docs/adr/0031-service-bundles.md);
 * - V8's collector exposed (`gc`), for one memory-reducing collection a second after the process is
 *   ready: start-up leaves the young generation at its cap and the old one part empty, and an idle
 *   process never allocates enough for V8 to give those pages back by itself (12 to 20 MiB each;
 *   packages/runtime/src/startup-heap.ts, docs/adr/0037-start-up-garbage-collected.md).
 */
export const SERVICE_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50', '--expose-gc'];
/**
 * Environment of every service process, here and in the Dockerfiles: glibc serves allocations over
 * 128 KiB by mmap and gives them back on free. By default it raises that threshold after the first
 * such free, so argon2id's 19 MiB per password check stayed in malloc's arenas, one per libuv thread
 * (workspace-service: +43 MiB after a few logins; ADR 29). A service's own variables are in the
 * `holdfast.env` of its package.json (workspace-service's two malloc arenas, ADR 42).
 */
export const SERVICE_ENV = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** The environment of a service's process: SERVICE_ENV, then its own (`holdfast.env`). */
export const serviceEnvOf = (service: ServiceInfo): Record<string, string> => ({ ...SERVICE_ENV, ...service.env });

/**
 * The file production runs for a service's entry (`main`, `migrate`): its bundle, made by its build
 * (scripts/bundle-service.ts; docs/adr/0031-service-bundles.md), as in the Dockerfiles and infra/k8s.
 */
export function productionEntry(serviceDir: string, entry: 'main' | 'migrate' | 'nats-setup'): string {
  return join(serviceDir, 'bundle', `${entry}.js`);
}

/** The services, from each package.json's `holdfast` field (schema, default port, port variable). */
export function services(root: string): ServiceInfo[] {
  const dir = join(root, 'services');
  return readdirSync(dir)
    .map((name) => ({ name, manifest: JSON.parse(readFileSync(join(dir, name, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.holdfast)
    .map(({ name, manifest }) => ({ name, dir: join(dir, name), ...manifest.holdfast }));
}

/** The service whose package is at `serviceDir` (any checkout's: a bench may measure another build). */
export function serviceAt(serviceDir: string): ServiceInfo {
  const manifest = JSON.parse(readFileSync(join(serviceDir, 'package.json'), 'utf8'));
  if (!manifest.holdfast) throw new Error(`${serviceDir} is not a service (no "holdfast" in its package.json)`);
  return { name: basename(serviceDir), dir: serviceDir, ...manifest.holdfast };
}

function runToEnd(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

/**
 * The NATS setup (streams and durable consumers: payments-service's bundle/nats-setup.js, as the NATS
 * user `nats-setup` from `envOf`), which the processes only bind to: run before they start.
 */
export async function setUpNats(
  root: string,
  env: NodeJS.ProcessEnv,
  envOf: (service: string) => NodeJS.ProcessEnv = () => ({}),
): Promise<void> {
  const entry = productionEntry(join(root, 'services', 'payments-service'), 'nats-setup');
  // A checkout from before the setup existed (a bench measuring an older build): its processes make their own.
  if (!existsSync(entry)) return;
  await runToEnd(process.execPath, [entry], { ...env, ...envOf('nats-setup') }, root);
}

/**
 * The NATS setup, then each service's migrations with its process's configuration (`envOf`: its
 * NATS user, which production requires).
 */
export async function migrateAll(
  root: string,
  env: NodeJS.ProcessEnv,
  envOf: (service: string) => NodeJS.ProcessEnv = () => ({}),
): Promise<void> {
  await setUpNats(root, env, envOf);
  for (const service of services(root)) {
    await runToEnd(process.execPath, [productionEntry(service.dir, 'migrate')], { ...env, ...envOf(service.name) }, root);
  }
  say('NATS set up, migrations applied');
}

export interface RunningStack {
  /** Resolves when any process exits (its name and code) . */
  exited: Promise<{ name: string; code: number | null }>;
  stop: () => Promise<void>;
}

/** Runs every service's production entry (its bundled main.js) with interleaved, labelled logs; `envOf` adds a process's own variables (its NATS user). */
export function runAll(
  root: string,
  env: NodeJS.ProcessEnv,
  list = services(root),
  envOf: (service: string) => NodeJS.ProcessEnv = () => ({}),
): RunningStack {
  const label = labeller(list.map((s) => s.name));
  const children: { name: string; child: ChildProcess }[] = [];
  let stopping = false;
  const exited = new Promise<{ name: string; code: number | null }>((resolve) => {
    for (const service of list) {
      // Own process group: a terminal's Ctrl-C reaches only the stack, which then stops each
      // process once, in order, instead of every process getting the signal twice.
      const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, productionEntry(service.dir, 'main')], {
        env: { ...serviceEnvOf(service), ...env, ...envOf(service.name) },
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      process.once('exit', () => child.kill('SIGKILL'));
      for (const stream of [child.stdout, child.stderr]) {
        createInterface({ input: stream! }).on('line', (line) => process.stdout.write(`${label(service.name, line)}\n`));
      }
      child.once('exit', (code) => {
        if (!stopping) resolve({ name: service.name, code });
      });
      children.push({ name: service.name, child });
    }
  });
  return {
    exited,
    stop: async () => {
      stopping = true;
      await Promise.all(children.map(({ child }) => stopProcess(child)));
    },
  };
}

/** SIGTERM, and SIGKILL if the process has not exited `graceMs` later; resolves once it exited. */
export async function stopProcess(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
  clearTimeout(force);
}

export async function waitAllReady(list: ServiceInfo[], ports: Record<string, number>, timeoutMs: number): Promise<void> {
  await Promise.all(
    list.map((service) =>
      waitFor(
        `${service.name} /health/ready`,
        async () =>
          (await fetch(`http://127.0.0.1:${ports[service.name]}/health/ready`, { signal: AbortSignal.timeout(2000) })).status === 200,
        timeoutMs,
      ),
    ),
  );
}

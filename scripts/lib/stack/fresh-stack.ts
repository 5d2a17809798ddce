import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { ensureChain } from './chain.ts';
import { type PermissionedNats, startPermissionedNats } from './nats.ts';
import { portFor } from './ports.ts';
import { migrateAll, runAll, type ServiceInfo, services, waitAllReady } from './processes.ts';

/** What a start on a fresh stack (withFreshStack) runs against. */
export interface FreshStack {
  list: ServiceInfo[];
  /** Each process's port. */
  ports: Record<string, number>;
  /** The NATS subject prefix of the run. */
  prefix: string;
  chain: Awaited<ReturnType<typeof ensureChain>>;
  nats: PermissionedNats;
}

/**
 * The four processes, migrated and started from their bundles (bundle/) on a fresh database, a throw-away anvil
 * and a NATS of their own where each process connects as its own user with only its own subjects
 * (infra/nats). `env` gives each process's variables beyond the database URL, subject prefix and
 * ports; `use` runs once every process is ready. Then everything stops and the database is dropped.
 * `tag` names the run's database and subject prefix, `what` the run in its errors.
 */
export async function withFreshStack(
  root: string,
  options: { tag: string; what: string; databaseUrl: string; env: (stack: FreshStack) => Promise<NodeJS.ProcessEnv> | NodeJS.ProcessEnv },
  use: (stack: FreshStack) => Promise<void> = async () => {},
): Promise<void> {
  const { tag } = options;
  const database = `hf_${tag}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(options.databaseUrl.replace(/\/[^/?]*(\?|$)/, '/postgres$1'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${database}"`);
  const chain = await ensureChain(root, undefined, { ephemeral: true });
  const list = services(root);
  const ports = Object.fromEntries(await Promise.all(list.map(async (s) => [s.name, await portFor(0)] as const)));
  const prefix = `${tag}${randomBytes(3).toString('hex')}.`;
  const nats = await startPermissionedNats(prefix);
  let running: ReturnType<typeof runAll> | undefined;
  try {
    const stack = { list, ports, prefix, chain, nats };
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      LOG_LEVEL: 'warn',
      DATABASE_URL: options.databaseUrl.replace(/\/[^/?]*(\?|$)/, `/${database}$1`),
      NATS_SUBJECT_PREFIX: prefix,
      CHAIN_RPC_URLS: chain.rpcUrls,
      ...(await options.env(stack)),
      ...Object.fromEntries(list.map((s) => [s.portEnv, String(ports[s.name])])),
    };
    await migrateAll(root, env, nats.envOf);
    running = runAll(root, env, list, nats.envOf);
    await Promise.race([
      waitAllReady(list, ports, 60_000),
      running.exited.then(({ name, code }) => {
        throw new Error(`${name} exited with ${code} during the ${options.what}`);
      }),
    ]);
    await use(stack);
  } finally {
    await running?.stop();
    await chain.started?.stop();
    await nats.stop();
    await admin.unsafe(`drop database if exists "${database}" with (force)`);
    await admin.end();
  }
}

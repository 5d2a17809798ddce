import { createTestDatabase, type TestDatabase } from '@holdfast/db/testing';
import { type ReadinessBody, type ServiceHandle, startForTest } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { createTestBus, type TestBus } from '@holdfast/messaging/testing';
import { type Anvil, startAnvil } from './anvil.js';
import { testLogger } from './logger.js';
import { testRedisUrl } from './redis.js';

export interface TestService<C> {
  /** Base URL of the running service, e.g. http://127.0.0.1:41234 */
  url: string;
  config: C;
  db: TestDatabase;
  nats: TestBus;
  anvil: Anvil | undefined;
  /** Environment the service was configured from (database, NATS prefix, chain). */
  env: Record<string, string>;
  stop: () => Promise<void>;
}

/**
 * One whole service for a test file: a fresh database, its own NATS prefix, optionally a private
 * anvil as base-sepolia, the service listening on a free port with its workers running.
 */
export async function startTestService<C>(options: {
  name: string;
  configFrom: (env: Record<string, string>) => C;
  create: (config: C, logger: Logger) => Promise<ServiceHandle>;
  /** Extra variables (they win over the generated ones). */
  env?: Record<string, string>;
  chain?: boolean;
}): Promise<TestService<C>> {
  const [db, nats, anvil] = await Promise.all([
    createTestDatabase(),
    createTestBus(),
    options.chain ? startAnvil() : Promise.resolve(undefined),
  ]);
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    REDIS_URL: testRedisUrl(),
    ...(anvil ? { CHAIN_RPC_URLS: `base-sepolia=${anvil.rpcUrl}` } : {}),
    ...options.env,
  };
  const config = options.configFrom(env);
  const running = await startForTest(await options.create(config, testLogger(options.name)));
  return {
    url: running.url,
    config,
    db,
    nats,
    anvil,
    env,
    stop: async () => {
      await running.stop();
      await Promise.all([nats.dispose(), anvil?.stop()]);
      await db.drop();
    },
  };
}

/** What a running service answers on `GET /health/ready`: 200 when every dependency answers, else 503 naming the failing ones. */
export async function readinessOf(url: string): Promise<{ status: number; body: ReadinessBody }> {
  const res = await fetch(`${url}/health/ready`);
  return { status: res.status, body: (await res.json()) as ReadinessBody };
}

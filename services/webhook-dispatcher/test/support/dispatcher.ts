import type { CommandDefinition } from '@holdfast/contracts';
import { startForTest } from '@holdfast/http-kit';
import {
  createTestBus,
  createTestDatabase,
  sendWebhookCommand,
  type TestBus,
  type TestDatabase,
  testLogger,
} from '@holdfast/test-fixtures';
import type { Static } from '@sinclair/typebox';
import postgres from 'postgres';
import { createDispatcherService, dispatcherConfigFrom } from '../../src/index.js';
import type { DispatcherOverrides } from '../../src/service.js';

export interface TestDispatcher {
  db: TestDatabase;
  nats: TestBus;
  /** A direct connection for asserting rows (schema-qualified names). */
  sql: postgres.Sql;
  url: string;
  stop: () => Promise<void>;
  /** A webhook command to the file's dispatchers over NATS (on its owner kind's subject), its answer awaited 35 s at most. */
  send: <C extends CommandDefinition>(command: C, request: Static<C['request']>) => Promise<Static<C['reply']>>;
  /** Another instance on the same database and NATS prefix. */
  startAnother: (env?: Record<string, string>, overrides?: DispatcherOverrides) => Promise<{ url: string; stop: () => Promise<void> }>;
}

/** A fresh database, a NATS prefix and one dispatcher instance for a test file. */
export async function startTestDispatcher(env: Record<string, string> = {}, overrides: DispatcherOverrides = {}): Promise<TestDispatcher> {
  const [db, nats] = await Promise.all([createTestDatabase(), createTestBus()]);
  const instance = async (extraEnv: Record<string, string>, extraOverrides: DispatcherOverrides) => {
    const config = dispatcherConfigFrom({ DATABASE_URL: db.url, NATS_URL: nats.url, NATS_SUBJECT_PREFIX: nats.prefix, ...extraEnv });
    return startForTest(
      await createDispatcherService(config, testLogger('webhook-dispatcher'), { pollIntervalMs: 100, ...extraOverrides }),
    );
  };
  const first = await instance(env, overrides);
  const sql = postgres(db.url, { max: 2, onnotice: () => {} });
  return {
    db,
    nats,
    sql,
    url: first.url,
    send: (command, request) => sendWebhookCommand(nats.bus, command, request, { timeoutMs: 35_000 }),
    startAnother: (anotherEnv = env, anotherOverrides = overrides) => instance(anotherEnv, anotherOverrides),
    stop: async () => {
      await sql.end();
      await first.stop();
      await nats.dispose();
      await db.drop();
    },
  };
}

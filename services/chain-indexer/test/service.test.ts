import { fileURLToPath } from 'node:url';
import { startForTest } from '@holdfast/http-kit';
import {
  type Anvil,
  createTestBus,
  createTestDatabase,
  runMainExpectingExit,
  startAnvil,
  type TestBus,
  type TestDatabase,
  testLogger,
} from '@holdfast/test-fixtures';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexerService, indexerConfigFrom } from '../src/index.js';

let db: TestDatabase;
let nats: TestBus;
let anvil: Anvil;
let service: { url: string; stop: () => Promise<void> };

beforeAll(async () => {
  [db, nats, anvil] = await Promise.all([createTestDatabase(), createTestBus(), startAnvil()]);
  const config = indexerConfigFrom({
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    CHAIN_RPC_URLS: `base-sepolia=${anvil.rpcUrl}`,
  });
  service = await startForTest(await createIndexerService(config, testLogger('chain-indexer')));
});

afterAll(async () => {
  await service?.stop();
  await nats?.dispose();
  await db?.drop();
});

describe('chain-indexer process', () => {
  it('is ready while the chain answers and names it when it stops', async () => {
    const ready = await request(`${service.url}/health/ready`);
    expect(await ready.body.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', nats: 'ok', 'chain:base-sepolia': 'ok' } });
    await anvil.stop();
    const down = await request(`${service.url}/health/ready`);
    expect(down.statusCode).toBe(503);
    expect(((await down.body.json()) as { failing: string[] }).failing).toEqual(['chain:base-sepolia']);
  });
});

describe('chain-indexer start-up', () => {
  it('needs a chain outside local', async () => {
    const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
    const result = await runMainExpectingExit(main, { APP_ENV: 'production' });
    expect(result.code).toBe(1);
    expect(result.stderrLines).toEqual([
      'chain-indexer: configuration error: CHAIN_RPC_URLS: is required when APP_ENV is production: the indexer needs a chain to follow (missing)',
    ]);
  });
});

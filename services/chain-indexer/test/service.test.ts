import { fileURLToPath } from 'node:url';
import { runMainExpectingExit, startTestService, type TestService } from '@holdfast/test-fixtures';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexerService, type IndexerConfig, indexerConfigFrom } from '../src/index.js';

let service: TestService<IndexerConfig>;

beforeAll(async () => {
  service = await startTestService({ name: 'chain-indexer', configFrom: indexerConfigFrom, create: createIndexerService, chain: true });
});

afterAll(() => service?.stop());

describe('chain-indexer process', () => {
  it('is ready while the chain answers and names it when it stops', async () => {
    const ready = await request(`${service.url}/health/ready`);
    expect(await ready.body.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', nats: 'ok', 'chain:base-sepolia': 'ok' } });
    await service.anvil?.stop();
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

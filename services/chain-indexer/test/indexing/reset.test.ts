import { chainEventId } from '@holdfast/contracts';
import { startForTest } from '@holdfast/http-kit';
import { createTestStores, fileFixture, startAnvil, testLogger } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIndexerService, indexerConfigFrom } from '../../src/index.js';
import { chainStream, eventually, indexerTestEnv, SENDER, startChain, type TestChain, usdc } from '../support/chain.js';

// A local chain restarted without its state, under an indexer that had read it: the cursor's block
// is not on the new chain, whose genesis block differs.
const stores = fileFixture(() => createTestStores());
let before: TestChain;
let after: TestChain | undefined;
let stream: ReturnType<typeof chainStream>;
const published: string[] = [];

const configFor = (chain: TestChain, extra: Record<string, string> = {}) =>
  indexerConfigFrom(indexerTestEnv(stores.db, stores.nats, chain, extra));

// Epochs longer than the blocks mined here: no event becomes safe, so the stream holds only the
// messages this file is about (levels: finality.test.ts).
const slotsInAnEpoch = 64;

beforeAll(async () => {
  before = await startChain(await startAnvil({ slotsInAnEpoch }));
  stream = chainStream(stores.nats.bus);
  await before.fund(SENDER!, usdc('1000'));
  const service = await startForTest(await createIndexerService(configFor(before), testLogger('chain-indexer')));
  try {
    for (let i = 0; i < 2; i++) {
      const { receipt } = await before.createEscrow({});
      published.push(chainEventId(84532, receipt.transactionHash, 0));
    }
    // Mined past the new chain's height, so that the old cursor is ahead of it.
    await before.anvil.rpc('anvil_mine', ['0x20']);
    await stream.until((m) => m.length === 2, 'the first chain events');
    const head = await before.publicClient.getBlockNumber();
    await eventually(
      async () => BigInt((await stores.sql`select block_number from indexer.cursors`)[0]?.block_number ?? -1) === head,
      'the cursor',
    );
  } finally {
    await service.stop();
    await before.stop();
  }
  // The same contracts at the same addresses (same deployer, same nonces), on a chain with another genesis.
  after = await startChain(await startAnvil({ genesisTimestamp: Math.floor(Date.now() / 1000) + 1000, slotsInAnEpoch }));
  expect(after.escrow).toBe(before.escrow);
});

afterAll(() => after?.stop());

describe('a chain reset under the indexer', () => {
  it('with INDEXER_ON_CHAIN_RESET=halt: publishes nothing, keeps the cursor, and reports the network not ready', async () => {
    const [cursor] = await stores.sql`select block_number, block_hash from indexer.cursors`;
    const service = await startForTest(await createIndexerService(configFor(after!, { INDEXER_ON_CHAIN_RESET: 'halt' }), testLogger()));
    try {
      const body = await eventually(async () => {
        const response = await fetch(`${service.url}/health/ready`);
        const json = (await response.json()) as { checks: Record<string, string> };
        return response.status === 503 && json.checks['indexer:base-sepolia']?.startsWith('halted: the chain was reset') && json;
      }, 'the halted readiness');
      expect(body.checks['chain:base-sepolia']).toBe('ok');
      expect(await stores.sql`select block_number, block_hash from indexer.cursors`).toEqual([cursor]);
      expect((await stream.read()).map((m) => m.msgId)).toEqual(published);
    } finally {
      await service.stop();
    }
  });

  it('with reindex (the default in local): corrects every published event, then indexes the new chain from the deployment block', async () => {
    await after!.fund(SENDER!, usdc('1000'));
    const { id, receipt } = await after!.createEscrow({});
    const service = await startForTest(await createIndexerService(configFor(after!), testLogger()));
    try {
      const messages = await stream.until((m) => m.length >= 5, 'the corrections and the new event');
      expect(messages.map((m) => [m.msgId, m.event.removedReason ?? null])).toEqual([
        [published[0], null],
        [published[1], null],
        [`${published[1]}:removed`, 'chain_reset'],
        [`${published[0]}:removed`, 'chain_reset'],
        [chainEventId(84532, receipt.transactionHash, 0), null],
      ]);
      expect(messages[4]?.event.transactionId).toBe(id);
      const head = await after!.publicClient.getBlock();
      const genesis = await after!.publicClient.getBlock({ blockNumber: 0n });
      await eventually(async () => {
        const [row] = await stores.sql`select block_number, block_hash, genesis_hash from indexer.cursors`;
        return row?.block_hash === head.hash && row.genesis_hash === genesis.hash;
      }, 'the cursor on the new chain');
      expect((await fetch(`${service.url}/health/ready`)).status).toBe(200);
    } finally {
      await service.stop();
    }
  });

  it('while it runs (anvil_reset under a following indexer): corrects what it published from the old chain and follows the new one', async () => {
    const service = await startForTest(await createIndexerService(configFor(after!), testLogger()));
    try {
      const before = (await stream.until((m) => m.length >= 5, 'the state of the previous test')).length;
      const head = await after!.publicClient.getBlockNumber();
      await eventually(
        async () => BigInt((await stores.sql`select block_number from indexer.cursors`)[0]?.block_number ?? -1) === head,
        'the cursor',
      );
      const old = (await stream.read())[4]!;
      await after!.anvil.rpc('anvil_reset', []);
      const renewed = await startChain(after!.anvil);
      expect(renewed.escrowContracts).toBe(after!.escrowContracts);
      await renewed.fund(SENDER!, usdc('1000'));
      const { id } = await renewed.createEscrow({});
      const messages = (await stream.until((m) => m.length >= before + 2, 'the correction and the new event')).slice(before);
      expect(messages.map((m) => [m.event.transactionId, m.event.removed, m.event.removedReason ?? null])).toEqual([
        [old.event.transactionId, true, 'chain_reset'],
        [id, false, null],
      ]);
    } finally {
      await service.stop();
    }
  });
});

import { chainEventId } from '@holdfast/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type IndexerWorld, startIndexerWorld, usdc } from '../support/chain.js';
import { headSubscriptionIs, type RpcProxy, startRpcProxy } from '../support/rpc-proxy.js';

// The poll is an hour: within this file only a new head over the subscription (or its reconnect)
// wakes the indexer, so an event that arrives came by the subscription.
let world: IndexerWorld;
let proxy: RpcProxy;

beforeAll(async () => {
  const env: Record<string, string> = { INDEXER_POLL_INTERVAL: '1h' };
  world = await startIndexerWorld({
    fund: usdc('1000000'),
    // The websocket goes through a proxy the test can cut; HTTP goes to anvil directly.
    beforeStart: async (chain) => {
      proxy = await startRpcProxy(chain.anvil.rpcUrl);
      env.CHAIN_WS_URLS = `base-sepolia=${proxy.url.replace(/^http/, 'ws')}`;
    },
    env,
  });
});

afterAll(async () => {
  await world?.stop();
  await proxy?.stop();
});

const subscribed = (expected: 0 | 1) => headSubscriptionIs(world.service.url, expected);

/** The cursor's block, once it is at least `block`. */
const cursorAt = (block: bigint) =>
  eventually(async () => {
    const [row] = await world.sql<{ block_number: string }[]>`select block_number from indexer.cursors where network = 'base-sepolia'`;
    return row && BigInt(row.block_number) >= block ? BigInt(row.block_number) : undefined;
  }, `the cursor at block ${block}`);

describe('new heads by subscription', () => {
  it('publishes an escrow when its block is announced, without waiting for a poll', async () => {
    await eventually(() => subscribed(1), 'the new-heads subscription');
    // Caught up and asleep (the start-up passes over): from here only a new head wakes it.
    await cursorAt(await world.chain.publicClient.getBlockNumber());
    await new Promise((r) => setTimeout(r, 300));
    const { id, receipt } = await world.chain.createEscrow({ amount: usdc('5') });
    const messages = await world.stream.until((m) => m.some((x) => x.event.transactionId === id), 'the escrow mined after subscribing');
    expect(messages.find((m) => m.event.transactionId === id)?.event).toMatchObject({
      kind: 'escrow.created',
      transactionHash: receipt.transactionHash,
      blockNumber: Number(receipt.blockNumber),
    });
  });

  it('subscribes again after the socket drops and skips no block mined while it was down', async () => {
    await eventually(() => subscribed(1), 'the new-heads subscription');
    proxy.refuseWebSockets(true);
    proxy.dropWebSockets();
    await eventually(() => subscribed(0), 'the dropped subscription noticed');
    const whileDown: string[] = [];
    for (const amount of ['1', '2', '3']) {
      const { receipt } = await world.chain.createEscrow({ amount: usdc(amount) });
      whileDown.push(chainEventId(84532, receipt.transactionHash, 0));
      await world.chain.anvil.rpc('anvil_mine', ['0x2']);
    }
    const head = await world.chain.publicClient.getBlockNumber();
    proxy.refuseWebSockets(false);
    await eventually(() => subscribed(1), 'the subscription back');
    // Its return wakes the indexer, which reads on from its cursor: every block mined meanwhile.
    const messages = await world.stream.until(
      (m) => whileDown.every((eventId) => m.some((x) => x.event.eventId === eventId)),
      'the three escrows mined while the subscription was down',
    );
    const ids = messages.map((m) => m.event.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await cursorAt(head)).toBe(head);
  });
});

import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type IndexerWorld, startIndexerWorld, usdc } from '../support/chain.js';
import { headSubscriptionIs, type RpcProxy, startRpcProxy } from '../support/rpc-proxy.js';

// Polling (every 50 ms, the tests' setting) carries the indexer whenever no subscription is up.
let world: IndexerWorld;
let proxy: RpcProxy;

beforeAll(async () => {
  const env: Record<string, string> = {};
  world = await startIndexerWorld({
    fund: usdc('1000000'),
    // Both HTTP and websockets go through a proxy; it starts as an http-only RPC.
    beforeStart: async (chain) => {
      proxy = await startRpcProxy(chain.anvil.rpcUrl);
      proxy.refuseWebSockets(true);
      env.CHAIN_RPC_URLS = `base-sepolia=${proxy.url}`;
    },
    env,
  });
});

afterAll(async () => {
  await world?.stop();
  await proxy?.stop();
});

const subscribed = (expected: 0 | 1) => headSubscriptionIs(world.service.url, expected);

describe('polling as the fallback of the new-heads subscription', () => {
  it('follows an RPC that serves no websocket by polling, and stays ready', async () => {
    const { id } = await world.chain.createEscrow({ amount: usdc('7') });
    await world.stream.until((m) => m.some((x) => x.event.transactionId === id), 'the escrow, by polling');
    expect(await subscribed(0)).toBe(true);
    const ready = await request(`${world.service.url}/health/ready`);
    expect(ready.statusCode).toBe(200);
  });

  it('keeps polling when the subscription drops', async () => {
    proxy.refuseWebSockets(false);
    await eventually(() => subscribed(1), 'the subscription, once the RPC serves websockets');
    proxy.refuseWebSockets(true);
    proxy.dropWebSockets();
    await eventually(() => subscribed(0), 'the dropped subscription noticed');
    const { id } = await world.chain.createEscrow({ amount: usdc('8') });
    await world.stream.until((m) => m.some((x) => x.event.transactionId === id), 'the escrow mined after the drop, by polling');
  });

  it('keeps a subscription that announces nothing while the chain mines nothing', async () => {
    proxy.refuseWebSockets(false);
    await eventually(() => subscribed(1), 'the subscription, once the RPC serves websockets');
    const opened = proxy.webSocketsOpened();
    // More than 20 polls with no new block: nothing to announce, so the socket is not taken for dead.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(proxy.webSocketsOpened()).toBe(opened);
    expect(await subscribed(1)).toBe(true);
  });

  it('opens a subscription again when it goes quiet while the chain moves on (a half-open socket)', async () => {
    proxy.refuseWebSockets(false);
    await eventually(() => subscribed(1), 'the subscription, once the RPC serves websockets');
    const opened = proxy.webSocketsOpened();
    proxy.stallWebSockets();
    // The poll finds the new block; no head announces it: after 20 polls the socket is taken for dead.
    const { id } = await world.chain.createEscrow({ amount: usdc('9') });
    await world.stream.until((m) => m.some((x) => x.event.transactionId === id), 'the escrow, by polling');
    await eventually(async () => proxy.webSocketsOpened() > opened && (await subscribed(1)), 'a new subscription');
  });
});

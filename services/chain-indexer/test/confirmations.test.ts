import type postgres from 'postgres';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type IndexerWorld, startIndexerWorld, type TestChain, usdc } from './helpers/chain.js';

let world: IndexerWorld;
let chain: TestChain;
let stream: IndexerWorld['stream'];
let sql: postgres.Sql;

beforeAll(async () => {
  world = await startIndexerWorld({ fund: usdc('1000'), env: { CHAIN_CONFIRMATIONS: 'base-sepolia=2' } });
  ({ chain, stream, sql } = world);
});

afterAll(() => world?.stop());

/** Waits until the cursor has reached `block` (the indexer read everything up to it). */
const cursorAt = (block: bigint) =>
  eventually(
    async () => BigInt((await sql`select block_number from indexer.cursors`)[0]?.block_number ?? -1) === block,
    `the cursor at ${block}`,
  );

describe('CHAIN_CONFIRMATIONS=base-sepolia=2', () => {
  it('publishes an event once two blocks are on top of it, and never one that a shallower reorg dropped', async () => {
    const first = await chain.createEscrow({});
    await cursorAt(first.receipt.blockNumber - 2n);
    expect(await stream.read()).toEqual([]);
    await chain.anvil.rpc('anvil_mine', ['0x2']);
    await stream.until((m) => m.length === 1, 'the confirmed escrow');

    const snapshot = await chain.anvil.rpc<Hex>('evm_snapshot');
    const dropped = await chain.createEscrow({});
    await chain.anvil.rpc('anvil_mine', ['0x1']);
    await cursorAt(dropped.receipt.blockNumber - 1n);
    await chain.anvil.rpc('evm_revert', [snapshot]);
    const kept = await chain.createEscrow({});
    await chain.anvil.rpc('anvil_mine', ['0x2']);
    const messages = await stream.until((m) => m.length === 2, 'the escrow of the new branch');
    expect(messages.map((m) => [m.event.transactionId, m.event.removed])).toEqual([
      [first.id, false],
      [kept.id, false],
    ]);
    await cursorAt(kept.receipt.blockNumber);
    expect(messages.some((m) => m.event.transactionId === dropped.id)).toBe(false);
  });
});

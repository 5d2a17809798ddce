import type postgres from 'postgres';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type IndexerWorld, startIndexerWorld, type TestChain, usdc } from '../support/chain.js';

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
  it('publishes an event when it is seen, again once two blocks are on top of it, and never confirms one a shallower reorg dropped', async () => {
    const first = await chain.createEscrow({});
    await cursorAt(first.receipt.blockNumber);
    const seen = await stream.until((m) => m.length === 1, 'the seen escrow');
    expect(seen.map((m) => [m.msgId, m.event.finality, m.event.confirmations])).toEqual([[`${seen[0]!.event.eventId}@seen`, 'seen', 0]]);
    await chain.anvil.rpc('anvil_mine', ['0x2']);
    const confirmed = await stream.until((m) => m.length === 2, 'the confirmed escrow');
    // The same event at its new level: the plain event id is the `confirmed` message, as before levels.
    expect(confirmed[1]!.msgId).toBe(seen[0]!.event.eventId);
    expect(confirmed[1]!.event).toEqual({ ...seen[0]!.event, finality: 'confirmed', confirmations: 2 });

    const snapshot = await chain.anvil.rpc<Hex>('evm_snapshot');
    const dropped = await chain.createEscrow({});
    await chain.anvil.rpc('anvil_mine', ['0x1']);
    await cursorAt(dropped.receipt.blockNumber + 1n);
    await chain.anvil.rpc('evm_revert', [snapshot]);
    const kept = await chain.createEscrow({});
    await chain.anvil.rpc('anvil_mine', ['0x2']);
    const messages = await stream.until(
      (m) => m.some((x) => x.event.transactionId === kept.id && x.event.finality === 'confirmed'),
      'the escrow of the new branch, confirmed',
    );
    const of = (id: string) => messages.filter((m) => m.event.transactionId === id).map((m) => [m.event.removed, m.event.finality]);
    // The seen event is withdrawn: its correction carries the level it had reached.
    expect(of(dropped.id)).toEqual([
      [false, 'seen'],
      [true, 'seen'],
    ]);
    // Seen first unless the indexer read its block only once both blocks were on top.
    expect(of(kept.id).at(-1)).toEqual([false, 'confirmed']);
    await cursorAt(kept.receipt.blockNumber + 2n);
    expect(messages.some((m) => m.event.transactionId === dropped.id && m.event.finality !== 'seen')).toBe(false);
  });
});

import { randomUUID } from 'node:crypto';
import { chainEventId } from '@holdfast/contracts';
import { holdfastEscrowAbi, uuidToOnchainId } from '@holdfast/escrow';
import type postgres from 'postgres';
import { encodeFunctionData, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTESTER, eventually, type IndexerWorld, RECEIVER, SENDER, startIndexerWorld, type TestChain, usdc } from '../support/chain.js';

let world: IndexerWorld;
let chain: TestChain;
let stream: IndexerWorld['stream'];
let sql: postgres.Sql;

beforeAll(async () => {
  world = await startIndexerWorld({ fund: usdc('1000000') });
  ({ chain, stream, sql } = world);
});

afterAll(() => world?.stop());

/** Waits until the indexer's cursor is the chain's head (same number and hash). */
async function caughtUp(): Promise<{ number: bigint; hash: string }> {
  const head = await chain.publicClient.getBlock();
  return eventually(async () => {
    const [row] = await sql`select block_number, block_hash from indexer.cursors where network = 'base-sepolia'`;
    return row && BigInt(row.block_number) === head.number && row.block_hash === head.hash
      ? { number: head.number, hash: head.hash }
      : undefined;
  }, `the cursor at block ${head.number}`);
}

describe('a reorg (anvil snapshot, revert, then other blocks)', () => {
  it('publishes a correction for the dropped event, the events of the new blocks, and moves the cursor onto the new chain', async () => {
    await caughtUp();
    const before = (await stream.read()).length;
    const snapshot = await chain.anvil.rpc<Hex>('evm_snapshot');
    const dropped = await chain.createEscrow({ amount: usdc('5') });
    await stream.until((m) => m.some((x) => x.event.transactionId === dropped.id), 'the soon dropped escrow');
    const droppedHeight = await chain.publicClient.getBlockNumber();

    await chain.anvil.rpc('evm_revert', [snapshot]);
    const kept = await chain.createEscrow({ amount: usdc('6') });
    await chain.anvil.rpc('anvil_mine', ['0x1']);
    expect(kept.receipt.blockNumber).toBe(droppedHeight);

    const messages = (await stream.until((m) => m.some((x) => x.event.transactionId === kept.id), 'the new escrow')).slice(before);
    const droppedEventId = chainEventId(84532, dropped.receipt.transactionHash, 0);
    expect(messages.map((m) => [m.msgId, m.event.transactionId, m.event.removed, m.event.removedReason])).toEqual([
      [droppedEventId, dropped.id, false, undefined],
      [`${droppedEventId}:removed`, dropped.id, true, 'reorg'],
      [chainEventId(84532, kept.receipt.transactionHash, 0), kept.id, false, undefined],
    ]);
    // The correction is the event it withdraws, flagged: a consumer can undo exactly that.
    const { removed: _r, removedReason: _why, ...correction } = messages[1]!.event;
    const { removed: _o, ...original } = messages[0]!.event;
    expect(correction).toEqual(original);

    await caughtUp();
    const rows = await sql`select event_id, removed_at is not null as removed, removed_reason from indexer.events order by published_at`;
    expect(rows.slice(-2)).toEqual([
      { event_id: droppedEventId, removed: true, removed_reason: 'reorg' },
      { event_id: chainEventId(84532, kept.receipt.transactionHash, 0), removed: false, removed_reason: null },
    ]);
    const kept_ =
      await sql`select block_hash from indexer.recent_blocks where network = 'base-sepolia' and block_number = ${String(droppedHeight)}`;
    expect(kept_[0]?.block_hash).toBe(kept.receipt.blockHash);
  });

  it('publishes the same transaction mined again in another block as a new occurrence, after its correction', async () => {
    await caughtUp();
    const before = (await stream.read()).length;
    const snapshot = await chain.anvil.rpc<Hex>('evm_snapshot');
    const id = randomUUID();
    const signed = await chain.wallet(SENDER!).signTransaction(
      await chain.wallet(SENDER!).prepareTransactionRequest({
        to: chain.escrow,
        data: encodeFunctionData({
          abi: holdfastEscrowAbi,
          functionName: 'createEscrow',
          args: [uuidToOnchainId(id), RECEIVER!.address, chain.token, usdc('7'), ATTESTER!.address, 0n],
        }),
      }),
    );
    const first = await chain.mined(chain.publicClient.sendRawTransaction({ serializedTransaction: signed }));
    await stream.until((m) => m.some((x) => x.event.transactionId === id), 'the escrow');

    await chain.anvil.rpc('evm_revert', [snapshot]);
    await chain.anvil.rpc('anvil_mine', ['0x1']);
    const again = await chain.mined(chain.publicClient.sendRawTransaction({ serializedTransaction: signed }));
    expect(again.transactionHash).toBe(first.transactionHash);
    expect(again.blockHash).not.toBe(first.blockHash);

    const messages = (await stream.until((m) => m.length >= before + 3, 'the correction and the new occurrence')).slice(before);
    const eventId = chainEventId(84532, first.transactionHash, 0);
    expect(messages.map((m) => [m.msgId, m.event.removed, m.event.blockHash])).toEqual([
      [eventId, false, first.blockHash],
      [`${eventId}:removed`, true, first.blockHash],
      [chainEventId(84532, first.transactionHash, 0, 2), false, again.blockHash],
    ]);
    await caughtUp();
  });

  it('corrects the events of a chain that got shorter once a conflicting block appears there', async () => {
    await caughtUp();
    const before = (await stream.read()).length;
    const snapshot = await chain.anvil.rpc<Hex>('evm_snapshot');
    const event = await chain.createEscrow({});
    await chain.anvil.rpc('anvil_mine', ['0x2']);
    await caughtUp();
    // Shorter, but nothing conflicts yet (a lagging RPC node looks the same): only a block at a height
    // the indexer has published, with another hash, proves the reorg.
    await chain.anvil.rpc('evm_revert', [snapshot]);
    await chain.anvil.rpc('anvil_mine', ['0x1']);
    const messages = (await stream.until((m) => m.length >= before + 2, 'the correction')).slice(before);
    expect(messages.map((m) => [m.event.transactionId, m.event.removed])).toEqual([
      [event.id, false],
      [event.id, true],
    ]);
    await caughtUp();
    const [cursor] = await sql`select block_number from indexer.cursors`;
    expect(BigInt(cursor!.block_number)).toBe(event.receipt.blockNumber);
  });
});

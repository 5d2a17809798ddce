import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type IndexerWorld, startIndexerWorld, type TestChain, usdc } from '../support/chain.js';

let world: IndexerWorld;
let chain: TestChain;
let stream: IndexerWorld['stream'];
let sql: postgres.Sql;

// anvil's epoch of 2 slots: `safe` is the head minus 2, `finalized` the head minus 4.
beforeAll(async () => {
  world = await startIndexerWorld({ fund: usdc('1000'), slotsInAnEpoch: 2, env: { CHAIN_CONFIRMATIONS: 'base-sepolia=1' } });
  ({ chain, stream, sql } = world);
});

afterAll(() => world?.stop());

const mine = (n: number) => chain.anvil.rpc('anvil_mine', [`0x${n.toString(16)}`]);
const levelOf = async (eventId: string) => (await sql`select finality from indexer.events where event_id = ${eventId}`)[0]?.finality;

describe('finality levels (anvil serves safe and finalized from its epoch)', () => {
  it('publishes a lock when seen, then confirmed, safe and finalized, each under its own message id', async () => {
    const lock = await chain.createEscrow({});
    const ofLock = async (n: number, what: string) =>
      (await stream.until((m) => m.filter((x) => x.event.transactionId === lock.id).length >= n, what)).filter(
        (x) => x.event.transactionId === lock.id,
      );
    const [seen] = await ofLock(1, 'the lock seen');
    const eventId = seen!.event.eventId;
    expect([seen!.msgId, seen!.event.finality, seen!.event.confirmations]).toEqual([`${eventId}@seen`, 'seen', 0]);
    await eventually(async () => (await levelOf(eventId)) === 'seen', 'the seen level stored');

    // One block mined at a time, so that each level is reached on a head of its own.
    await mine(1);
    await ofLock(2, 'the lock confirmed');
    await mine(1);
    await ofLock(3, 'the lock safe');
    await mine(2);
    const all = await ofLock(4, 'the lock finalized');
    expect(all.map((m) => [m.msgId, m.event.finality, m.event.confirmations, m.event.removed])).toEqual([
      [`${eventId}@seen`, 'seen', 0, false],
      [eventId, 'confirmed', 1, false],
      [`${eventId}@safe`, 'safe', 2, false],
      [`${eventId}@finalized`, 'finalized', 4, false],
    ]);
    // Apart from the level, every message is the same event.
    for (const m of all) expect({ ...m.event, finality: 'seen', confirmations: 0 }).toEqual(seen!.event);
    await eventually(async () => (await levelOf(eventId)) === 'finalized', 'the finalized level stored');

    // Finalized is the last level: more blocks publish nothing more for it.
    await mine(3);
    const lockedAgain = await chain.createEscrow({});
    await stream.until((m) => m.some((x) => x.event.transactionId === lockedAgain.id), 'a later lock');
    expect(await ofLock(4, 'the lock')).toHaveLength(4);
  });

  it('corrects a confirmed lock that anvil_reorg replaced, with the level it had reached', async () => {
    const lock = await chain.createEscrow({});
    await mine(1);
    const confirmed = await stream.until(
      (m) => m.some((x) => x.event.transactionId === lock.id && x.event.finality === 'confirmed'),
      'the lock confirmed',
    );
    const eventId = confirmed.find((x) => x.event.transactionId === lock.id)!.event.eventId;
    // Two blocks replaced by two empty ones: the lock's block leaves the chain (its transaction is not mined again).
    await chain.anvil.rpc('anvil_reorg', [2, []]);
    await mine(1);
    const messages = await stream.until(
      (m) => m.some((x) => x.event.transactionId === lock.id && x.event.removed),
      'the correction of the lock',
    );
    const correction = messages.find((x) => x.event.transactionId === lock.id && x.event.removed)!;
    expect([correction.msgId, correction.event.removedReason, correction.event.finality]).toEqual([
      `${eventId}:removed`,
      'reorg',
      'confirmed',
    ]);
    expect((await sql`select removed_reason from indexer.events where event_id = ${eventId}`)[0]?.removed_reason).toBe('reorg');
  });
});

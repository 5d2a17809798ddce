import { randomBytes } from 'node:crypto';
import { type ChainEvent, chainEventId, chainMessageId, uuidv7 } from '@holdfast/contracts';
import { uuidToOnchainId } from '@holdfast/escrow';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { AMOUNT, eventsOf, insertTransaction, publishChain, RECEIVER, SENDER, startChainPaymentsEnv, waitFor } from '../support/chain.js';

// NATS is not trusted with money. Whoever can publish on a CHAIN subject (a stolen NATS
// credential, a compromised process) publishes events with valid-looking fields; payments reads
// the receipt of each event's transaction hash on the chain (anvil here) and moves a transaction
// only when the log there decodes to exactly the message.

const platformId = uuidv7();

const e = fileFixture(() => startChainPaymentsEnv());
beforeAll(async () => {
  await e.sql`insert into platforms (id, name, scopes) values (${platformId}, 'forged chain events', ${['read:transactions']})`;
}, 60_000);

const statusOf = async (id: string) => ((await e.sql`select status from transactions where id = ${id}`)[0] as { status: string }).status;
const hex32 = () => `0x${randomBytes(32).toString('hex')}`;
const newTransaction = () => insertTransaction(e.sql, { platformId, from: SENDER, to: RECEIVER });

/**
 * Publishes the forgeries, then a genuine event as a marker: the consumer handles CHAIN messages
 * one at a time in order, so once the marker is recorded every forgery before it was handled.
 */
async function deliverForgedThenMarker(forged: ChainEvent[]) {
  const marker = await e.world.indexed(await e.world.createEscrow(uuidv7(), AMOUNT));
  await publishChain(e.nats.bus, [...forged, ...marker]);
  for (const event of marker) {
    await waitFor(
      async () => (await e.sql`select 1 from applied_chain_messages where message_id = ${chainMessageId(event)}`)[0],
      'the marker',
    );
  }
  const recorded = await e.sql`select message_id from applied_chain_messages where message_id in ${e.sql(forged.map(chainMessageId))}`;
  expect(recorded).toEqual([]);
}

describe('forged CHAIN events', () => {
  it('an escrow.created with a made-up transaction hash, naming the real escrow contract and the exact terms, moves nothing', async () => {
    const id = await newTransaction();
    // A genuine event of the same shape, as a template for every field a forger can read or guess.
    const [template] = await e.world.indexed(await e.world.createEscrow(uuidv7(), AMOUNT));
    if (template?.kind !== 'escrow.created') throw new Error('no template');
    const transactionHash = hex32();
    const forged: ChainEvent = {
      ...template,
      eventId: chainEventId(template.chainId, transactionHash, 0),
      transactionHash,
      blockHash: hex32(),
      logIndex: 0,
      transactionId: id,
      escrowId: uuidToOnchainId(id).toLowerCase(),
    };
    await deliverForgedThenMarker([forged]);
    expect(await statusOf(id)).toBe('pending');
    expect(await eventsOf(e.sql, id)).toEqual([]);
  });

  it("an escrow.created pointing at a real log of another escrow, relabelled with the victim's id, moves nothing", async () => {
    const id = await newTransaction();
    const [other] = await e.world.indexed(await e.world.createEscrow(uuidv7(), AMOUNT));
    if (!other) throw new Error('no event');
    const forged: ChainEvent = { ...other, transactionId: id, escrowId: uuidToOnchainId(id).toLowerCase() };
    await deliverForgedThenMarker([forged]);
    expect(await statusOf(id)).toBe('pending');
  });

  it('an escrow.released for an escrowed transaction, on the hash of its real escrow.created, does not complete it', async () => {
    const id = await newTransaction();
    const [created] = await e.world.indexed(await e.world.createEscrow(id, AMOUNT));
    if (created?.kind !== 'escrow.created') throw new Error('no event');
    await publishChain(e.nats.bus, [created]);
    await waitFor(async () => (await statusOf(id)) === 'escrowed', 'the genuine escrow');
    const forged: ChainEvent = {
      ...created,
      eventId: `${created.eventId}:7`,
      kind: 'escrow.released',
      data: { receiver: created.data.receiver, by: created.data.receiver, amount: created.data.amount, reason: 'release' },
    };
    await deliverForgedThenMarker([forged]);
    expect(await statusOf(id)).toBe('escrowed');
    expect((await eventsOf(e.sql, id)).map((e) => e.type)).toEqual(['transaction.escrowed']);
  });

  it('a correction of an escrow.created whose log is still on chain does not move the transaction back to pending', async () => {
    const id = await newTransaction();
    const [created] = await e.world.indexed(await e.world.createEscrow(id, AMOUNT));
    if (!created) throw new Error('no event');
    await publishChain(e.nats.bus, [created]);
    await waitFor(async () => (await statusOf(id)) === 'escrowed', 'the genuine escrow');
    await deliverForgedThenMarker([{ ...created, removed: true, removedReason: 'reorg' }]);
    expect(await statusOf(id)).toBe('escrowed');
    expect((await eventsOf(e.sql, id)).map((e) => e.type)).toEqual(['transaction.escrowed']);
  });
});

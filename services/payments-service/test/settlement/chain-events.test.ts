import { type ChainEvent, chainEventId, chainMessageId, uuidv7 } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import { getAddress } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AMOUNT,
  eventsOf,
  insertTransaction,
  NETWORK,
  publishChain,
  RECEIVER,
  SENDER,
  startChainPaymentsEnv,
  waitFor,
} from '../support/chain.js';

// The CHAIN consumer: messages published exactly as the chain-indexer publishes them (subject per
// kind, Nats-Msg-Id = chainMessageId) from real escrow logs on anvil; each applied at most once.

const platformId = uuidv7();

const e = fileFixture(() => startChainPaymentsEnv());
beforeAll(async () => {
  await e.sql`insert into platforms (id, name, scopes) values (${platformId}, 'chain events', ${['read:transactions']})`;
}, 60_000);

const rowOf = async (id: string) => (await e.sql`select * from transactions where id = ${id}`)[0] as Record<string, unknown>;

/** Publishes and waits until each message was handled (its applied_chain_messages row committed). */
async function deliver(events: ChainEvent[]) {
  await publishChain(e.nats.bus, events);
  const outcomes: Record<string, unknown>[] = [];
  for (const event of events) {
    outcomes.push(
      await waitFor(
        async () => {
          const [row] = await e.sql`select outcome, action, detail from applied_chain_messages where message_id = ${chainMessageId(event)}`;
          return row;
        },
        `message ${chainMessageId(event)}`,
      ),
    );
  }
  return outcomes;
}

const newTransaction = (values: Partial<Parameters<typeof insertTransaction>[1]> = {}) =>
  insertTransaction(e.sql, { platformId, from: SENDER, to: RECEIVER, ...values });

describe('escrow.created', () => {
  it('escrows the transaction with the contract as escrowAddress and the event hash as txHash, once', async () => {
    const id = await newTransaction();
    const hold = (await e.world.now()) + 3600n;
    const events = await e.world.indexed(await e.world.createEscrow(id, AMOUNT, { holdDeadline: hold }));
    expect(events.map((e) => e.kind)).toEqual(['escrow.created']);
    expect(await deliver(events)).toEqual([{ outcome: 'applied', action: 'lock_escrow', detail: null }]);
    await deliver(events); // the same message again: JetStream drops it, and the table would
    const row = await rowOf(id);
    expect(row).toMatchObject({
      status: 'escrowed',
      escrow_address: getAddress(e.world.escrow),
      tx_hash: events[0]?.transactionHash,
      chain_id: 84532,
    });
    expect(new Date(row.hold_deadline as string).getTime()).toBe(Number(hold) * 1000);
    const outbox = await eventsOf(e.sql, id);
    expect(outbox.map((e) => e.type)).toEqual(['transaction.escrowed']);
    expect(outbox[0]?.payload).toMatchObject({
      platformId,
      data: { transaction: { id, status: 'escrowed' }, escrowAddress: getAddress(e.world.escrow), txHash: events[0]?.transactionHash },
    });
  });

  it('does not apply an escrow whose amount differs: recorded as rejected, the transaction stays pending', async () => {
    const id = await newTransaction();
    const events = await e.world.indexed(await e.world.createEscrow(id, 1_000_000n));
    const [outcome] = await deliver(events);
    expect(outcome).toMatchObject({ outcome: 'rejected', detail: "the escrow's amount differ from the transaction" });
    expect((await rowOf(id)).status).toBe('pending');
    expect(await eventsOf(e.sql, id)).toEqual([]);
  });

  it('records an event for an unknown transaction id and moves nothing', async () => {
    const events = await e.world.indexed(await e.world.createEscrow(uuidv7(), AMOUNT));
    expect(await deliver(events)).toEqual([{ outcome: 'ignored', action: null, detail: 'unknown transaction' }]);
  });

  it('refuses an event claimed by a contract that did not emit its log: nothing recorded, nothing moves', async () => {
    const id = await newTransaction();
    const [real] = await e.world.indexed(await e.world.createEscrow(id, AMOUNT));
    if (!real) throw new Error('no event');
    const forged = { ...real, contractAddress: getAddress(e.world.usdc), eventId: chainEventId(real.chainId, real.transactionHash, 99) };
    // Handled in order: once the marker after it is recorded, the forgery was handled.
    const marker = await e.world.indexed(await e.world.createEscrow(uuidv7(), AMOUNT));
    await publishChain(e.nats.bus, [forged]);
    await deliver(marker);
    expect(await e.sql`select 1 from applied_chain_messages where message_id = ${chainMessageId(forged)}`).toEqual([]);
    expect((await rowOf(id)).status).toBe('pending');
  });
});

describe('corrections', () => {
  async function rpc(method: string, params: unknown[] = []): Promise<unknown> {
    const res = await fetch(e.world.anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result: unknown }).result;
  }
  /**
   * Runs `onChain` (mine and deliver), then drops the blocks it mined (anvil's snapshot and
   * revert): the logs are gone from the chain, as after a reorg, so their corrections are facts.
   */
  async function thenWithdrawn<T>(onChain: () => Promise<T>): Promise<T> {
    const snapshot = await rpc('evm_snapshot');
    const out = await onChain();
    await rpc('evm_revert', [snapshot]);
    return out;
  }

  it('a withdrawn escrow.created moves escrowed back to pending (transaction.reorged); the re-mined log escrows it again', async () => {
    const id = await newTransaction();
    const created = await thenWithdrawn(async () => {
      const [event] = await e.world.indexed(await e.world.createEscrow(id, AMOUNT));
      if (!event) throw new Error('no event');
      await deliver([event]);
      return event;
    });
    const [undone] = await deliver([{ ...created, removed: true, removedReason: 'reorg' }]);
    expect(undone).toMatchObject({ outcome: 'applied', action: 'revert_escrow' });
    expect((await rowOf(id)).status).toBe('pending');
    const transitions =
      await e.sql`select action, to_status, event_id from transaction_transitions where transaction_id = ${id} order by seq`;
    expect(transitions).toEqual([
      { action: 'lock_escrow', to_status: 'escrowed', event_id: expect.any(String) },
      { action: 'revert_escrow', to_status: 'pending', event_id: expect.any(String) },
    ]);
    // Re-mined (the same signed transaction may get the same hash): the indexer publishes it as a new occurrence.
    const [again] = await e.world.indexed(await e.world.createEscrow(id, AMOUNT));
    if (!again) throw new Error('no event');
    await deliver([{ ...again, eventId: again.eventId === created.eventId ? `${created.eventId}:2` : again.eventId }]);
    expect((await rowOf(id)).status).toBe('escrowed');
    expect((await eventsOf(e.sql, id)).map((e) => e.type)).toEqual(['transaction.escrowed', 'transaction.reorged', 'transaction.escrowed']);
  });

  it('a withdrawn release is recorded for an operator and the completed transaction is left as it is', async () => {
    const id = await newTransaction();
    await deliver(await e.world.indexed(await e.world.createEscrow(id, AMOUNT)));
    const released = await thenWithdrawn(async () => {
      const events = await e.world.indexed(await e.world.escrowCall('release', id));
      await deliver(events);
      return events;
    });
    expect((await rowOf(id)).status).toBe('completed');
    const [undone] = await deliver(released.map((e) => ({ ...e, removed: true, removedReason: 'reorg' as const })));
    expect(undone?.outcome).toBe('correction_unapplied');
    expect((await rowOf(id)).status).toBe('completed');
  });

  it('a correction of an event that changed nothing is a no-op', async () => {
    const events = await thenWithdrawn(async () => {
      const mined = await e.world.indexed(await e.world.createEscrow(uuidv7(), AMOUNT));
      await deliver(mined);
      return mined;
    });
    const [undone] = await deliver(events.map((e) => ({ ...e, removed: true })));
    expect(undone?.outcome).toBe('noop');
  });
});

describe('settlement events and batches', () => {
  it("moves a batch's legs from their events and the batch's status follows them", async () => {
    const batchId = uuidv7();
    await e.sql`insert into batches (id, platform_id, status, from_address, currency, blockchain_network, orchestration_type, signer_type, leg_count, total_amount)
      values (${batchId}, ${platformId}, 'pending_user_action', ${SENDER}, 'USDC', ${NETWORK}, 'platform', 'external_wallet', 2, '51')`;
    const legs: string[] = [];
    for (const legIndex of [0, 1]) {
      const id = await newTransaction({ status: 'pending_user_action' });
      await e.sql`update transactions set batch_id = ${batchId}, leg_index = ${legIndex} where id = ${id}`;
      legs.push(id);
    }
    const [first, second] = legs as [string, string];
    const hold = (await e.world.now()) + 3600n;
    await deliver(await e.world.indexed(await e.world.createEscrow(first, AMOUNT, { holdDeadline: hold })));
    expect((await e.sql`select status from batches where id = ${batchId}`)[0]?.status).toBe('submitted');
    await deliver(await e.world.indexed(await e.world.createEscrow(second, AMOUNT, { holdDeadline: hold })));

    // The sender pays the first receiver itself and takes the second leg back during the hold.
    expect(await deliver(await e.world.indexed(await e.world.escrowCall('release', first)))).toEqual([
      { outcome: 'applied', action: 'release', detail: null },
    ]);
    expect(await deliver(await e.world.indexed(await e.world.escrowCall('rescind', second)))).toEqual([
      { outcome: 'applied', action: 'rescind', detail: null },
    ]);
    expect((await rowOf(first)).status).toBe('completed');
    expect((await rowOf(second)).status).toBe('rescinded');
    expect((await e.sql`select status from batches where id = ${batchId}`)[0]?.status).toBe('completed');
    expect((await eventsOf(e.sql, first)).map((e) => e.type)).toEqual(['transaction.escrowed', 'transaction.completed']);
    expect((await eventsOf(e.sql, second)).map((e) => e.type)).toEqual(['transaction.escrowed', 'transaction.rescinded']);
  });

  it('records the parties of an early release, and the second consent completes the transaction', async () => {
    const id = await newTransaction();
    await deliver(await e.world.indexed(await e.world.createEscrow(id, AMOUNT, { holdDeadline: (await e.world.now()) + 3600n })));
    await deliver(await e.world.indexed(await e.world.escrowCall('attestEarlyRelease', id, 'sender')));
    const second = await e.world.indexed(await e.world.escrowCall('attestEarlyRelease', id, 'receiver'));
    expect(second.map((e) => e.kind)).toEqual(['escrow.early-release-attested', 'escrow.released']);
    await deliver(second);
    const parties = await e.sql`select party, verified from early_release_attestations where transaction_id = ${id} order by party`;
    expect(parties).toEqual([
      { party: 'receiver', verified: true },
      { party: 'sender', verified: true },
    ]);
    expect((await rowOf(id)).status).toBe('completed');
  });

  it('records a settlement event that conflicts with the status, without moving', async () => {
    const id = await newTransaction();
    await deliver(await e.world.indexed(await e.world.createEscrow(id, AMOUNT)));
    await e.sql`update transactions set status = 'disputed' where id = ${id}`;
    const [outcome] = await deliver(await e.world.indexed(await e.world.escrowCall('release', id)));
    expect(outcome).toMatchObject({ outcome: 'conflict', action: 'release' });
    expect((await rowOf(id)).status).toBe('disputed');
  });
});

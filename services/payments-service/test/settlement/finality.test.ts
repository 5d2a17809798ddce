import type { ChainEvent } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { AMOUNT, eventsOf, publishChain, RECEIVER, SENDER, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { bearer, call, newPlatform } from '../support/harness.js';

// Finality levels end to end on a local chain (docs/chain.md, levels): anvil's epoch of 2 slots
// answers `safe` with the head minus 2 and `finalized` with the head minus 4, and the network's
// confirmations are 1. CHAIN messages are published as the indexer publishes them (the same event
// at each level), and payments checks each claimed level against the chain before it counts.

const e = fileFixture(() => startChainPaymentsEnv({ CHAIN_CONFIRMATIONS: 'base-sepolia=1' }, undefined, { slotsInAnEpoch: 2 }));
type Platform = Awaited<ReturnType<typeof platformOf>>;
let standard: Platform;
let cautious: Platform;

const platformOf = (settings?: Record<string, unknown>) =>
  newPlatform(e, {
    ...(settings ? { settings } : {}),
    clientScopes: ['read:transactions', 'write:transactions', 'move:transactions', 'reverse:transactions'],
  });

beforeAll(async () => {
  standard = await platformOf();
  // Finalized for everything, and above 100 (here: every amount) finalized as well.
  cautious = await platformOf({ finality: { defaultFinality: 'finalized', threshold: { amountAbove: '100', finality: 'finalized' } } });
}, 60_000);

const mine = (n: number) => e.world.anvil.rpc('anvil_mine', [`0x${n.toString(16)}`]);
const get = async (p: Platform, id: string) =>
  (await call(e.svc.url, 'GET', `/api/v2/transactions/${id}`, { headers: bearer(p.token) })).body;
const when = (p: Platform, id: string, what: string, holds: (t: Record<string, unknown>) => boolean) =>
  waitFor(
    async () => {
      const t = await get(p, id);
      return holds(t) && t;
    },
    what,
    30_000,
  );
const typesOf = async (id: string) => (await eventsOf(e.sql, id)).map((x) => x.type);
const at = (event: ChainEvent, finality: ChainEvent['finality'], confirmations: number) =>
  ({ ...event, finality, confirmations }) as ChainEvent;

async function create(p: Platform, body: Record<string, unknown> = {}): Promise<Record<string, unknown> & { id: string }> {
  const res = await call(e.svc.url, 'POST', '/api/v2/transactions', {
    // A key of its own: equal payments one after another are deliberate here, not duplicates.
    headers: { ...bearer(p.token), 'idempotency-key': `finality-${Math.random()}` },
    body: { fromAddress: SENDER, toAddress: RECEIVER, amount: '25.5', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Locks the transaction's funds on chain; its `escrow.created` as the indexer decodes it. */
async function lock(t: Record<string, unknown> & { id: string }): Promise<ChainEvent> {
  const holdDeadline = BigInt((t.escrow as { holdDeadline: number }).holdDeadline);
  const receipt = await e.world.createEscrow(t.id, AMOUNT, { holdDeadline });
  const [event] = await e.world.indexed(receipt);
  if (!event) throw new Error('no escrow.created');
  return event;
}

describe('a lock seen, confirmed, then finalized (the default: money counts at confirmed)', () => {
  it('shows each level through the API and as an event, and escrows once confirmed', async () => {
    const t = await create(standard);
    expect(t).toMatchObject({ status: 'pending', requiredFinality: 'confirmed', finality: null, blockNumber: null });
    const created = await lock(t);

    await publishChain(e.nats.bus, [at(created, 'seen', 0)]);
    const seen = await when(standard, t.id, 'seen', (x) => x.finality === 'seen');
    expect(seen).toMatchObject({
      status: 'pending',
      finality: 'seen',
      confirmations: 0,
      blockNumber: created.blockNumber,
      blockHash: created.blockHash,
    });

    await mine(1);
    await publishChain(e.nats.bus, [at(created, 'confirmed', 1)]);
    const confirmed = await when(standard, t.id, 'escrowed', (x) => x.status === 'escrowed');
    expect(confirmed).toMatchObject({ finality: 'confirmed', confirmations: 1, txHash: created.transactionHash });

    await mine(4);
    await publishChain(e.nats.bus, [at(created, 'finalized', 5)]);
    const finalized = await when(standard, t.id, 'finalized', (x) => x.finality === 'finalized');
    expect(finalized).toMatchObject({ status: 'escrowed', confirmations: 5, blockNumber: created.blockNumber });

    const events = await eventsOf(e.sql, t.id);
    expect(events.map((x) => x.type)).toEqual([
      'transaction.created',
      'transaction.finality_updated',
      'transaction.escrowed',
      'transaction.finality_updated',
    ]);
    expect(events.filter((x) => x.type === 'transaction.finality_updated').map((x) => x.payload.data)).toEqual([
      expect.objectContaining({ finality: 'seen', requiredFinality: 'confirmed', confirmations: 0, blockHash: created.blockHash }),
      expect.objectContaining({ finality: 'finalized', requiredFinality: 'confirmed', confirmations: 5, blockHash: created.blockHash }),
    ]);
  });
});

describe('a platform that requires finalized', () => {
  it('does not get escrowed before the chain finalized the lock, whatever a message claims', async () => {
    const t = await create(cautious);
    expect(t.requiredFinality).toBe('finalized');
    const created = await lock(t);
    await mine(1);
    await publishChain(e.nats.bus, [at(created, 'seen', 0), at(created, 'confirmed', 1)]);
    await when(cautious, t.id, 'confirmed', (x) => x.finality === 'confirmed');
    expect((await get(cautious, t.id)).status).toBe('pending');

    // The hash submitted by the platform waits for the level as well.
    const early = await call(e.svc.url, 'POST', `/api/v2/transactions/${t.id}/escrow-hash`, {
      headers: bearer(cautious.token),
      body: { transactionHash: created.transactionHash },
    });
    expect([early.status, early.body.error?.code, early.body.error?.details?.requiredFinality]).toEqual([
      409,
      'CHAIN_TRANSACTION_PENDING',
      'finalized',
    ]);
    // A message claiming finalized before the chain has it is not believed: it comes again later.
    await publishChain(e.nats.bus, [at(created, 'finalized', 1)]);
    await new Promise((r) => setTimeout(r, 500));
    expect(await get(cautious, t.id)).toMatchObject({ status: 'pending', finality: 'confirmed' });
    expect(await e.sql`select 1 from applied_chain_messages where message_id = ${`${created.eventId}@finalized`}`).toHaveLength(0);

    await mine(4);
    const escrowed = await when(cautious, t.id, 'escrowed', (x) => x.status === 'escrowed');
    expect(escrowed).toMatchObject({ finality: 'finalized', requiredFinality: 'finalized' });
    expect((await typesOf(t.id)).filter((x) => x === 'transaction.escrowed')).toHaveLength(1);
  });

  it('lets a transaction ask for a lower level than the default, but not below the amount threshold', async () => {
    const low = await create(cautious, { finality: 'seen', amount: '50' });
    expect(low.requiredFinality).toBe('seen');
    const high = await create(cautious, { finality: 'seen', amount: '150' });
    expect(high.requiredFinality).toBe('finalized');
    const stored = await e.sql`select id, required_finality from transactions where id in ${e.sql([low.id, high.id])} order by amount`;
    expect(stored.map((r) => r.required_finality)).toEqual(['seen', 'finalized']);
  });

  it("gives a batch's legs the platform's level", async () => {
    const made = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: bearer(cautious.token),
      body: { fromAddress: SENDER, legs: [{ toAddress: RECEIVER, amount: '5' }], idempotencyKey: `finality-batch-${Math.random()}` },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const [leg] = await e.sql`select required_finality from transactions where batch_id = ${made.body.id}`;
    expect(leg?.required_finality).toBe('finalized');
  });

  it('refuses a platform setting that is not a finality rule, naming the field, and changes nothing', async () => {
    const bad = await call(e.svc.url, 'PUT', `/api/v1/auth/platform/${standard.platformId}`, {
      headers: { 'x-api-key': e.admin },
      body: { settings: { finality: { defaultFinality: 'final' } } },
    });
    expect([bad.status, bad.body.error?.code, bad.body.error?.details?.errors?.[0]?.field]).toEqual([
      400,
      'VALIDATION_ERROR',
      'settings.finality.defaultFinality',
    ]);
    const [row] = await e.sql`select settings from platforms where id = ${standard.platformId}`;
    expect(row?.settings).toEqual({});
    const badCreate = await call(e.svc.url, 'POST', '/api/v2/transactions', {
      headers: bearer(standard.token),
      body: { fromAddress: SENDER, toAddress: RECEIVER, amount: '1', finality: 'final' },
    });
    expect([badCreate.status, badCreate.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('a reorg that removes an announced lock', () => {
  it('emits transaction.reorged, refuses a release on it, and the lock mined again escrows it exactly once', async () => {
    const t = await create(standard);
    const created = await lock(t);
    await mine(1);
    await publishChain(e.nats.bus, [at(created, 'confirmed', 1)]);
    await when(standard, t.id, 'escrowed', (x) => x.status === 'escrowed');

    // The lock's block and the one on top are replaced by empty blocks: the lock is gone.
    await e.world.anvil.rpc('anvil_reorg', [2, []]);
    await mine(1);
    expect(await e.world.escrowStatus(t.id)).toBe(0);
    await publishChain(e.nats.bus, [{ ...at(created, 'confirmed', 1), removed: true, removedReason: 'reorg' }]);
    const back = await when(standard, t.id, 'pending again', (x) => x.status === 'pending');
    expect(back).toMatchObject({ finality: null, confirmations: null, blockNumber: null, blockHash: null });
    const [reorged] = (await eventsOf(e.sql, t.id)).filter((x) => x.type === 'transaction.reorged');
    expect(reorged?.payload.data).toMatchObject({
      transaction: { id: t.id, status: 'pending' },
      reason: 'reorg',
      previousStatus: 'escrowed',
      finality: 'confirmed',
      blockNumber: created.blockNumber,
      blockHash: created.blockHash,
      txHash: created.transactionHash,
    });

    // Nothing is released on the strength of the removed lock.
    const release = await call(e.svc.url, 'POST', `/api/v2/transactions/${t.id}/release/attest`, { headers: bearer(standard.token) });
    expect([release.status, release.body.error?.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
    expect(await e.sql`select kind from settlements where transaction_id = ${t.id}`).toEqual([]);

    // Mined again: escrowed once more, once, however often the message comes.
    const again = await lock(t);
    await mine(1);
    await publishChain(e.nats.bus, [at(again, 'confirmed', 1)]);
    await when(standard, t.id, 'escrowed again', (x) => x.status === 'escrowed');
    await publishChain(e.nats.bus, [at(again, 'confirmed', 1)]);
    expect(await get(standard, t.id)).toMatchObject({ status: 'escrowed', txHash: again.transactionHash, blockHash: again.blockHash });
    expect((await typesOf(t.id)).filter((x) => x === 'transaction.escrowed' || x === 'transaction.reorged')).toEqual([
      'transaction.escrowed',
      'transaction.reorged',
      'transaction.escrowed',
    ]);
  });
});

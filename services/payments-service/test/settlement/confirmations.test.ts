import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { paymentsConfigFrom } from '../../src/config.js';
import {
  AMOUNT,
  eventsOf,
  insertTransaction,
  platformWithCredentials,
  publishChain,
  RECEIVER,
  SENDER,
  startChainPaymentsEnv,
  waitFor,
} from '../support/chain.js';
import { bearer, call, key } from '../support/harness.js';

// A submitted hash moves a transaction only once its receipt is CHAIN_CONFIRMATIONS deep (the
// receipt's block is the first confirmation): before that 409 CHAIN_TRANSACTION_PENDING and nothing
// changes; the same request succeeds once enough blocks are on top.

let p: Awaited<ReturnType<typeof platformWithCredentials>>;

const e = fileFixture(() => startChainPaymentsEnv({ CHAIN_CONFIRMATIONS: 'base-sepolia=3' }));
beforeAll(async () => {
  p = await platformWithCredentials(e, 'Confirmations');
}, 60_000);

/** anvil mines an empty block. */
const mineOne = () => e.world.publicClient.request({ method: 'evm_mine' } as never);
async function mine(blocks: number) {
  for (let i = 0; i < blocks; i++) await mineOne();
}
const rowOf = async (id: string) => (await e.sql`select status, tx_hash from transactions where id = ${id}`)[0];

/** A transaction escrowed through the API with an hour's hold, its escrow confirmed (three blocks on top). */
async function escrowedWithHold() {
  const id = await insertTransaction(e.sql, { platformId: p.platformId, from: SENDER, to: RECEIVER });
  const created = await e.world.createEscrow(id, AMOUNT, { holdDeadline: (await e.world.now()) + 3600n });
  await mine(3);
  const escrow = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/escrow-hash`, {
    headers: bearer(p.token),
    body: { transactionHash: created.transactionHash },
  });
  expect(escrow.status, JSON.stringify(escrow.body)).toBe(200);
  return { id, created };
}

describe('CHAIN_CONFIRMATIONS=base-sepolia=3', () => {
  it('a raw transfer with no block on top is pending (409, nothing changed); three blocks later the same hash completes it', async () => {
    const id = await insertTransaction(e.sql, { platformId: p.platformId, from: SENDER, to: RECEIVER, orchestrationType: 'raw' });
    await e.world.mint(SENDER, AMOUNT);
    const receipt = await e.world.transfer(RECEIVER, AMOUNT);
    const submit = () =>
      call(e.svc.url, 'POST', `/api/v2/transactions/${id}/hash`, { headers: bearer(p.token), body: { txHash: receipt.transactionHash } });

    const early = await submit();
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({
      code: 'CHAIN_TRANSACTION_PENDING',
      details: { confirmations: 0, required: 3, txHash: receipt.transactionHash, network: 'base-sepolia' },
    });
    expect(early.body.error.message).toMatch(/submit it again later/);
    expect(await rowOf(id)).toEqual({ status: 'pending', tx_hash: null });
    expect(await eventsOf(e.sql, id)).toEqual([]);
    expect(await e.sql`select 1 from claimed_transfers where transaction_id = ${id}`).toHaveLength(0);

    await mineOne();
    const still = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/submit-hash`, {
      headers: key(p.apiKey),
      body: { txHash: receipt.transactionHash },
    });
    expect(still.status).toBe(409);
    expect(still.body.error.details).toMatchObject({ confirmations: 1, required: 3 });
    expect((await rowOf(id))?.status).toBe('pending');

    await mine(2);
    const done = await submit();
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body).toMatchObject({ success: true, transaction: { id, status: 'completed', txHash: receipt.transactionHash } });
    expect(await rowOf(id)).toEqual({ status: 'completed', tx_hash: receipt.transactionHash });
    expect((await eventsOf(e.sql, id)).map((ev) => ev.type)).toEqual(['transaction.completed']);
  });

  it('an escrow with no block on top is pending (409, nothing changed); three blocks later the same hash escrows it', async () => {
    const id = await insertTransaction(e.sql, { platformId: p.platformId, from: SENDER, to: RECEIVER });
    const receipt = await e.world.createEscrow(id, AMOUNT);
    const submit = () =>
      call(e.svc.url, 'POST', `/api/v2/transactions/${id}/escrow-hash`, {
        headers: bearer(p.token),
        body: { transactionHash: receipt.transactionHash },
      });

    const early = await submit();
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'CHAIN_TRANSACTION_PENDING', details: { confirmations: 0, required: 3 } });
    expect(await rowOf(id)).toEqual({ status: 'pending', tx_hash: null });
    expect(await eventsOf(e.sql, id)).toEqual([]);
    expect(await e.sql`select 1 from applied_chain_messages where transaction_id = ${id}`).toHaveLength(0);

    await mine(3);
    const done = await submit();
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.transaction).toMatchObject({ id, status: 'escrowed', txHash: receipt.transactionHash });
    expect((await eventsOf(e.sql, id)).map((ev) => ev.type)).toEqual(['transaction.escrowed']);
  });

  it("a sender's rescind hash with no block on top is pending (409, nothing changed); three blocks later it rescinds", async () => {
    const { id, created } = await escrowedWithHold();
    const rescind = await e.world.escrowCall('rescind', id);
    const submit = () =>
      call(e.svc.url, 'POST', `/api/v2/transactions/${id}/rescind`, {
        headers: bearer(p.token),
        body: { txHash: rescind.transactionHash, reason: 'changed my mind' },
      });

    const early = await submit();
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'CHAIN_TRANSACTION_PENDING', details: { confirmations: 0, required: 3 } });
    expect((await rowOf(id))?.status).toBe('escrowed');
    expect((await eventsOf(e.sql, id)).map((ev) => ev.type)).toEqual(['transaction.escrowed']);

    await mine(3);
    const done = await submit();
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(await rowOf(id)).toEqual({ status: 'rescinded', tx_hash: rescind.transactionHash });
    expect((await eventsOf(e.sql, id)).map((ev) => ev.type)).toEqual(['transaction.escrowed', 'transaction.rescinded']);

    // The same hash again (a client retrying after a lost answer): 200 with the transaction, nothing moves twice.
    const again = await submit();
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ success: true, transaction: { id, status: 'rescinded', txHash: rescind.transactionHash } });
    expect((await eventsOf(e.sql, id)).map((ev) => ev.type)).toEqual(['transaction.escrowed', 'transaction.rescinded']);
    // Another hash on a rescinded transaction is still refused.
    const other = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/rescind`, {
      headers: bearer(p.token),
      body: { txHash: created.transactionHash },
    });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('INVALID_STATE_TRANSITION');
  });

  it('an early-release consent hash waits for the confirmations too; the same hash again is 200, also once the release completed', async () => {
    const { id } = await escrowedWithHold();
    const consent = await e.world.escrowCall('attestEarlyRelease', id, 'sender');
    const submit = () =>
      call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release-early/attest`, {
        headers: bearer(p.token),
        body: { party: 'sender', txHash: consent.transactionHash },
      });
    const consents = () => e.sql`select party, verified from early_release_attestations where transaction_id = ${id}`;

    const early = await submit();
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'CHAIN_TRANSACTION_PENDING', details: { confirmations: 0, required: 3 } });
    expect(await consents()).toEqual([]);

    await mine(3);
    const done = await submit();
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.earlyRelease).toEqual({ senderAttested: true, receiverAttested: false });
    expect(await consents()).toEqual([{ party: 'sender', verified: true }]);

    // The receiver's consent pays out on chain; the payments row follows the chain (as the indexer's event would).
    await e.world.escrowCall('attestEarlyRelease', id, 'receiver');
    await e.sql`update transactions set status = 'completed' where id = ${id}`;
    const again = await submit();
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ success: true, transaction: { id, status: 'completed' } });
    expect(await consents()).toEqual([{ party: 'sender', verified: true }]);
  });

  it('a CHAIN event that arrives before its block is three deep moves nothing until it is (issue 28 item 4)', async () => {
    const id = await insertTransaction(e.sql, { platformId: p.platformId, from: SENDER, to: RECEIVER });
    const created = await e.world.createEscrow(id, AMOUNT);
    // Published at once, as a publisher that does not wait (another indexer's depth, a forgery of a real log) would.
    await publishChain(e.nats.bus, await e.world.indexed(created));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await rowOf(id)).toEqual({ status: 'pending', tx_hash: null });
    expect(await e.sql`select 1 from applied_chain_messages where transaction_id = ${id}`).toHaveLength(0);
    expect(await eventsOf(e.sql, id)).toEqual([]);
    await mine(3);
    await waitFor(async () => (await rowOf(id))?.status === 'escrowed', 'the event applied once three deep', 30_000);
    expect((await eventsOf(e.sql, id)).map((x) => x.type)).toEqual(['transaction.escrowed']);
  });

  it('a receipt that does not match is refused at once (400), whatever its depth', async () => {
    const id = await insertTransaction(e.sql, { platformId: p.platformId, from: SENDER, to: RECEIVER, orchestrationType: 'raw' });
    await e.world.mint(SENDER, 1_000_000n);
    const receipt = await e.world.transfer(RECEIVER, 1_000_000n);
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/hash`, {
      headers: bearer(p.token),
      body: { txHash: receipt.transactionHash },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'CHAIN_RECEIPT_MISMATCH', details: { reason: 'no_matching_transfer' } });
    expect((await rowOf(id))?.status).toBe('pending');
  });
});

describe('payments reads CHAIN_CONFIRMATIONS', () => {
  it('as the indexer does: overrides per network, one line per bad entry', () => {
    expect(paymentsConfigFrom({ CHAIN_CONFIRMATIONS: 'base-sepolia=3' }).settlement.confirmations).toEqual({ 'base-sepolia': 3 });
    expect(paymentsConfigFrom({}).settlement.confirmations).toEqual({});
    expect(() => paymentsConfigFrom({ CHAIN_CONFIRMATIONS: 'base-sepolia=-1' })).toThrow(
      /CHAIN_CONFIRMATIONS: "base-sepolia=-1": confirmations must be an integer from 0 to 10000/,
    );
  });
});

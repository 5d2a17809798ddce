import { EVENT_TYPES, eventTypeCatalog } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { AMOUNT, eventsOf, platformWithCredentials, RECEIVER, SENDER, startChainPaymentsEnv } from '../support/chain.js';
import { checkoutClient, sessionEvents, sessionRow } from '../support/checkout.js';
import { bearer, call } from '../support/harness.js';

// A checkout session paid for real on a private chain: the payer names its address, locks the
// escrow with the instructions it was given, the hash reaches escrow-hash, and the move to
// `escrowed` completes the session in the same database transaction (checkout.session.completed
// beside transaction.escrowed in the outbox).

const e = fileFixture(() => startChainPaymentsEnv({ CHECKOUT_EXPIRY_INTERVAL: '1h' }));
let p: Awaited<ReturnType<typeof platformWithCredentials>>;
let api: ReturnType<typeof checkoutClient>;

beforeAll(async () => {
  p = await platformWithCredentials(e, 'checkout completion');
  api = checkoutClient(e.svc.url);
}, 60_000);

describe('completion', () => {
  it('payer -> escrow locked on chain -> escrow-hash -> session complete with checkout.session.completed, in the move’s transaction', async () => {
    const created = await api.create(p.token, {
      amount: '25.5',
      toAddress: RECEIVER,
      successUrl: 'https://shop.example/thanks',
      cancelUrl: 'https://shop.example/cart',
      metadata: { order: 'Z-1' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const s = created.body;
    const paid = await api.payer(s.id, SENDER);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const { transactionId } = paid.body.session;
    const { escrow } = paid.body;
    expect(escrow).toMatchObject({ contractAddress: e.world.escrow, tokenAddress: e.world.usdc, amountBaseUnits: AMOUNT.toString() });

    const receipt = await e.world.createEscrow(transactionId, BigInt(escrow.amountBaseUnits), {
      holdDeadline: BigInt(escrow.holdDeadline),
    });
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${transactionId}/escrow-hash`, {
      headers: bearer(p.token),
      body: { transactionHash: receipt.transactionHash },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.transaction.status).toBe('escrowed');

    const done = await api.get(p.token, s.id);
    expect(done.body).toMatchObject({ status: 'complete', transactionId, fromAddress: SENDER });
    expect(done.body.completedAt).not.toBeNull();
    expect((await sessionRow(e.sql, s.id)).status).toBe('complete');
    const events = await sessionEvents(e.sql, s.id);
    expect(events.map((x) => x.type)).toEqual(['checkout.session.completed']);
    expect(events[0]?.payload).toMatchObject({
      platformId: p.platformId,
      data: { session: { id: s.id, status: 'complete', transactionId, amount: '25.5', fromAddress: SENDER, metadata: { order: 'Z-1' } } },
    });
    // One database transaction: the session's event sits right after the move's transaction.escrowed.
    const [order] = await e.sql<{ escrowed: string; completed: string }[]>`
      select (select seq from outbox where type = 'transaction.escrowed' and payload->'data'->'transaction'->>'id' = ${transactionId})::text as escrowed,
             (select seq from outbox where type = 'checkout.session.completed' and payload->'data'->'session'->>'id' = ${s.id})::text as completed`;
    expect(BigInt(order!.completed)).toBe(BigInt(order!.escrowed) + 1n);
    expect((await eventsOf(e.sql, transactionId)).map((x) => x.type)).toEqual(['transaction.created', 'transaction.escrowed']);

    // The payer's call again: the session as it is now, the same transaction.
    const again = await api.payer(s.id, SENDER);
    expect(again.status).toBe(200);
    expect(again.body.session).toMatchObject({ status: 'complete', transactionId });
    const expire = await api.expire(p.token, s.id);
    expect([expire.status, expire.body.error.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
  });

  it('a transaction of no session escrows as before (the hook leaves it alone)', async () => {
    const tx = await call(e.svc.url, 'POST', '/api/v2/transactions', {
      headers: bearer(p.token),
      body: { fromAddress: SENDER, toAddress: RECEIVER, amount: '1', signerType: 'external_wallet' },
    });
    expect(tx.status, JSON.stringify(tx.body)).toBe(201);
    const receipt = await e.world.createEscrow(tx.body.id, 1_000_000n, { holdDeadline: BigInt(tx.body.escrow.holdDeadline) });
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${tx.body.id}/escrow-hash`, {
      headers: bearer(p.token),
      body: { transactionHash: receipt.transactionHash },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(
      await e.sql`select 1 from outbox where type like 'checkout.%' and payload->'data'->'session'->>'transactionId' = ${tx.body.id}`,
    ).toEqual([]);
  });

  it('the new event types are in the catalogue webhook subscriptions are checked against (the dispatcher lists EVENT_TYPES)', () => {
    const listed = eventTypeCatalog().map((t) => t.type);
    expect(listed).toEqual([...EVENT_TYPES]);
    expect(listed).toEqual(expect.arrayContaining(['checkout.session.completed', 'checkout.session.expired']));
  });
});

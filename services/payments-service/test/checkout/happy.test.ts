import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { address, checkoutClient, sessionBody, sessionEvents, sessionRow } from '../support/checkout.js';
import { startPaymentsEnv } from '../support/harness.js';
import { newTenant, type Tenant } from '../support/transactions.js';

// Checkout sessions on one real instance (PostgreSQL, JetStream): create, read, list, expire, the
// payer's call that creates the session's transaction, and the expiry worker (docs/checkout.md).

const e = fileFixture(() => startPaymentsEnv({ CHECKOUT_EXPIRY_INTERVAL: '100ms', PAYMENTS_PUBLIC_URL: 'https://pay.holdfast.example' }));
let t: Tenant;
let api: ReturnType<typeof checkoutClient>;

beforeAll(async () => {
  t = await newTenant(e);
  api = checkoutClient(e.svc.url);
});

describe('create', () => {
  it('answers 201 with an open session, its hosted page url and a 30-minute expiry, and stores it', async () => {
    const body = sessionBody({ currency: 'USDC', customerId: 'cust-1', metadata: { order: 'A-1' } });
    const res = await api.create(t.token, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const s = res.body;
    expect(s).toMatchObject({
      platformId: t.platformId,
      status: 'open',
      url: `https://pay.holdfast.example/pay/${s.id}`,
      amount: '25.5',
      currency: 'USDC',
      blockchainNetwork: 'base-sepolia',
      toAddress: body.toAddress,
      fromAddress: null,
      customerId: 'cust-1',
      metadata: { order: 'A-1' },
      successUrl: body.successUrl,
      cancelUrl: body.cancelUrl,
      transactionId: null,
      idempotencyKey: null,
      completedAt: null,
      expiredAt: null,
    });
    expect(s.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(Date.parse(s.expiresAt) - Date.parse(s.createdAt)).toBeGreaterThanOrEqual(30 * 60 * 1000 - 1000);
    expect(Date.parse(s.expiresAt) - Date.parse(s.createdAt)).toBeLessThanOrEqual(30 * 60 * 1000 + 1000);
    expect(await sessionRow(e.sql, s.id)).toMatchObject({ status: 'open', from_address: null, transaction_id: null });
    expect((await api.get(t.token, s.id)).body).toEqual(s);
  });

  it('takes an expiry of up to 24 hours', async () => {
    const res = await api.create(t.token, sessionBody({ expiresInSeconds: 86_400 }));
    expect(res.status).toBe(201);
    expect(Math.round((Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)) / 1000)).toBe(86_400);
  });

  it('Idempotency-Key: the same body answers the first session (Idempotent-Replayed); another body 422; nothing new stored', async () => {
    const body = sessionBody();
    const first = await api.create(t.token, body, { 'idempotency-key': 'order-77' });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await api.create(t.token, body, { 'idempotency-key': 'order-77' });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await api.create(t.token, { ...body, amount: 26 }, { 'idempotency-key': 'order-77' });
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { checkoutSessionId: first.body.id } });
    const rows = await e.sql`select count(*)::int as n from checkout_sessions where idempotency_key = 'order-77'`;
    expect(rows[0]?.n).toBe(1);
  });
});

describe('list', () => {
  it('pages newest first and filters by status and customerId', async () => {
    const other = await newTenant(e);
    const made = [];
    for (let i = 0; i < 3; i += 1) made.push((await api.create(other.token, sessionBody({ customerId: i === 0 ? 'c-x' : 'c-y' }))).body);
    await api.expire(other.token, made[0].id);

    const page1 = await api.list(other.token, '?limit=2&page=1');
    expect(page1.status).toBe(200);
    expect(page1.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(page1.body.data.map((s: { id: string }) => s.id)).toEqual([made[2].id, made[1].id]);
    const page2 = await api.list(other.token, '?limit=2&page=2');
    expect(page2.body.data.map((s: { id: string }) => s.id)).toEqual([made[0].id]);

    const expired = await api.list(other.token, '?status=expired');
    expect(expired.body.data.map((s: { id: string }) => s.id)).toEqual([made[0].id]);
    const byCustomer = await api.list(other.token, '?customerId=c-y');
    expect(byCustomer.body.data.map((s: { id: string }) => s.id)).toEqual([made[2].id, made[1].id]);
    expect((await api.list(other.token, '?status=teleported')).status).toBe(400);
  });
});

describe('expire', () => {
  it('an open session expires at once with checkout.session.expired; again: 200 as it is, no second event', async () => {
    const s = (await api.create(t.token, sessionBody({ metadata: { order: 'B-2' } }))).body;
    const res = await api.expire(t.token, s.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: s.id, status: 'expired' });
    expect(res.body.expiredAt).not.toBeNull();
    const events = await sessionEvents(e.sql, s.id);
    expect(events.map((x) => x.type)).toEqual(['checkout.session.expired']);
    expect(events[0]?.payload).toMatchObject({
      type: 'checkout.session.expired',
      platformId: t.platformId,
      data: { session: { id: s.id, status: 'expired', transactionId: null, amount: '25.5', metadata: { order: 'B-2' } } },
    });

    const again = await api.expire(t.token, s.id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    expect(await sessionEvents(e.sql, s.id)).toHaveLength(1);
  });

  it('the worker expires an open session once expiresAt passed, with its event', async () => {
    const s = (await api.create(t.token, sessionBody())).body;
    await e.sql`update checkout_sessions set expires_at = now() - interval '1 second' where id = ${s.id}`;
    const deadline = Date.now() + 10_000;
    while ((await sessionRow(e.sql, s.id)).status !== 'expired' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect((await api.get(t.token, s.id)).body.status).toBe('expired');
    expect((await sessionEvents(e.sql, s.id)).map((x) => x.type)).toEqual(['checkout.session.expired']);
  });
});

describe('the payer (hosted page)', () => {
  it('creates the session’s transaction (platform, external wallet, the session’s fields) and moves it to processing; again: the same', async () => {
    const s = (await api.create(t.token, sessionBody({ customerId: 'cust-9', metadata: { order: 'C-3' } }))).body;
    const payer = address();
    const res = await api.payer(s.id, payer);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.session).toMatchObject({ id: s.id, status: 'processing', fromAddress: payer, toAddress: s.toAddress });
    expect(res.body.session).not.toHaveProperty('metadata');
    expect(res.body.session).not.toHaveProperty('customerId');
    const txId = res.body.session.transactionId;
    expect(res.body.escrow).toMatchObject({ amountBaseUnits: '25500000', onchainId: `0x${'0'.repeat(32)}${txId.replaceAll('-', '')}` });

    const [tx] = await e.sql`
      select status, from_address, to_address, amount::text, orchestration_type, signer_type, customer_id, metadata, idempotency_key
      from transactions where id = ${txId}`;
    expect(tx).toEqual({
      status: 'pending_user_action',
      from_address: payer,
      to_address: s.toAddress,
      amount: '25.5',
      orchestration_type: 'platform',
      signer_type: 'external_wallet',
      customer_id: 'cust-9',
      metadata: { order: 'C-3' },
      idempotency_key: `checkout_session:${s.id}`,
    });
    expect((await api.get(t.token, s.id)).body).toMatchObject({ status: 'processing', transactionId: txId, fromAddress: payer });

    const again = await api.payer(s.id, payer.toUpperCase().replace('0X', '0x'));
    expect(again.status).toBe(200);
    expect(again.body.session.transactionId).toBe(txId);
    expect((await e.sql`select count(*)::int as n from transactions where idempotency_key = ${`checkout_session:${s.id}`}`)[0]?.n).toBe(1);
    // The worker leaves a processing session alone, even past its expiry.
    await e.sql`update checkout_sessions set expires_at = now() - interval '1 second' where id = ${s.id}`;
    await new Promise((r) => setTimeout(r, 400));
    expect((await sessionRow(e.sql, s.id)).status).toBe('processing');
  });
});

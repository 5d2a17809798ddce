import { randomUUID } from 'node:crypto';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { returnUrl } from '../../src/modules/checkout/service.js';
import { address, checkoutClient, sessionBody, sessionEvents, sessionRow } from '../support/checkout.js';
import { startPaymentsEnv } from '../support/harness.js';
import { count, newTenant, type Tenant } from '../support/transactions.js';

// Checkout sessions: bad input is a 4xx naming the field and writes nothing; moves the state machine
// does not allow are 409 (docs/checkout.md).

const e = fileFixture(() => startPaymentsEnv({ CHECKOUT_EXPIRY_INTERVAL: '1h' }));
let t: Tenant;
let api: ReturnType<typeof checkoutClient>;

beforeAll(async () => {
  t = await newTenant(e);
  api = checkoutClient(e.svc.url);
});

async function unchanged<T>(what: () => Promise<T>) {
  const before = await Promise.all([count(e, 'checkout_sessions'), count(e, 'transactions'), count(e, 'outbox')]);
  const out = await what();
  expect(await Promise.all([count(e, 'checkout_sessions'), count(e, 'transactions'), count(e, 'outbox')])).toEqual(before);
  return out;
}

describe('create: bad input -> 400 VALIDATION_ERROR naming the field, nothing stored', () => {
  it.each([
    ['successUrl', { successUrl: 'not a url' }],
    ['successUrl', { successUrl: 'javascript:alert(1)' }],
    ['cancelUrl', { cancelUrl: 'https://user:secret@shop.example/cart' }],
    ['cancelUrl', { cancelUrl: 'ftp://shop.example/cart' }],
    ['expiresInSeconds', { expiresInSeconds: 86_401 }],
    ['expiresInSeconds', { expiresInSeconds: 10 }],
    ['expiresInSeconds', { expiresInSeconds: 90.5 }],
    ['amount', { amount: 0 }],
    ['amount', { amount: 1_000_000.01 }],
    ['amount', { amount: '1e3' }],
    ['amount', { amount: '1.1234567' }],
    ['currency', { currency: 'EUR' }],
    ['blockchainNetwork', { blockchainNetwork: 'bitcoin' }],
    ['templateId', { templateId: 'tpl-1' }],
    ['toAddress', { toAddress: '   ' }],
    ['fromAddress', { fromAddress: '0xabc' }],
  ])('%s: %j', async (field, extra) => {
    const res = await unchanged(() => api.create(t.token, sessionBody(extra)));
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.errors.map((x: { field: string }) => x.field)).toContain(field);
  });

  it('outside local a return URL must be https (http is taken in local only)', () => {
    expect(() => returnUrl('http://shop.example/thanks', 'successUrl', 'production')).toThrow(/https/);
    expect(() => returnUrl('http://shop.example/thanks', 'successUrl', 'staging')).toThrow(/https/);
    expect(returnUrl(' https://shop.example/thanks ', 'successUrl', 'production')).toBe('https://shop.example/thanks');
    expect(returnUrl('http://127.0.0.1:5173/done', 'successUrl', 'local')).toBe('http://127.0.0.1:5173/done');
  });

  it('a missing successUrl -> 400 naming it', async () => {
    const { successUrl: _, ...body } = sessionBody();
    const res = await unchanged(() => api.create(t.token, body));
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toContainEqual({ field: 'successUrl', reason: 'is required' });
  });

  it('an unknown templateId -> 404, nothing stored', async () => {
    const res = await unchanged(() => api.create(t.token, sessionBody({ templateId: randomUUID() })));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('body and header idempotency keys that differ -> 400 idempotencyKey', async () => {
    const res = await unchanged(() => api.create(t.token, sessionBody({ idempotencyKey: 'a' }), { 'idempotency-key': 'b' }));
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors[0].field).toBe('idempotencyKey');
  });
});

describe('moves the state machine refuses', () => {
  it('expire on a processing session -> 409 INVALID_STATE_TRANSITION, nothing changes', async () => {
    const s = (await api.create(t.token, sessionBody())).body;
    expect((await api.payer(s.id, address())).status).toBe(200);
    const res = await api.expire(t.token, s.id);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'INVALID_STATE_TRANSITION', details: { status: 'processing', action: 'expire' } });
    expect((await sessionRow(e.sql, s.id)).status).toBe('processing');
    expect(await sessionEvents(e.sql, s.id)).toEqual([]);
  });

  it('a second, different payer while processing -> 409 CONFLICT; no second transaction', async () => {
    const s = (await api.create(t.token, sessionBody())).body;
    const first = await api.payer(s.id, address());
    const res = await unchanged(() => api.payer(s.id, address()));
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'CONFLICT', details: { field: 'fromAddress' } });
    expect((await sessionRow(e.sql, s.id)).transaction_id).toBe(first.body.session.transactionId);
  });

  it('a payer on an expired session -> 409 INVALID_STATE_TRANSITION, no transaction', async () => {
    const s = (await api.create(t.token, sessionBody())).body;
    await api.expire(t.token, s.id);
    const res = await unchanged(() => api.payer(s.id, address()));
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INVALID_STATE_TRANSITION');
  });

  it('a payer past expiresAt (before the worker came) -> 409; the session is expired then, with its event', async () => {
    const s = (await api.create(t.token, sessionBody())).body;
    await e.sql`update checkout_sessions set expires_at = now() - interval '1 second' where id = ${s.id}`;
    const res = await api.payer(s.id, address());
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INVALID_STATE_TRANSITION');
    expect(await sessionRow(e.sql, s.id)).toMatchObject({ status: 'expired', transaction_id: null });
    expect((await sessionEvents(e.sql, s.id)).map((x) => x.type)).toEqual(['checkout.session.expired']);
  });

  it('the payer naming the receiver -> 400 fromAddress; the session stays open', async () => {
    const s = (await api.create(t.token, sessionBody())).body;
    const res = await unchanged(() => api.payer(s.id, s.toAddress.toUpperCase().replace('0X', '0x')));
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors[0].field).toBe('fromAddress');
    expect((await sessionRow(e.sql, s.id)).status).toBe('open');
  });

  it('a refused creation puts the session back to open (a template deleted since)', async () => {
    const tpl = await e.sql`insert into control_templates (id, platform_id, name, version, controls)
      values (${randomUUID()}, ${t.platformId}, 'gone soon', 1, '[]'::jsonb) returning id`;
    const s = (await api.create(t.token, sessionBody({ templateId: tpl[0]!.id }))).body;
    await e.sql`delete from control_templates where id = ${tpl[0]!.id}`;
    const res = await unchanged(() => api.payer(s.id, address()));
    expect(res.status).toBe(404);
    expect(await sessionRow(e.sql, s.id)).toMatchObject({ status: 'open', from_address: null, transaction_id: null });
  });
});

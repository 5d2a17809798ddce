import { randomUUID } from 'node:crypto';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { address, checkoutClient, sessionBody, sessionEvents, sessionRow } from '../support/checkout.js';
import { bearer, call, createClient, key, startPaymentsEnv, tokenFor } from '../support/harness.js';
import { count, newTenant, type Tenant } from '../support/transactions.js';

// Checkout sessions: credentials, scopes and tenant isolation (another platform's session is 404,
// for reads and moves alike); the hosted page's payer call takes no credential and shows no
// platform data.

const e = fileFixture(() => startPaymentsEnv({ CHECKOUT_EXPIRY_INTERVAL: '1h' }));
let t: Tenant;
let other: Tenant;
let readOnly: string;
let api: ReturnType<typeof checkoutClient>;

beforeAll(async () => {
  [t, other] = await Promise.all([newTenant(e), newTenant(e)]);
  const reader = await createClient(e.svc.url, e.admin, { name: 'reader', scopes: ['read:transactions'], platformId: t.platformId });
  readOnly = await tokenFor(e.svc.url, reader);
  api = checkoutClient(e.svc.url);
});

describe('credentials and scopes', () => {
  it('no credential -> 401; an API key on v2 -> 401; nothing stored', async () => {
    const before = await count(e, 'checkout_sessions');
    const none = await call(e.svc.url, 'POST', '/api/v2/checkout/sessions', { body: sessionBody() });
    expect([none.status, none.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    const withKey = await call(e.svc.url, 'POST', '/api/v2/checkout/sessions', { headers: key(t.apiKey), body: sessionBody() });
    expect(withKey.status).toBe(401);
    expect((await call(e.svc.url, 'GET', '/api/v2/checkout/sessions')).status).toBe(401);
    expect(await count(e, 'checkout_sessions')).toBe(before);
  });

  it('a read-only token -> 403 INSUFFICIENT_SCOPE on create and expire; it may read and list', async () => {
    const before = await count(e, 'checkout_sessions');
    const res = await api.create(readOnly, sessionBody());
    expect([res.status, res.body.error.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    expect(await count(e, 'checkout_sessions')).toBe(before);

    const s = (await api.create(t.token, sessionBody())).body;
    const expire = await api.expire(readOnly, s.id);
    expect([expire.status, expire.body.error.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
    expect((await sessionRow(e.sql, s.id)).status).toBe('open');
    expect((await api.get(readOnly, s.id)).status).toBe(200);
    expect((await api.list(readOnly)).status).toBe(200);
  });
});

describe('tenant isolation', () => {
  it("another platform's session: 404 on read and expire (nothing changes), absent from its list", async () => {
    const mine = (await api.create(t.token, sessionBody())).body;
    const read = await api.get(other.token, mine.id);
    expect([read.status, read.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const expire = await api.expire(other.token, mine.id);
    expect([expire.status, expire.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await sessionRow(e.sql, mine.id)).status).toBe('open');
    expect(await sessionEvents(e.sql, mine.id)).toEqual([]);
    const theirList = await api.list(other.token, '?limit=100');
    expect(theirList.body.data.map((s: { id: string }) => s.id)).not.toContain(mine.id);
    expect((await api.list(other.token, `?transactionId=${randomUUID()}`)).body.data).toEqual([]);
  });

  it("another platform's idempotency key is its own: the same key makes two sessions", async () => {
    const a = await api.create(t.token, sessionBody(), { 'idempotency-key': 'shared-key' });
    const b = await api.create(other.token, sessionBody(), { 'idempotency-key': 'shared-key' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(a.body.id).not.toBe(b.body.id);
  });
});

describe('the payer call (no credential)', () => {
  it('an unknown session -> 404; a non-uuid id -> 400; nothing created', async () => {
    const before = await count(e, 'transactions');
    expect((await api.payer(randomUUID(), address())).status).toBe(404);
    expect((await api.payer('not-a-uuid', address())).status).toBe(400);
    expect(await count(e, 'transactions')).toBe(before);
  });

  it("creates the transaction under the session's platform, whatever credential is sent; shows no metadata", async () => {
    const s = (await api.create(t.token, sessionBody({ metadata: { secret: 'internal' }, customerId: 'c-1' }))).body;
    // Another platform's token changes nothing: the session names its owner.
    const res = await api.payer(s.id, address(), bearer(other.token));
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('internal');
    expect(JSON.stringify(res.body)).not.toContain('c-1');
    const [tx] = await e.sql`select platform_id from transactions where id = ${res.body.session.transactionId}`;
    expect(tx?.platform_id).toBe(t.platformId);
  });
});

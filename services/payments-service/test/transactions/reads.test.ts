import { randomUUID } from 'node:crypto';
import { PAYMENTS_V2_OPERATIONS, TRANSACTION_STATUSES } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, createClient, key, type Loose, PRODUCTION_ENV, startPaymentsEnv, tokenFor } from '../support/harness.js';
import { address, count, newTenant, type Tenant } from '../support/transactions.js';

// GET list / at-risk / stats and POST quote, on v1 and v2, with the security cases.

const e = fileFixture(() => startPaymentsEnv());
let t: Tenant;
let other: Tenant;
let readOnly: string;
const alice = address();
const bob = address();
const carol = address();
const ids: Record<string, string> = {};

const get = (path: string, headers: Record<string, string> = bearer(t.token)) => call(e.svc.url, 'GET', path, { headers });

async function make(name: string, b: Loose, status?: string, ageHours = 0) {
  const res = await call(e.svc.url, 'POST', '/api/v2/transactions', { headers: bearer(t.token), body: b });
  if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  ids[name] = res.body.id;
  if (status || ageHours) {
    await e.sql`update transactions set status = coalesce(${status ?? null}, status),
      status_changed_at = now() - make_interval(hours => ${ageHours}), created_at = created_at - make_interval(hours => ${ageHours})
      where id = ${res.body.id}`;
  }
}

beforeAll(async () => {
  [t, other] = await Promise.all([newTenant(e), newTenant(e)]);
  const reader = await createClient(e.svc.url, e.admin, { name: 'no read', scopes: ['write:transactions'], platformId: t.platformId });
  readOnly = await tokenFor(e.svc.url, reader);
  await make('a1', { fromAddress: alice, toAddress: bob, amount: '0.1', customerId: 'cust-a' });
  await make('a2', { fromAddress: alice, toAddress: carol, amount: '0.2' }, 'escrowed', 30);
  await make('b1', { fromAddress: bob, toAddress: carol, amount: 1000000 }, 'escrowed', 80);
  await make('c1', { fromAddress: carol, toAddress: alice, amount: '7.25', customerId: 'cust-a' }, 'disputed', 1);
  await make('c2', { fromAddress: carol, toAddress: bob, amount: '2.75' }, 'completed');
  await make('p1', { fromAddress: bob, toAddress: alice, amount: 3, signerType: 'external_wallet' });
  // Another platform's transaction never shows.
  await call(e.svc.url, 'POST', '/api/v2/transactions', {
    headers: bearer(other.token),
    body: { fromAddress: alice, toAddress: bob, amount: 99 },
  });
});

describe('list', () => {
  it('answers {data, pagination}, newest first, only the platform’s', async () => {
    const res = await get('/api/v2/transactions');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 6, totalPages: 1 });
    expect(res.body.data.map((x: Loose) => x.id)).toEqual([ids.p1, ids.c2, ids.a1, ids.c1, ids.a2, ids.b1]);
    expect(res.body.data.every((x: Loose) => x.platformId === t.platformId)).toBe(true);
    expect(res.body.data[0].rescind).toBeUndefined();
  });

  it('pages', async () => {
    const page2 = await get('/api/v2/transactions?page=2&limit=4');
    expect(page2.body.pagination).toEqual({ page: 2, limit: 4, total: 6, totalPages: 2 });
    expect(page2.body.data.map((x: Loose) => x.id)).toEqual([ids.a2, ids.b1]);
    const beyond = await get('/api/v2/transactions?page=9&limit=4');
    expect(beyond.body.data).toEqual([]);
  });

  it.each([
    ['status=escrowed', ['a2', 'b1']],
    [`fromAddress=${alice.toUpperCase().replace('0X', '0x')}`, ['a1', 'a2']],
    [`toAddress=${carol}`, ['a2', 'b1']],
    [`walletAddress=${alice}`, ['p1', 'a1', 'c1', 'a2']],
    ['customerId=cust-a', ['a1', 'c1']],
    [`walletAddress=${bob}&status=escrowed`, ['b1']],
  ])('filters by %s', async (query, names) => {
    const res = await get(`/api/v1/transactions?${query}`, key(t.apiKey));
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: Loose) => x.id)).toEqual(names.map((n) => ids[n]));
    expect(res.body.pagination.total).toBe(names.length);
  });

  it('filters by dateFrom and dateTo (date-time instants; a date is a whole day)', async () => {
    const since = new Date(Date.now() - 2 * 3600 * 1000).toISOString();
    const recent = await get(`/api/v2/transactions?dateFrom=${since}`);
    expect(recent.body.data.map((x: Loose) => x.id)).toEqual([ids.p1, ids.c2, ids.a1, ids.c1]);
    const old = await get(`/api/v2/transactions?dateTo=${since}`);
    expect(old.body.data.map((x: Loose) => x.id)).toEqual([ids.a2, ids.b1]);
    const [row] = await e.sql`select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day from transactions where id = ${ids.b1!}`;
    const day = await get(`/api/v2/transactions?dateFrom=${row!.day}&dateTo=${row!.day}`);
    expect(day.body.data.map((x: Loose) => x.id)).toContain(ids.b1);
  });

  it.each(['status=open', 'limit=101', 'limit=0', 'page=0', 'dateFrom=yesterday', 'colour=red', `dateFrom=2026-02-01&dateTo=2026-01-01`])(
    'bad query %s -> 400',
    async (query) => {
      const res = await get(`/api/v2/transactions?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    },
  );
});

describe('stats', () => {
  it('every status with count and exact total_amount', async () => {
    const res = await get('/api/v2/transactions/stats');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...TRANSACTION_STATUSES].sort());
    expect(res.body.escrowed).toEqual({ count: 2, total_amount: '1000000.2' });
    expect(res.body.pending).toEqual({ count: 1, total_amount: '0.1' });
    expect(res.body.pending_user_action).toEqual({ count: 1, total_amount: '3' });
    expect(res.body.completed).toEqual({ count: 1, total_amount: '2.75' });
    expect(res.body.refunded).toEqual({ count: 0, total_amount: '0' });
    const v1 = await get('/api/v1/transactions/stats', key(t.apiKey));
    expect(v1.body).toEqual(res.body);
  });
});

describe('at-risk', () => {
  it('per watched status: count, exact total, oldest age, over 24 h and 72 h (by status change)', async () => {
    const res = await get('/api/v2/transactions/at-risk');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['disputed', 'escrowed', 'in_review', 'pending_user_action']);
    expect(res.body.escrowed).toMatchObject({ count: 2, totalAmount: '1000000.2', over24h: 2, over72h: 1 });
    expect(res.body.escrowed.oldestAgeSeconds).toBeGreaterThanOrEqual(80 * 3600);
    expect(res.body.disputed).toMatchObject({ count: 1, totalAmount: '7.25', over24h: 0, over72h: 0 });
    expect(res.body.disputed.oldestAgeSeconds).toBeGreaterThanOrEqual(3600);
    expect(res.body.pending_user_action).toMatchObject({ count: 1, totalAmount: '3', over24h: 0 });
    expect(res.body.in_review).toEqual({ count: 0, totalAmount: '0', oldestAgeSeconds: null, over24h: 0, over72h: 0 });
  });
});

describe('route order', () => {
  it('/at-risk and /stats are not taken for an id (static paths win; :id must be a uuid)', async () => {
    expect((await get('/api/v2/transactions/at-risk')).status).toBe(200);
    expect((await get('/api/v1/transactions/stats', key(t.apiKey))).status).toBe(200);
    const notId = await get('/api/v2/transactions/whatever');
    expect(notId.status).toBe(400);
    expect(notId.body.error.details.errors[0].field).toBe('id');
  });
});

describe('quote', () => {
  it('v2 and v1: fee, total, expiry; stored, exact; the platform default applies without billingConfig', async () => {
    const res = await call(e.svc.url, 'POST', '/api/v2/transactions/quote', {
      headers: bearer(t.token),
      body: { amount: '1234.56', currency: 'USDC', billingConfig: { feeType: 'percentage', feePercentage: 0.35 } },
    });
    expect(res.status).toBe(201);
    // 1234.56 * 0.35% = 4.32096
    expect(res.body).toMatchObject({
      amount: '1234.56',
      fee: '4.32096',
      total: '1238.88096',
      currency: 'USDC',
      blockchainNetwork: 'base-sepolia',
      feeType: 'percentage',
      feePercentage: '0.35',
    });
    const ttl = Date.parse(res.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(200_000);
    expect(ttl).toBeLessThanOrEqual(300_000);
    const [row] = await e.sql`select platform_id, fee::text, total::text, used_at from quotes where id = ${res.body.quoteId}`;
    expect(row).toEqual({ platform_id: t.platformId, fee: '4.32096', total: '1238.88096', used_at: null });

    const rounded = await call(e.svc.url, 'POST', '/api/v1/transactions/quote', {
      headers: key(t.apiKey),
      body: { amount: 0.01, currency: 'USDC', billingConfig: { feePercentage: '33.333333' } },
    });
    // 0.0033333333 rounds half up to 6 decimals.
    expect(rounded.body).toMatchObject({ fee: '0.003333', total: '0.013333' });

    const fixed = await call(e.svc.url, 'POST', '/api/v2/transactions/quote', {
      headers: bearer(t.token),
      body: { amount: 10, currency: 'ETH', billingConfig: { feeType: 'fixed', fixedFee: '0.000000000000000001' } },
    });
    expect(fixed.body).toMatchObject({ fee: '0.000000000000000001', total: '10.000000000000000001', feeType: 'fixed' });

    const none = await call(e.svc.url, 'POST', '/api/v2/transactions/quote', {
      headers: bearer(t.token),
      body: { amount: 10, currency: 'USDT' },
    });
    expect(none.body).toMatchObject({ fee: '0', total: '10', feePercentage: '0' });
  });

  it.each([
    ['no currency', { amount: 1 }],
    ['amount too large', { amount: 1000001, currency: 'USDC' }],
    ['percentage over 100', { amount: 1, currency: 'USDC', billingConfig: { feePercentage: 101 } }],
    ['fee currency differs', { amount: 1, currency: 'USDC', billingConfig: { currency: 'USDT' } }],
  ])('%s -> 400, nothing stored', async (_name, b) => {
    const before = await count(e, 'quotes');
    const res = await call(e.svc.url, 'POST', '/api/v2/transactions/quote', { headers: bearer(t.token), body: b });
    expect(res.status).toBe(400);
    expect(await count(e, 'quotes')).toBe(before);
  });
});

describe('security of the reads and the quote', () => {
  const paths = ['/transactions', '/transactions/at-risk', '/transactions/stats', `/transactions/${randomUUID()}`];
  it.each(paths)('%s: no credential -> 401, API key on v2 -> 401, missing read scope -> 403', async (path) => {
    expect((await get(`/api/v2${path}`, {})).status).toBe(401);
    expect((await get(`/api/v1${path}`, {})).status).toBe(401);
    expect((await get(`/api/v2${path}`, key(t.apiKey))).status).toBe(401);
    const denied = await get(`/api/v2${path}`, bearer(readOnly));
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('another platform sees none of these transactions', async () => {
    const list = await get('/api/v2/transactions', bearer(other.token));
    expect(list.body.pagination.total).toBe(1);
    expect((await get(`/api/v2/transactions/${ids.a1}`, bearer(other.token))).status).toBe(404);
    const stats = await get('/api/v2/transactions/stats', bearer(other.token));
    expect(stats.body.escrowed.count).toBe(0);
  });

  it('quote: no credential -> 401, API key on v2 -> 401, missing write scope -> 403', async () => {
    const b = { amount: 1, currency: 'USDC' };
    expect((await call(e.svc.url, 'POST', '/api/v2/transactions/quote', { body: b })).status).toBe(401);
    expect((await call(e.svc.url, 'POST', '/api/v2/transactions/quote', { headers: key(t.apiKey), body: b })).status).toBe(401);
    const readerKey = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
      headers: key(e.admin),
      body: { name: 'reader', scopes: ['read:transactions'] },
    });
    const denied = await call(e.svc.url, 'POST', '/api/v1/transactions/quote', { headers: key(readerKey.body.apiKey), body: b });
    expect(denied.status).toBe(403);
  });
});

describe('OpenAPI', () => {
  it('serves the core transaction operations of the contract on v2 and v1, at the contract tier', async () => {
    const doc = (await call(e.svc.url, 'GET', '/openapi.json')).body as Loose;
    const served = ['/api/v2/transactions', '/api/v2/transactions/at-risk', '/api/v2/transactions/stats', '/api/v2/transactions/quote'];
    const ops = PAYMENTS_V2_OPERATIONS.filter((o) => served.includes(o.path) || o.path === '/api/v2/transactions/{id}');
    expect(ops).toHaveLength(6);
    for (const o of ops) {
      const method = o.method.toLowerCase();
      expect(doc.paths[o.path]?.[method]?.['x-rate-limit-tier'], `${o.method} ${o.path}`).toBe(o.tier);
      for (const v1 of o.v1) expect(doc.paths[v1]?.[method], `${o.method} ${v1}`).toBeDefined();
      const scopes = 'scopes' in (o.auth as object) ? (o.auth as { scopes: string[] }).scopes : [];
      for (const scope of scopes) expect(doc.paths[o.path][method].description).toContain(scope);
    }
  });
});

describe('production instance', () => {
  const prod = fileFixture(() => startPaymentsEnv(PRODUCTION_ENV));
  let p: Tenant;
  beforeAll(async () => {
    p = await newTenant(prod);
  });

  it('defaults to base, keeps mainnets, refuses testnets with TESTNET_NOT_ALLOWED_IN_PRODUCTION', async () => {
    const post = (b: Loose) => call(prod.svc.url, 'POST', '/api/v2/transactions', { headers: bearer(p.token), body: b });
    const dflt = await post({ fromAddress: address(), toAddress: address(), amount: 1 });
    expect(dflt.status).toBe(201);
    expect(dflt.body).toMatchObject({ blockchainNetwork: 'base', chainId: 8453 });
    const optimism = await post({ fromAddress: address(), toAddress: address(), amount: 1, blockchainNetwork: 'optimism' });
    expect(optimism.body).toMatchObject({ blockchainNetwork: 'optimism', chainId: 10 });
    const before = await count(prod, 'transactions');
    const testnet = await post({ fromAddress: address(), toAddress: address(), amount: 1, blockchainNetwork: 'base-sepolia' });
    expect(testnet.status).toBe(400);
    expect(testnet.body.error).toMatchObject({ code: 'TESTNET_NOT_ALLOWED_IN_PRODUCTION', details: { field: 'blockchainNetwork' } });
    expect(await count(prod, 'transactions')).toBe(before);
    const quote = await call(prod.svc.url, 'POST', '/api/v2/transactions/quote', {
      headers: bearer(p.token),
      body: { amount: 1, currency: 'USDC', blockchainNetwork: 'solana-devnet' },
    });
    expect(quote.body.error.code).toBe('TESTNET_NOT_ALLOWED_IN_PRODUCTION');
  });
});

import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, type Json, worldPerFile } from '../support/harness.js';
import { newTenant } from '../support/integrations.js';
import { seedCustodyAddress, seedMany, seedTransaction } from '../support/transactions.js';

// Workspace API transactions against a real payments-service: reads aggregated over a workspace's
// platform mappings, custody addresses and metadata addresses; upper-case statuses; exact sums.

const { h, world } = worldPerFile({}, { peers: true });

type Tenant = Awaited<ReturnType<typeof newTenant>> & { sandboxes: Json[] };

/** A tenant with `platforms` sandbox credentials (each a payments platform mapped to the workspace). */
async function tenant(platforms: number): Promise<Tenant> {
  const t = await newTenant(h, world);
  const sandboxes: Json[] = [];
  for (let i = 0; i < platforms; i += 1) {
    const res = await h.call('POST', `${t.base}/sandbox-credentials`, { token: t.admin.token });
    if (res.status !== 201) throw new Error(`sandbox: ${res.status} ${res.text}`);
    sandboxes.push(res.body.data);
  }
  return { ...t, sandboxes };
}

const addr = (c: string) => `0x${c.repeat(40)}`;
const ids = (list: Json[]) => list.map((t: { id: string }) => t.id).sort();
const key = (t: Tenant, i = 0) => ({ 'x-api-key': t.sandboxes[i].apiKey as string });
const HASH = `0x${'ab'.repeat(32)}`;

describe('GET /workspaces/{id}/transactions', () => {
  let a: Tenant;
  let b: Tenant;
  const custody = '0xAbCdEf0000000000000000000000000000000001';
  const seeded: Record<string, string> = {};

  beforeAll(async () => {
    [a, b] = await Promise.all([tenant(2), tenant(1)]);
    await seedCustodyAddress(h, a.workspace.id, custody);
    const [p1, p2] = a.sandboxes.map((s) => s.platformId as string);
    const p3 = b.sandboxes[0].platformId as string;
    seeded.onP1 = await seedTransaction(h, { platformId: p1!, status: 'escrowed', amount: '12.345678' });
    seeded.onP2 = await seedTransaction(h, { platformId: p2!, status: 'rescinded' });
    // B's platform, but from A's custody address (written lower-case): A's; naming it only in B's
    // metadata: not A's (another tenant's metadata proves nothing, issue 28 item 5).
    seeded.fromCustody = await seedTransaction(h, { platformId: p3, fromAddress: custody.toLowerCase(), status: 'risk_review' });
    seeded.metadataAddress = await seedTransaction(h, {
      platformId: p3,
      metadata: { walletAddress: custody.toUpperCase().replace('0X', '0x') },
    });
    // B's own, nothing of A's.
    seeded.bOnly = await seedTransaction(h, { platformId: p3, status: 'completed', metadata: { note: custody } });
  });

  it("aggregates the workspace's two platforms and its custody address, and nothing of another workspace (nor its metadata)", async () => {
    const res = await h.call('GET', `${a.base}/transactions`, { token: a.client.token });
    expect(res.status, res.text).toBe(200);
    const { transactions, pagination } = res.body.data;
    expect(ids(transactions)).toEqual([seeded.onP1, seeded.onP2, seeded.fromCustody].sort());
    expect(pagination).toEqual({ total: 3, page: 1, limit: 20, totalPages: 1 });
    const byId = Object.fromEntries(transactions.map((t: Json) => [t.id, t]));
    expect(byId[seeded.onP1!]).toMatchObject({
      status: 'ESCROWED',
      amount: '12.345678',
      currency: 'USDC',
      _platformId: a.sandboxes[0].platformId,
      _platformName: a.sandboxes[0].name,
    });
    expect(byId[seeded.onP2!]).toMatchObject({ status: 'CANCELLED', _platformId: a.sandboxes[1].platformId });
    expect(byId[seeded.fromCustody!]).toMatchObject({ status: 'PENDING', _platformId: b.sandboxes[0].platformId });

    // B sees its three, none of A's platforms.
    const theirs = await h.call('GET', `${b.base}/transactions`, { token: b.admin.token });
    expect(ids(theirs.body.data.transactions)).toEqual([seeded.fromCustody, seeded.metadataAddress, seeded.bOnly].sort());
  });

  it('filters by the upper-case status (CANCELLED is refunded and rescinded; IN_REVIEW in_review and disputed) and by date', async () => {
    const t = await tenant(1);
    const p = t.sandboxes[0].platformId;
    const refunded = await seedTransaction(h, { platformId: p, status: 'refunded' });
    const rescinded = await seedTransaction(h, { platformId: p, status: 'rescinded' });
    const disputed = await seedTransaction(h, { platformId: p, status: 'disputed' });
    const old = await seedTransaction(h, { platformId: p, status: 'pending_user_action', createdAt: '2024-01-01T00:00:00Z' });

    const cancelled = await h.call('GET', `${t.base}/transactions?status=CANCELLED`, { token: t.client.token });
    expect(ids(cancelled.body.data.transactions)).toEqual([refunded, rescinded].sort());
    expect(cancelled.body.data.transactions.every((x: Json) => x.status === 'CANCELLED')).toBe(true);
    const review = await h.call('GET', `${t.base}/transactions?status=IN_REVIEW`, { token: t.client.token });
    expect(review.body.data.transactions.map((x: Json) => [x.id, x.status])).toEqual([[disputed, 'IN_REVIEW']]);
    const pending = await h.call('GET', `${t.base}/transactions?status=PENDING&dateTo=2024-06-01T00:00:00Z`, { token: t.client.token });
    expect(ids(pending.body.data.transactions)).toEqual([old]);
    const recent = await h.call('GET', `${t.base}/transactions?dateFrom=2025-01-01T00:00:00Z`, { token: t.client.token });
    expect(recent.body.data.pagination.total).toBe(3);
  });

  it('pages newest first with the total', async () => {
    const t = await tenant(1);
    const p = t.sandboxes[0].platformId;
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) made.push(await seedTransaction(h, { platformId: p, createdAt: `2025-03-0${i + 1}T00:00:00Z` }));
    const pages = await Promise.all(
      [1, 2, 3, 4].map((page) => h.call('GET', `${t.base}/transactions?page=${page}&limit=2`, { token: t.admin.token })),
    );
    expect(pages.map((r) => r.body.data.transactions.map((x: Json) => x.id))).toEqual([
      [made[4], made[3]],
      [made[2], made[1]],
      [made[0]],
      [],
    ]);
    expect(pages[3]!.body.data.pagination).toEqual({ total: 5, page: 4, limit: 2, totalPages: 3 });
  });

  it('refuses bad input with 400', async () => {
    for (const q of ['status=cancelled', 'status=refunded', 'page=0', 'limit=101', 'dateFrom=yesterday', 'extra=1']) {
      const res = await h.call('GET', `${a.base}/transactions?${q}`, { token: a.admin.token });
      expect([res.status, res.body.error?.code], q).toEqual([400, 'VALIDATION_ERROR']);
    }
  });

  it('security: no token 401, another workspace 403, unknown workspace 404', async () => {
    expect((await h.call('GET', `${a.base}/transactions`)).status).toBe(401);
    const other = await h.call('GET', `${a.base}/transactions`, { token: b.admin.token });
    expect([other.status, other.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect((await h.call('GET', `/api/v1/workspaces/${randomUUID()}/transactions`, { token: world.superAdmin.token })).status).toBe(404);
    // An API key is not a bearer token.
    expect((await h.call('GET', `${a.base}/transactions`, { headers: key(a) })).status).toBe(401);
  });
});

describe('exact amounts', () => {
  it('sums 2000 x 1000000.000001 to exactly 2000000000.002 (stats) and lists the amounts as written', async () => {
    const t = await tenant(1);
    await seedMany(h, t.sandboxes[0].platformId, 2000, '1000000.000001');
    await seedTransaction(h, { platformId: t.sandboxes[0].platformId, status: 'failed', amount: '0.1' });
    await seedTransaction(h, { platformId: t.sandboxes[0].platformId, status: 'failed', amount: '0.2' });
    const stats = await h.call('GET', '/api/v1/transactions/stats', { token: t.client.token });
    expect(stats.status, stats.text).toBe(200);
    expect(stats.body.data).toEqual({
      PENDING: { count: 0, total_amount: '0' },
      ESCROWED: { count: 0, total_amount: '0' },
      IN_REVIEW: { count: 0, total_amount: '0' },
      COMPLETED: { count: 2000, total_amount: '2000000000.002' },
      FAILED: { count: 2, total_amount: '0.3' },
      CANCELLED: { count: 0, total_amount: '0' },
    });
    const page = await h.call('GET', `${t.base}/transactions?status=COMPLETED&limit=100`, { token: t.client.token });
    expect(page.body.data.pagination.total).toBe(2000);
    expect(new Set(page.body.data.transactions.map((x: Json) => x.amount))).toEqual(new Set(['1000000.000001']));
  });
});

describe('global transactions', () => {
  let a: Tenant;
  let b: Tenant;
  let aTx: string;
  let bTx: string;

  beforeAll(async () => {
    [a, b] = await Promise.all([tenant(2), tenant(1)]);
    aTx = await seedTransaction(h, { platformId: a.sandboxes[1].platformId, fromAddress: addr('1'), toAddress: addr('2') });
    bTx = await seedTransaction(h, { platformId: b.sandboxes[0].platformId, fromAddress: addr('2'), status: 'in_review' });
  });

  it("GET /transactions: a member sees its workspace's platforms (platformCount), SUPER_ADMIN every connected one", async () => {
    const mine = await h.call('GET', '/api/v1/transactions', { token: a.client.token });
    expect(mine.status, mine.text).toBe(200);
    expect(ids(mine.body.data.data)).toEqual([aTx]);
    expect(mine.body.data.meta).toEqual({ total: 1, page: 1, limit: 20, totalPages: 1, platformCount: 2 });

    const [{ n }] = (await h.sql`select count(*)::int as n from workspace.platform_mappings`) as unknown as [{ n: number }];
    const all = await h.call('GET', '/api/v1/transactions?walletAddress=' + addr('2'), { token: world.superAdmin.token });
    expect(all.body.data.meta.platformCount).toBe(n);
    expect(ids(all.body.data.data)).toEqual([aTx, bTx].sort());
    const fromTwo = await h.call('GET', `/api/v1/transactions?fromAddress=${addr('2').toUpperCase().replace('0X', '0x')}`, {
      token: world.superAdmin.token,
    });
    expect(fromTwo.body.data.data.map((x: Json) => [x.id, x.status])).toEqual([[bTx, 'IN_REVIEW']]);
    const toTwo = await h.call('GET', `/api/v1/transactions?toAddress=${addr('2')}&status=PENDING`, { token: world.superAdmin.token });
    expect(ids(toTwo.body.data.data)).toContain(aTx);
  });

  it("GET /transactions/{id}: found across the caller's platforms, 404 outside them", async () => {
    const mine = await h.call('GET', `/api/v1/transactions/${aTx}`, { token: a.admin.token });
    expect(mine.status).toBe(200);
    expect(mine.body.data).toMatchObject({ id: aTx, status: 'PENDING', _platformId: a.sandboxes[1].platformId });
    expect((await h.call('GET', `/api/v1/transactions/${bTx}`, { token: a.admin.token })).status).toBe(404);
    expect((await h.call('GET', `/api/v1/transactions/${bTx}`, { token: world.superAdmin.token })).body.data.id).toBe(bTx);
    expect((await h.call('GET', `/api/v1/transactions/${randomUUID()}`, { token: world.superAdmin.token })).status).toBe(404);
  });

  it('bad input 400, no token 401', async () => {
    for (const path of ['/api/v1/transactions?status=completed', '/api/v1/transactions?limit=0', '/api/v1/transactions/not-a-uuid']) {
      const res = await h.call('GET', path, { token: a.admin.token });
      expect([res.status, res.body.error.code], path).toEqual([400, 'VALIDATION_ERROR']);
    }
    for (const path of ['/api/v1/transactions', '/api/v1/transactions/stats', `/api/v1/transactions/${aTx}`]) {
      expect((await h.call('GET', path)).status, path).toBe(401);
    }
  });
});

describe('workspace-key routes', () => {
  let a: Tenant;
  let b: Tenant;
  let aTx: string;
  let bTx: string;
  let viaAddress: string;
  const custody = addr('e');

  beforeAll(async () => {
    [a, b] = await Promise.all([tenant(1), tenant(1)]);
    await seedCustodyAddress(h, a.workspace.id, custody);
    aTx = await seedTransaction(h, { platformId: a.sandboxes[0].platformId, status: 'pending_user_action' });
    bTx = await seedTransaction(h, { platformId: b.sandboxes[0].platformId });
    viaAddress = await seedTransaction(h, { platformId: b.sandboxes[0].platformId, toAddress: custody });
  });

  it('GET with the workspace key: its transactions (platform or address), 404 for others', async () => {
    const res = await h.call('GET', `${a.base}/transactions/${aTx}`, { headers: key(a) });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ id: aTx, status: 'PENDING', amount: '10.5', _platformId: a.sandboxes[0].platformId });
    expect((await h.call('GET', `${a.base}/transactions/${viaAddress}`, { headers: key(a) })).status).toBe(200);
    expect((await h.call('GET', `${a.base}/transactions/${bTx}`, { headers: key(a) })).status).toBe(404);
    expect((await h.call('GET', `${a.base}/transactions/${randomUUID()}`, { headers: key(a) })).status).toBe(404);
  });

  it("security: no key, a wrong key, a bearer token 401; another workspace's key 404; a key without the scope 403", async () => {
    for (const headers of [{} as Record<string, string>, { 'x-api-key': 'hf_test_nope' }, { 'x-api-key': `hf_test_${'x'.repeat(43)}` }]) {
      const res = await h.call('GET', `${a.base}/transactions/${aTx}`, { headers });
      expect([res.status, res.body.error.code], JSON.stringify(headers)).toEqual([401, 'UNAUTHORIZED']);
    }
    expect((await h.call('GET', `${a.base}/transactions/${aTx}`, { token: a.admin.token })).status).toBe(401);
    const foreign = await h.call('GET', `${a.base}/transactions/${aTx}`, { headers: key(b) });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);
    // A platform of A whose key holds read-only platform scope (set before its first use, so nothing is cached).
    const narrow = await tenant(1);
    await h.sql`update payments.platforms set scopes = '{read:platform}' where id = ${narrow.sandboxes[0].platformId}`;
    const refused = await h.call('GET', `${narrow.base}/transactions/${aTx}`, { headers: key(narrow) });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });

  it('bad input 400: a txId that is not a uuid, a hash that is not one', async () => {
    const res = await h.call('GET', `${a.base}/transactions/not-a-uuid`, { headers: key(a) });
    expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    for (const body of [{}, { transactionHash: 'abc' }, { transactionHash: HASH, extra: 1 }, { transactionHash: 12 }]) {
      const bad = await h.call('POST', `${a.base}/transactions/${aTx}/submit-escrow-hash`, { headers: key(a), body });
      expect([bad.status, bad.body.error.code], JSON.stringify(body)).toEqual([400, 'VALIDATION_ERROR']);
    }
  });

  it('submit-escrow-hash: 401 without a key, 404 for another workspace, an unknown or an address-only transaction; nothing changes', async () => {
    const path = (id: string) => `${a.base}/transactions/${id}/submit-escrow-hash`;
    const body = { transactionHash: HASH };
    expect((await h.call('POST', path(aTx), { body })).status).toBe(401);
    expect((await h.call('POST', path(aTx), { body, headers: key(b) })).status).toBe(404);
    expect((await h.call('POST', path(bTx), { body, headers: key(a) })).status).toBe(404);
    expect((await h.call('POST', path(randomUUID()), { body, headers: key(a) })).status).toBe(404);
    // Readable through A's custody address, but on B's platform: A cannot move it.
    expect((await h.call('POST', path(viaAddress), { body, headers: key(a) })).status).toBe(404);
    // The workspace's own transaction reaches payments' submit-escrow-hash, which checks it: this one
    // is raw (a direct transfer), so it has no escrow (payments' chain tests cover the escrowed path).
    const own = await h.call('POST', path(aTx), { body, headers: key(a) });
    expect([own.status, own.body.error?.code]).toEqual([409, 'ORCHESTRATION_TYPE_MISMATCH']);
    const rows = await h.sql`select tx_hash, status from payments.transactions where id in ${h.sql([aTx, bTx, viaAddress])}`;
    expect(rows.every((r) => r.tx_hash === null)).toBe(true);
    const refused = await auditEntries(h, { action: 'transaction.submit_escrow_hash' });
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((e) => e.success === false)).toBe(true);
  });
});

describe('POST /workspaces/{id}/transactions', () => {
  let a: Tenant;
  let b: Tenant;
  const valid = { fromAddress: addr('1'), toAddress: addr('2'), amount: '25.50', network: 'base-sepolia' };
  const count = async (workspaceId: string) =>
    ((await h.sql`select count(*)::int as n from payments.transactions where workspace_id = ${workspaceId}`)[0] as { n: number }).n;

  beforeAll(async () => {
    [a, b] = await Promise.all([tenant(1), tenant(1)]);
  });

  it("refuses bad input with 400 (schema and payments' amount rules) and creates nothing", async () => {
    for (const body of [
      { ...valid, amount: 25.5 },
      { ...valid, amount: 'abc' },
      { ...valid, amount: '1e3' },
      { ...valid, network: 'mars' },
      { ...valid, currency: 'DOGE' },
      { ...valid, orchestrationType: 'escrow' },
      { ...valid, customerId: 'nope' },
      { ...valid, extra: true },
      { fromAddress: addr('1'), toAddress: addr('2'), amount: '1' },
      { ...valid, amount: '0.001' },
      { ...valid, amount: '1000000.01' },
    ]) {
      const res = await h.call('POST', `${a.base}/transactions`, { token: a.admin.token, body });
      expect([res.status, res.body.error?.code], JSON.stringify(body)).toEqual([400, 'VALIDATION_ERROR']);
    }
    expect(await count(a.workspace.id)).toBe(0);
  });

  it("security: an address that is none of the network's, or metadata nested past 8 levels, is refused naming the field; nothing stored (issue 28 item 8)", async () => {
    let deep: Record<string, unknown> = { end: true };
    for (let i = 1; i < 60; i++) deep = { n: deep };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ ...valid, fromAddress: '0x123' }, 'fromAddress', /must match pattern/],
      [{ ...valid, toAddress: 'nope' }, 'toAddress', /must match pattern/],
      // Past the shape, the network's rule (payments): a Solana address on base-sepolia, a broken EIP-55 checksum.
      [{ ...valid, toAddress: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' }, 'toAddress', /must be an EVM address of base-sepolia/],
      [{ ...valid, toAddress: '0x70997970c51812dc3A010C7d01b50e0d17dc79C8' }, 'toAddress', /not EIP-55 checksummed/],
      [{ ...valid, metadata: deep }, 'metadata', /at most 8 levels deep/],
      [{ ...valid, controlConfigs: [deep] }, 'controlConfigs.0', /at most 8 levels deep/],
    ];
    for (const [body, field, reason] of cases) {
      const res = await h.call('POST', `${a.base}/transactions`, { token: a.admin.token, body });
      expect([res.status, res.body.error?.code], field).toEqual([400, 'VALIDATION_ERROR']);
      expect(res.body.error.details.errors, field).toEqual([{ field, reason: expect.stringMatching(reason) }]);
    }
    expect(await count(a.workspace.id)).toBe(0);
  });

  it('404 for a customer of another workspace; 409 without a platform', async () => {
    const [customer] = await h.sql<{ id: string }[]>`
      insert into workspace.customers (id, workspace_id, email, status) values (${randomUUID()}, ${b.workspace.id}, ${`c-${randomUUID()}@x.test`}, 'active')
      returning id`;
    const res = await h.call('POST', `${a.base}/transactions`, { token: a.admin.token, body: { ...valid, customerId: customer!.id } });
    expect([res.status, res.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const bare = await newTenant(h, world);
    const none = await h.call('POST', `${bare.base}/transactions`, { token: bare.admin.token, body: valid });
    expect([none.status, none.body.error.code]).toEqual([409, 'CONFLICT']);
    expect(await count(a.workspace.id)).toBe(0);
  });

  it('security: no token 401, another workspace 403, unknown workspace 404', async () => {
    expect((await h.call('POST', `${a.base}/transactions`, { body: valid })).status).toBe(401);
    expect((await h.call('POST', `${a.base}/transactions`, { body: valid, headers: key(a) })).status).toBe(401);
    const other = await h.call('POST', `${a.base}/transactions`, { token: b.admin.token, body: valid });
    expect([other.status, other.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const unknown = await h.call('POST', `/api/v1/workspaces/${randomUUID()}/transactions`, { token: world.superAdmin.token, body: valid });
    expect(unknown.status).toBe(404);
    expect(await count(a.workspace.id)).toBe(0);
    const refused = await auditEntries(h, { action: 'transaction.create', userId: b.admin.id });
    expect(refused.every((e) => e.success === false)).toBe(true);
  });

  it('creates through payments: decimal amount, defaults USDC and raw, upper-case status', async () => {
    const res = await h.call('POST', `${a.base}/transactions`, {
      token: a.client.token,
      body: { ...valid, amount: '1000000', network: 'base', metadata: { order: 'o-1' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const tx = res.body.data.transaction;
    expect(tx).toMatchObject({ amount: '1000000', currency: 'USDC', orchestrationType: 'raw', status: 'PENDING' });
    // Outside production a mainnet is coerced to its testnet (the payments rule).
    expect(tx.blockchainNetwork).toBe('base-sepolia');
    const [row] = await h.sql`select amount::text as amount, status, workspace_id from payments.transactions where id = ${tx.id}`;
    expect(row).toEqual({ amount: '1000000', status: 'pending', workspace_id: a.workspace.id });
    expect(await count(a.workspace.id)).toBe(1);
    const read = await h.call('GET', `${a.base}/transactions`, { token: a.client.token });
    expect(read.body.data.transactions.map((t: { id: string }) => t.id)).toContain(tx.id);
  });
});

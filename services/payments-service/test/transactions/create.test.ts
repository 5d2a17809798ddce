import { randomUUID } from 'node:crypto';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTransactionMoves } from '../../src/modules/transactions/moves.js';
import { createTransactionsRepository } from '../../src/modules/transactions/repository.js';
import {
  addEmptyTemplate,
  bearer,
  call,
  createClient,
  createTestBus,
  GENEROUS_LIMITS,
  key,
  type Loose,
  startPayments,
  startPaymentsEnv,
  tokenFor,
} from '../support/harness.js';
import { address, count, newTenant, type Tenant, waitForEvents } from '../support/transactions.js';

// POST /api/{v1,v2}/transactions on one real instance (PostgreSQL, JetStream): the create table,
// idempotency, the duplicate window, the per-sender limit, quotes, and the events it leaves.

const e = fileFixture(() => startPaymentsEnv());
let t: Tenant;
let other: Tenant;

beforeAll(async () => {
  [t, other] = await Promise.all([newTenant(e), newTenant(e)]);
});

const create = (body: Record<string, unknown>, headers: Record<string, string> = bearer(t.token), version = 'v2') =>
  call(e.svc.url, 'POST', `/api/${version}/transactions`, { headers, body });
const body = (extra: Record<string, unknown> = {}): Loose => ({ fromAddress: address(), toAddress: address(), amount: 25.5, ...extra });

async function unchanged<T>(what: () => Promise<T>) {
  const before = await Promise.all([count(e, 'transactions'), count(e, 'outbox'), count(e, 'transaction_transitions'), count(e, 'quotes')]);
  const out = await what();
  expect(
    await Promise.all([count(e, 'transactions'), count(e, 'outbox'), count(e, 'transaction_transitions'), count(e, 'quotes')]),
  ).toEqual(before);
  return out;
}

describe('create: happy path', () => {
  it('v2 creates a pending transaction with its rescind rules, its first event and its creation transition', async () => {
    const b = body({ currency: 'USDC', metadata: { order: 'A-1', nested: { n: 1 } }, customerId: 'cust-1' });
    const res = await create(b);
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    const tx = res.body;
    expect(tx).toMatchObject({
      platformId: t.platformId,
      status: 'pending',
      amount: '25.5',
      currency: 'USDC',
      fromAddress: b.fromAddress,
      toAddress: b.toAddress,
      blockchainNetwork: 'base-sepolia',
      chainId: 84532,
      orchestrationType: 'platform',
      customerId: 'cust-1',
      metadata: { order: 'A-1', nested: { n: 1 } },
      idempotencyKey: null,
    });
    // The hold period defaults to 7 days from creation; platform orchestration may rescind.
    expect(tx.rescind).toEqual({ allowed: true, deadline: tx.holdDeadline, requiresReason: false, notifyRecipient: true });
    expect(Date.parse(tx.holdDeadline) - Date.parse(tx.createdAt)).toBe(7 * 24 * 3600 * 1000);
    // What the sender's wallet signs (no escrow contract or token configured in this test's chain settings).
    expect(tx.escrow).toMatchObject({
      amountBaseUnits: '25500000',
      onchainId: `0x${'0'.repeat(32)}${tx.id.replaceAll('-', '')}`,
      holdDeadline: Math.floor(Date.parse(tx.holdDeadline) / 1000),
      contractAddress: null,
      tokenAddress: null,
    });
    expect(tx.transfer).toBeUndefined();

    const [row] =
      await e.sql`select status, amount::text, hold_deadline, rescind_policy, workspace_id from transactions where id = ${tx.id}`;
    expect(row).toMatchObject({ status: 'pending', amount: '25.5', rescind_policy: tx.rescind, workspace_id: null });
    const events = await e.sql`select type, payload from outbox where payload->'data'->'transaction'->>'id' = ${tx.id}`;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'transaction.created',
      payload: { platformId: t.platformId, workspaceId: null, data: { transaction: { id: tx.id, status: 'pending', amount: '25.5' } } },
    });
    const transitions = await e.sql`select from_status, to_status, action from transaction_transitions where transaction_id = ${tx.id}`;
    expect(transitions).toEqual([{ from_status: null, to_status: 'pending', action: 'create' }]);

    const read = await call(e.svc.url, 'GET', `/api/v2/transactions/${tx.id}`, { headers: bearer(t.token) });
    expect(read.status).toBe(200);
    const { rescind, escrow, transfer, ...record } = tx;
    expect(read.body).toEqual(record);
  });

  it('v1 accepts the API key (write:transactions) and a token with move:transactions', async () => {
    const byKey = await create(body(), key(t.apiKey), 'v1');
    expect(byKey.status).toBe(201);
    expect(byKey.headers.deprecation).toBe('true');
    const byToken = await create(body(), bearer(t.token), 'v1');
    expect(byToken.status).toBe(201);
  });

  it('stores every field of the create table; contractTemplateId is an alias of templateId', async () => {
    const library = await addEmptyTemplate(e.svc.url, t.apiKey, 'no-op');
    expect(library.status).toBe(201);
    const templateId: string = library.body.id;
    const b = body({
      currency: 'USDT',
      blockchainNetwork: 'ethereum-sepolia',
      orchestrationType: 'raw',
      contractTemplateId: templateId,
      billingConfig: {
        feeType: 'percentage',
        feePercentage: 1,
        feeWalletAddress: '0x000000000000000000000000000000000000fee0',
        currency: 'USDT',
        isActive: false,
      },
      signerType: 'custodial',
      customerId: 'c-9',
      metadata: { a: 1 },
    });
    const res = await create(b);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      currency: 'USDT',
      blockchainNetwork: 'ethereum-sepolia',
      chainId: 11155111,
      orchestrationType: 'raw',
      templateId,
      billingConfig: b.billingConfig,
      signerType: 'custodial',
      customerId: 'c-9',
      // Raw transfers are not escrowed: nothing to rescind.
      rescind: { allowed: false },
      // What the sender's wallet signs: a pay tagged with the transaction (no contract or token configured here).
      transfer: {
        contractAddress: null,
        tokenAddress: null,
        onchainId: `0x${'0'.repeat(32)}${res.body.id.replaceAll('-', '')}`,
        receiver: b.toAddress,
        amountBaseUnits: '25500000',
      },
    });
    expect(res.body.escrow).toBeUndefined();
    const same = await create(body({ templateId, contractTemplateId: templateId }));
    expect(same.status).toBe(201);
    expect(same.body.templateId).toBe(templateId);
  });

  it('an embedded template is kept and may set the hold period and rescind rules', async () => {
    const template = {
      templateName: 'short hold',
      controls: [],
      holdPeriodSeconds: 3600,
      rescind: { requiresReason: true, notifyRecipient: false },
    };
    const res = await create(body({ template }));
    expect(res.status).toBe(201);
    expect(res.body.rescind).toMatchObject({ allowed: true, requiresReason: true, notifyRecipient: false });
    expect(Date.parse(res.body.rescind.deadline) - Date.parse(res.body.createdAt)).toBe(3600 * 1000);
    const [row] = await e.sql`select template from transactions where id = ${res.body.id}`;
    expect(row?.template).toEqual({ ...template, templateId: null, templateVersion: null });
  });

  it('an external wallet signer starts in pending_user_action', async () => {
    const res = await create(body({ signerType: 'external_wallet', customerId: 'wallet-user' }));
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('pending_user_action');
  });

  it('coerces mainnet names to their testnet outside production and defaults the network', async () => {
    const res = await create(body({ blockchainNetwork: 'base' }));
    expect(res.body).toMatchObject({ blockchainNetwork: 'base-sepolia', chainId: 84532 });
    const arb = await create(body({ blockchainNetwork: 'arbitrum' }));
    expect(arb.body).toMatchObject({ blockchainNetwork: 'arbitrum-sepolia', chainId: 421614 });
  });

  it('keeps amounts exact: bounds, decimal strings, 0.1+0.2-style values', async () => {
    for (const [amount, stored, currency] of [
      [0.01, '0.01'],
      [1000000, '1000000'],
      [0.3, '0.3'],
      ['0.30000000000000004', '0.30000000000000004', 'ETH'],
      ['123456.789012345678', '123456.789012345678', 'ETH'],
      [1e-2, '0.01'],
    ] as const) {
      const res = await create(body({ amount, ...(currency ? { currency } : {}) }));
      expect(res.status, String(amount)).toBe(201);
      expect(res.body.amount).toBe(stored);
      const [row] = await e.sql`select amount::text as amount from transactions where id = ${res.body.id}`;
      expect(row?.amount).toBe(stored);
    }
  });
});

describe('create: bad input writes nothing', () => {
  it.each([
    ['amount over the maximum', { amount: 1000000.01 }],
    ['amount under the minimum', { amount: 0.009 }],
    ['zero', { amount: 0 }],
    ['negative', { amount: -5 }],
    ['amount as a non-decimal string', { amount: '1e3' }],
    ['too many decimals', { amount: '1.1234567890123456789' }],
    ['unknown currency', { currency: 'EUR' }],
    ['unknown network', { blockchainNetwork: 'bitcoin' }],
    ['unknown field', { colour: 'red' }],
    ['templateId not a uuid', { templateId: 'tpl-1' }],
    ['alias differs from templateId', { templateId: randomUUID(), contractTemplateId: randomUUID() }],
    ['bad signerType', { signerType: 'robot' }],
    ['bad billing fee type', { billingConfig: { feeType: 'tip' } }],
    [
      'same sender and receiver',
      { toAddress: '0x000000000000000000000000000000000000dEaD', fromAddress: '0x000000000000000000000000000000000000dead' },
    ],
  ])('%s -> 400', async (_name, extra) => {
    const res = await unchanged(() => create(body(extra)));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR', statusCode: 400 } });
  });

  it('a missing required field -> 400 naming it', async () => {
    const res = await unchanged(() => create({ toAddress: address(), amount: 1 }));
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toContainEqual({ field: 'fromAddress', reason: 'is required' });
  });
});

describe('create: security', () => {
  it('no credential -> 401; API key on v2 -> 401; nothing written', async () => {
    expect((await unchanged(() => create(body(), {}))).status).toBe(401);
    expect((await unchanged(() => create(body(), {}, 'v1'))).status).toBe(401);
    const keyOnV2 = await unchanged(() => create(body(), key(t.apiKey), 'v2'));
    expect(keyOnV2.status).toBe(401);
  });

  it('missing scope -> 403: v2 needs move:transactions; v1 needs write or move', async () => {
    const writer = await createClient(e.svc.url, e.admin, {
      name: 'writer',
      scopes: ['read:transactions', 'write:transactions'],
      platformId: t.platformId,
    });
    const writeOnly = await tokenFor(e.svc.url, writer);
    const v2 = await unchanged(() => create(body(), bearer(writeOnly)));
    expect(v2.status).toBe(403);
    expect(v2.body.error.code).toBe('INSUFFICIENT_SCOPE');
    expect((await create(body(), bearer(writeOnly), 'v1')).status).toBe(201);

    const reader = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
      headers: key(e.admin),
      body: { name: 'reader only', scopes: ['read:transactions'] },
    });
    expect((await unchanged(() => create(body(), key(reader.body.apiKey), 'v1'))).status).toBe(403);
  });

  it("another platform's transaction -> 404; a non-uuid id -> 400", async () => {
    const mine = await create(body());
    const theirs = await call(e.svc.url, 'GET', `/api/v2/transactions/${mine.body.id}`, { headers: bearer(other.token) });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('NOT_FOUND');
    expect((await call(e.svc.url, 'GET', `/api/v1/transactions/${mine.body.id}`, { headers: key(other.apiKey) })).status).toBe(404);
    expect((await call(e.svc.url, 'GET', '/api/v2/transactions/not-a-uuid', { headers: bearer(t.token) })).status).toBe(400);
  });
});

describe('idempotency', () => {
  it('same key and parameters -> the first result with Idempotent-Replayed; other parameters -> 422', async () => {
    const idempotencyKey = `k-${randomUUID()}`;
    const b = body({ idempotencyKey });
    const first = await create(b);
    expect(first.status).toBe(201);
    expect(first.body.idempotencyKey).toBe(idempotencyKey);
    const again = await unchanged(() => create(b));
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);

    // The header is the same key; key order and address case do not change the parameters.
    const viaHeader = await unchanged(() =>
      create(
        { amount: b.amount, toAddress: b.toAddress.toUpperCase().replace('0X', '0x'), fromAddress: b.fromAddress },
        { ...bearer(t.token), 'idempotency-key': idempotencyKey },
      ),
    );
    expect(viaHeader.status).toBe(201);
    expect(viaHeader.body.id).toBe(first.body.id);

    const changed = await unchanged(() => create({ ...b, amount: 26 }));
    expect(changed.status).toBe(422);
    expect(changed.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { transactionId: first.body.id } });
  });

  it('header and body keys that differ -> 400', async () => {
    const res = await unchanged(() => create(body({ idempotencyKey: 'a-key' }), { ...bearer(t.token), 'idempotency-key': 'b-key' }));
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors[0].field).toBe('idempotencyKey');
  });

  it('keys are scoped per platform', async () => {
    const idempotencyKey = `shared-${randomUUID()}`;
    const mine = await create(body({ idempotencyKey }));
    const theirs = await create(body({ idempotencyKey }), bearer(other.token));
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('20 concurrent requests with one key create exactly one transaction and one event', async () => {
    const idempotencyKey = `race-${randomUUID()}`;
    const b = body({ idempotencyKey });
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(b)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    const rows = await e.sql`select id from transactions where idempotency_key = ${idempotencyKey}`;
    expect(rows).toHaveLength(1);
    const events = await e.sql`select id from outbox where payload->'data'->'transaction'->>'id' = ${rows[0]!.id}`;
    expect(events).toHaveLength(1);
  });

  it('20 concurrent requests with one key from different senders: one wins, the others 422', async () => {
    const idempotencyKey = `race2-${randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(body({ idempotencyKey }))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 422)).toHaveLength(19);
    expect(await e.sql`select id from transactions where idempotency_key = ${idempotencyKey}`).toHaveLength(1);
  });
});

describe('duplicate window and the per-sender limit', () => {
  it('the same transfer again within the window and without a key -> 409 DUPLICATE_TRANSACTION', async () => {
    const b = body({ amount: '12.5' });
    const first = await create(b);
    expect(first.status).toBe(201);
    const again = await unchanged(() => create({ ...b, amount: 12.5, fromAddress: b.fromAddress.toUpperCase().replace('0X', '0x') }));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'DUPLICATE_TRANSACTION', details: { transactionId: first.body.id } });
    // Another amount, or an idempotency key, is not a duplicate.
    expect((await create({ ...b, amount: 12.51 })).status).toBe(201);
    expect((await create({ ...b, idempotencyKey: randomUUID() })).status).toBe(201);
  });

  it("an automatic key (auto_…, a client library's) replays, but the duplicate window still applies to it", async () => {
    const b = body({ amount: '3.75' });
    const key = `auto_${randomUUID()}`;
    const first = await create({ ...b, idempotencyKey: key });
    expect(first.status).toBe(201);
    // The library's retry of a lost answer: the same key, the first result.
    const retry = await unchanged(() => create({ ...b, idempotencyKey: key }));
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    // The same body under another automatic key is the user sending it twice: 409, nothing written.
    const twice = await unchanged(() => create({ ...b, idempotencyKey: `auto_${randomUUID()}` }));
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({ code: 'DUPLICATE_TRANSACTION', details: { transactionId: first.body.id } });
  });

  it('concurrent identical requests without a key: exactly one is created', async () => {
    const b = body();
    const answers = await Promise.all(Array.from({ length: 8 }, () => create(b)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(7);
  });

  it('16 concurrent creations of one sender: exactly 10 are created (with their events), the others 429', async () => {
    const sender = address();
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => create(body({ fromAddress: sender, amount: i + 1 }))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429).map((a) => a.body.error.details.scope)).toEqual(Array(6).fill('sender'));
    const rows = await e.sql<{ id: string }[]>`select id from transactions where lower(from_address) = ${sender.toLowerCase()}`;
    expect(rows).toHaveLength(10);
    const events = await e.sql`select 1 from outbox where payload->'data'->'transaction'->>'id' in ${e.sql(rows.map((r) => r.id))}`;
    expect(events).toHaveLength(10);
  });

  it('the 11th creation of a sender within a minute -> 429 with Retry-After; another sender is unaffected', async () => {
    const sender = address();
    for (let i = 1; i <= 10; i++) expect((await create(body({ fromAddress: sender, amount: i }))).status).toBe(201);
    // The sender is matched case-insensitively.
    const eleventh = await unchanged(() => create(body({ fromAddress: sender.toUpperCase().replace('0X', '0x'), amount: 11 })));
    expect(eleventh.status).toBe(429);
    expect(eleventh.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', statusCode: 429, details: { scope: 'sender', limit: 10 } });
    const retryAfter = Number(eleventh.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(eleventh.body.error.details.retryAfterSeconds).toBe(retryAfter);
    expect((await create(body({ amount: 11 }))).status).toBe(201);
    // The same sender on another platform is another sender.
    expect((await create(body({ fromAddress: sender, amount: 11 }), bearer(other.token))).status).toBe(201);
    // Once the oldest creation leaves the window, a slot frees.
    await e.sql`update transactions set created_at = created_at - interval '61 seconds'
      where id = (select id from transactions where lower(from_address) = ${sender.toLowerCase()} order by created_at limit 1)`;
    expect((await create(body({ fromAddress: sender, amount: 12 }))).status).toBe(201);
  });
});

describe('quotes at creation', () => {
  it('billing enabled on the platform: quoteId required, used once, must match', async () => {
    const billed = await newTenant(e, { billing: { enabled: true, feePercentage: '1.5' } });
    const h = bearer(billed.token);
    const b = body({ amount: 200, currency: 'USDC' });
    const missing = await unchanged(() => create(b, h));
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.errors[0].field).toBe('quoteId');

    const quote = await call(e.svc.url, 'POST', '/api/v2/transactions/quote', { headers: h, body: { amount: 200, currency: 'USDC' } });
    expect(quote.status).toBe(201);
    expect(quote.body).toMatchObject({ amount: '200', fee: '3', total: '203', feeType: 'percentage', feePercentage: '1.5' });

    const wrongAmount = await unchanged(() => create({ ...b, amount: 201, quoteId: quote.body.quoteId }, h));
    expect(wrongAmount.status).toBe(400);
    const theirs = await unchanged(() => create({ ...b, quoteId: quote.body.quoteId }, bearer(other.token)));
    expect(theirs.status).toBe(404);

    const ok = await create({ ...b, quoteId: quote.body.quoteId }, h);
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ quoteId: quote.body.quoteId, feeAmount: '3' });
    const [used] = await e.sql`select transaction_id, used_at from quotes where id = ${quote.body.quoteId}`;
    expect(used?.transaction_id).toBe(ok.body.id);

    const reused = await unchanged(() => create({ ...body({ amount: 200 }), quoteId: quote.body.quoteId }, h));
    expect(reused.status).toBe(409);

    const stale = await call(e.svc.url, 'POST', '/api/v2/transactions/quote', { headers: h, body: { amount: 5, currency: 'USDC' } });
    await e.sql`update quotes set expires_at = now() - interval '1 second' where id = ${stale.body.quoteId}`;
    const expired = await unchanged(() => create({ ...body({ amount: 5 }), quoteId: stale.body.quoteId }, h));
    expect(expired.status).toBe(400);
    expect(expired.body.error.message).toContain('expired');
  });

  it('billing turned on for a platform is required at once by the instance that changed it, and within a second by another', async () => {
    // A second instance on the same database with its own NATS prefix: only the database feed
    // tells it about the change (the billing settings ride on its cached credentials).
    const natsB = await createTestBus();
    const b = await startPayments(e.db, natsB, { PAYMENTS_BOOTSTRAP_API_KEY: e.admin, ...GENEROUS_LIMITS });
    try {
      const p = await newTenant(e);
      const onA = (body: Record<string, unknown>) => create(body, bearer(p.token));
      const onB = (body: Record<string, unknown>) => call(b.url, 'POST', '/api/v2/transactions', { headers: bearer(p.token), body });
      // Both instances verify (and cache) the credential while billing is off.
      expect((await onA(body())).status).toBe(201);
      expect((await onB(body())).status).toBe(201);

      const put = await call(e.svc.url, 'PUT', `/api/v1/auth/platform/${p.platformId}`, {
        headers: key(e.admin),
        body: { settings: { billing: { enabled: true, feePercentage: '1.5' } } },
      });
      expect(put.status).toBe(200);
      const onAnow = await unchanged(() => onA(body()));
      expect(onAnow.status).toBe(400);
      expect(onAnow.body.error.details.errors[0].field).toBe('quoteId');

      await new Promise((r) => setTimeout(r, 1100));
      const onBlater = await unchanged(() => onB(body()));
      expect(onBlater.status).toBe(400);
      expect(onBlater.body.error.details.errors[0].field).toBe('quoteId');
    } finally {
      await b.stop();
      await natsB.dispose();
    }
  });

  it('billingConfig.isActive on the request also requires a quote', async () => {
    const res = await unchanged(() => create(body({ billingConfig: { feeType: 'percentage', feePercentage: 2, isActive: true } })));
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors[0].field).toBe('quoteId');
  });
});

describe('events on the JetStream stream', () => {
  it('transaction.created comes first, then the move it makes (escrowed), with platform and workspace', async () => {
    const res = await create(body());
    const id = res.body.id as string;
    const moves = createTransactionMoves({ repository: createTransactionsRepository() });
    await e.sql.begin((tx) =>
      moves.move(tx, { transactionId: id, action: 'lock_escrow', actor: 'test', patch: { txHash: '0xabc', escrowAddress: '0xE5' } }),
    );
    const events = await waitForEvents(e, (all) => all.some((x) => x.type === 'transaction.escrowed' && x.data.transaction.id === id));
    const mine = events.filter((x) => x.data?.transaction?.id === id);
    expect(mine.map((x) => x.type)).toEqual(['transaction.created', 'transaction.escrowed']);
    expect(mine[0]).toMatchObject({ platformId: t.platformId, workspaceId: null, data: { transaction: { id, status: 'pending' } } });
    expect(mine[1]).toMatchObject({ data: { transaction: { id, status: 'escrowed' }, escrowAddress: '0xE5', txHash: '0xabc' } });
  });
});

describe('create: security, free-form values and addresses (issue 28 item 8)', () => {
  /** `{ "n": { "n": … { "end": true } } }`, `levels` objects deep. */
  const nested = (levels: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { end: true };
    for (let i = 1; i < levels; i++) value = { n: value };
    return value;
  };

  it('metadata nested deeper than 8 levels is refused naming the field; stored, it would come back deeper than any reader takes', async () => {
    // The attack: 60 levels pass the body's 64-level limit, and the stored value then comes back
    // wrapped in the answer, the event and the webhook deeper than 64, which Holdfast's own
    // parser (and any client with the same bound) refuses.
    const res = await unchanged(() => create(body({ metadata: nested(60) })));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.errors).toEqual([{ field: 'metadata', reason: 'must nest objects and arrays at most 8 levels deep' }]);
    // The bound is inclusive: 8 levels are kept as sent.
    const kept = await create(body({ metadata: nested(8) }));
    expect(kept.status).toBe(201);
    expect(kept.body.metadata).toEqual(nested(8));
    const [row] = await e.sql`select metadata from transactions where id = ${kept.body.id}`;
    expect(row?.metadata).toEqual(nested(8));
  });

  it('metadata over 64 KiB as JSON is refused naming the field', async () => {
    const res = await unchanged(() => create(body({ metadata: { blob: 'x'.repeat(70_000) } })));
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toEqual([{ field: 'metadata', reason: 'must be at most 65536 bytes as JSON (got 70011)' }]);
  });

  it.each([
    ['a short hex address', { fromAddress: '0x123' }, 'fromAddress'],
    ['a receiver that is no address', { toAddress: 'nope' }, 'toAddress'],
    ['a fee wallet that is no address', { billingConfig: { feeWalletAddress: '0xfee' } }, 'billingConfig.feeWalletAddress'],
  ])('%s is refused naming the field, nothing stored', async (_name, extra, field) => {
    const res = await unchanged(() => create(body(extra)));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.errors.map((f: { field: string }) => f.field)).toEqual([field]);
  });

  it('an EVM address in mixed case must carry its EIP-55 checksum; a Solana address on an EVM network is refused', async () => {
    const checksummed = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
    const typo = '0x70997970c51812dc3A010C7d01b50e0d17dc79C8';
    const bad = await unchanged(() => create(body({ toAddress: typo })));
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors).toEqual([
      { field: 'toAddress', reason: 'has mixed case but is not EIP-55 checksummed: check it for a typo, or send it in lower case' },
    ]);
    const solana = await unchanged(() => create(body({ toAddress: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU' })));
    expect(solana.status).toBe(400);
    expect(solana.body.error.details.errors).toEqual([
      { field: 'toAddress', reason: 'must be an EVM address of base-sepolia (0x and 40 hex digits)' },
    ]);
    for (const toAddress of [checksummed, checksummed.toLowerCase(), `0x${checksummed.slice(2).toUpperCase()}`]) {
      const ok = await create(body({ toAddress }));
      expect(ok.status).toBe(201);
      expect(ok.body.toAddress).toBe(toAddress);
    }
  });
});

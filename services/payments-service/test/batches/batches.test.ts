import { randomBytes, randomUUID } from 'node:crypto';
import { type DomainEvent, STREAMS } from '@holdfast/contracts';
import { streamMessages } from '@holdfast/messaging/testing';
import { fileFixture, until } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/modules/auth/index.js';
import { createBatchesRepository } from '../../src/modules/batches/repository.js';
import { createBatchesService } from '../../src/modules/batches/service.js';
import { createTransactionMoves } from '../../src/modules/transactions/moves.js';
import { createTransactionsRepository } from '../../src/modules/transactions/repository.js';
import { createSenderLimits } from '../../src/modules/transactions/sender-limits.js';
import { addEmptyTemplate, bearer, call, createClient, key, newPlatform, startPaymentsEnv, tokenFor } from '../support/harness.js';

// Batches on v1 and v2: atomic creation of the batch and its legs, idempotency, list and read,
// the security matrix, and the batch status following its legs' moves.

const MAX_LEGS = 5;
const moves = createTransactionMoves({ repository: createTransactionsRepository() });

const address = () => `0x${randomBytes(20).toString('hex')}`;
// Mixed case, so its EIP-55 checksum (a mixed-case address that is not is refused).
const SENDER = '0xABaBaBaBABabABabAbAbABAbABabababaBaBABaB';

interface Tenant {
  platformId: string;
  workspaceId: string;
  apiKey: string;
  token: string;
}
let a: Tenant;
let b: Tenant;

async function tenant(): Promise<Tenant> {
  const { platformId, apiKey, token } = await newPlatform(e, {
    scopes: ['read:transactions', 'write:transactions', 'write:templates'],
    clientScopes: ['read:transactions', 'move:transactions'],
  });
  const workspaceId = randomUUID();
  await e.sql`update platforms set workspace_id = ${workspaceId} where id = ${platformId}`;
  return { platformId, workspaceId, apiKey, token };
}

const legs = (...amounts: (number | string)[]) => amounts.map((amount, i) => ({ toAddress: address(), amount, metadata: { line: i } }));
const counts = async () => {
  const [row] = await e.sql<{ batches: number; legs: number; events: number }[]>`
    select (select count(*)::int from batches) as batches,
           (select count(*)::int from transactions) as legs,
           (select count(*)::int from outbox) as events`;
  return row;
};

// This file creates many batches of one sender; the per-sender limit has its own tests (transactions/create.test.ts).
const e = fileFixture(() => startPaymentsEnv({ PAYMENTS_MAX_BATCH_LEGS: String(MAX_LEGS), TX_RATE_LIMIT_PER_SENDER: '0' }));
beforeAll(async () => {
  [a, b] = await Promise.all([tenant(), tenant()]);
});

describe('POST /api/v1/transactions/batch and /api/v2/transactions/batches', () => {
  it('v1 (API key): creates the batch, its legs and a transaction.created per leg, in one go', async () => {
    const library = await addEmptyTemplate(e.svc.url, a.apiKey, 'payroll');
    expect(library.status).toBe(201);
    const templateId: string = library.body.id;
    const res = await call(e.svc.url, 'POST', '/api/v1/transactions/batch', {
      headers: key(a.apiKey),
      body: {
        fromAddress: SENDER,
        legs: legs(10.5, '0.1', 0.2),
        templateId,
        customerId: 'cust-1',
        metadata: { payroll: 'june' },
      },
    });
    expect(res.status).toBe(201);
    expect(res.headers.deprecation).toBe('true');
    const batch = res.body;
    expect(batch).toMatchObject({
      platformId: a.platformId,
      status: 'pending_user_action',
      fromAddress: SENDER,
      currency: 'USDC',
      blockchainNetwork: 'base-sepolia',
      chainId: 84532,
      orchestrationType: 'platform',
      signerType: 'external_wallet',
      templateId,
      customerId: 'cust-1',
      metadata: { payroll: 'june' },
      legCount: 3,
      totalAmount: '10.8',
      idempotencyKey: null,
    });
    expect(batch.legs.map((l: { amount: string }) => l.amount)).toEqual(['10.5', '0.1', '0.2']);
    for (const [i, leg] of batch.legs.entries()) {
      expect(leg).toMatchObject({
        batchId: batch.id,
        legIndex: i,
        status: 'pending_user_action',
        fromAddress: SENDER,
        currency: 'USDC',
        signerType: 'external_wallet',
        customerId: 'cust-1',
        metadata: { line: i },
      });
      expect(leg.onchainId).toBe(`0x${'0'.repeat(32)}${leg.id.replaceAll('-', '')}`);
    }
    expect(batch.nextAction).toMatchObject({
      type: 'create_batch_escrow',
      totalAmount: '10.8',
      ids: batch.legs.map((l: { onchainId: string }) => l.onchainId),
      receivers: batch.legs.map((l: { toAddress: string }) => l.toAddress),
      amounts: ['10.5', '0.1', '0.2'],
    });

    const [row] = await e.sql`select status, leg_count, total_amount::text, workspace_id from batches where id = ${batch.id}`;
    expect(row).toEqual({ status: 'pending_user_action', leg_count: 3, total_amount: '10.8', workspace_id: a.workspaceId });
    const rows = await e.sql`
      select leg_index, status, amount::text, workspace_id, platform_id from transactions where batch_id = ${batch.id} order by leg_index`;
    expect(rows).toEqual(
      [0, 1, 2].map((i) => ({
        leg_index: i,
        status: 'pending_user_action',
        amount: ['10.5', '0.1', '0.2'][i],
        workspace_id: a.workspaceId,
        platform_id: a.platformId,
      })),
    );
    const events = await e.sql<{ type: string; payload: DomainEvent }[]>`
      select type, payload from outbox where payload->'data'->'transaction'->>'batchId' = ${batch.id} order by seq`;
    expect(events.map((e) => e.type)).toEqual(['transaction.created', 'transaction.created', 'transaction.created']);
    expect(events.map((e) => e.payload)).toEqual(
      batch.legs.map((l: { id: string; toAddress: string }) =>
        expect.objectContaining({
          platformId: a.platformId,
          workspaceId: a.workspaceId,
          data: {
            transaction: expect.objectContaining({ id: l.id, status: 'pending_user_action', toAddress: l.toAddress, batchId: batch.id }),
          },
        }),
      ),
    );
    // The relay publishes them to JetStream once committed.
    const published = await until('the legs’ transaction.created on the EVENTS stream', async () => {
      const found = (await streamMessages<DomainEvent>(e.nats.bus, STREAMS.EVENTS.name)).filter(
        (e) => e.type === 'transaction.created' && (e.data as { transaction: { batchId?: string } }).transaction.batchId === batch.id,
      );
      return found.length === 3 ? found : undefined;
    });
    expect(published.map((e) => e.id).sort()).toEqual(events.map((e) => e.payload.id).sort());
  });

  it('v2 (OAuth move:transactions): coerces a mainnet to its testnet and tells a raw batch to send transfers', async () => {
    const res = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: bearer(a.token),
      body: { fromAddress: SENDER, legs: legs('1', '2.000'), blockchainNetwork: 'base', orchestrationType: 'raw', currency: 'USDT' },
    });
    expect(res.status).toBe(201);
    expect(res.headers['x-api-version']).toBe('v2');
    expect(res.body).toMatchObject({
      blockchainNetwork: 'base-sepolia',
      orchestrationType: 'raw',
      currency: 'USDT',
      totalAmount: '3',
      legCount: 2,
    });
    expect(res.body.nextAction.type).toBe('send_transfers');
    const [row] = await e.sql<
      { n: number }[]
    >`select count(*)::int as n from transactions where batch_id = ${res.body.id} and currency = 'USDT'`;
    expect(row?.n).toBe(2);
  });

  it('v1 also takes an OAuth token holding move:transactions', async () => {
    const res = await call(e.svc.url, 'POST', '/api/v1/transactions/batch', {
      headers: bearer(a.token),
      body: { fromAddress: SENDER, legs: legs(5) },
    });
    expect(res.status).toBe(201);
  });

  it('accepts exactly MAX_BATCH_LEGS legs', async () => {
    const res = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: bearer(a.token),
      body: { fromAddress: SENDER, legs: legs(...Array.from({ length: MAX_LEGS }, () => 1)) },
    });
    expect(res.status).toBe(201);
    expect(res.body.legs).toHaveLength(MAX_LEGS);
  });
});

describe('create: bad input writes nothing', () => {
  const refused = async (body: Record<string, unknown>, fields: string[]) => {
    const before = await counts();
    const res = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', { headers: bearer(a.token), body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.errors.map((e: { field: string }) => e.field)).toEqual(fields);
    expect(await counts()).toEqual(before);
    return res.body.error;
  };

  it('one invalid leg among valid ones: 400 naming the leg, no batch, leg or event', async () => {
    const body = {
      fromAddress: SENDER,
      // A Solana address on an EVM network: past the schema, refused by the network's rule.
      legs: [
        ...legs(1, 2, 3),
        { toAddress: address(), amount: 0.001 },
        { toAddress: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU', amount: 1 },
      ],
    };
    const error = await refused(body, ['legs.3.amount', 'legs.4.toAddress']);
    expect(error.message).toContain('legs.3.amount');
  });

  it('an amount over 1,000,000 or with too many decimals names its leg', async () => {
    await refused({ fromAddress: SENDER, legs: [...legs(1), { toAddress: address(), amount: 1000000.01 }] }, ['legs.1.amount']);
    await refused({ fromAddress: SENDER, legs: [{ toAddress: address(), amount: '1.0000000000000000001' }] }, ['legs.0.amount']);
  });

  it('custodial signer: 400 with a clear message', async () => {
    const error = await refused({ fromAddress: SENDER, legs: legs(1), signerType: 'custodial' }, ['signerType']);
    expect(error.message).toContain('custodial batches are not supported');
  });

  it('no legs, or more than MAX_BATCH_LEGS: 400 on legs', async () => {
    await refused({ fromAddress: SENDER, legs: [] }, ['legs']);
    const error = await refused({ fromAddress: SENDER, legs: legs(...Array.from({ length: MAX_LEGS + 1 }, () => 1)) }, ['legs']);
    expect(error.message).toContain(`at most ${MAX_LEGS} legs`);
  });

  it('a bad sender, a leg paying the sender, an unknown field', async () => {
    await refused({ fromAddress: '0x12', legs: legs(1) }, ['fromAddress']);
    await refused({ fromAddress: SENDER, legs: [{ toAddress: SENDER.toLowerCase(), amount: 1 }] }, ['legs.0.toAddress']);
    await refused({ fromAddress: SENDER, legs: [{ toAddress: address(), amount: 1, memo: 'x' }] }, ['legs.0.memo']);
  });

  it('production: a testnet is refused with TESTNET_NOT_ALLOWED_IN_PRODUCTION, nothing written', async () => {
    const production = createBatchesService({
      repository: createBatchesRepository(e.sql),
      appEnv: 'production',
      maxLegs: MAX_LEGS,
      checkSender: createSenderLimits(createTransactionsRepository(), { perSender: 0, duplicateWindowSeconds: 0 }),
    });
    const principal = { kind: 'oauth_token', platformId: a.platformId, workspaceId: a.workspaceId, scopes: [] } as unknown as Principal;
    const before = await counts();
    await expect(
      production.create(principal, { fromAddress: SENDER, legs: legs(1), blockchainNetwork: 'base-sepolia' }),
    ).rejects.toMatchObject({ code: 'TESTNET_NOT_ALLOWED_IN_PRODUCTION' });
    expect(await counts()).toEqual(before);
    // Its default network is the mainnet.
    const made = await production.create(principal, { fromAddress: SENDER, legs: legs(1) });
    expect(made.batch).toMatchObject({ blockchainNetwork: 'base', chainId: 8453 });
  });

  it('different idempotency keys in the body and the header', async () => {
    const before = await counts();
    const res = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: { ...bearer(a.token), 'idempotency-key': 'one' },
      body: { fromAddress: SENDER, legs: legs(1), idempotencyKey: 'two' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toEqual([{ field: 'idempotencyKey', reason: 'differs from the Idempotency-Key header' }]);
    expect(await counts()).toEqual(before);
  });
});

describe('create: idempotency', () => {
  it('the same key returns the existing batch (200, Idempotent-Replayed), body or header', async () => {
    const body = { fromAddress: SENDER, legs: legs(1, 2), idempotencyKey: `k-${randomUUID()}` };
    const first = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', { headers: bearer(a.token), body });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await counts();
    const again = await call(e.svc.url, 'POST', '/api/v1/transactions/batch', { headers: key(a.apiKey), body });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    // The header form names the same key.
    const { idempotencyKey, ...rest } = body;
    const header = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: { ...bearer(a.token), 'idempotency-key': idempotencyKey },
      body: rest,
    });
    expect(header.status).toBe(200);
    expect(header.body.id).toBe(first.body.id);
    expect(await counts()).toEqual(before);
  });

  it('the same key with other parameters: 422 IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
    const body = { fromAddress: SENDER, legs: legs(1), idempotencyKey: `k-${randomUUID()}` };
    const first = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', { headers: bearer(a.token), body });
    expect(first.status).toBe(201);
    const before = await counts();
    const other = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: bearer(a.token),
      body: { ...body, legs: [{ ...body.legs[0], amount: 2 }] },
    });
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { batchId: first.body.id } });
    expect(await counts()).toEqual(before);
  });

  it('the same amounts written differently are the same request', async () => {
    const toAddress = address();
    const idempotencyKey = `k-${randomUUID()}`;
    const first = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: bearer(a.token),
      body: { fromAddress: SENDER, legs: [{ toAddress, amount: 12.5 }], idempotencyKey },
    });
    const again = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: bearer(a.token),
      body: { fromAddress: SENDER, legs: [{ toAddress, amount: '12.50', metadata: {} }], idempotencyKey, metadata: {} },
    });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.id).toBe(first.body.id);
  });

  it('a key is per platform: another platform with the same key makes its own batch', async () => {
    const body = { fromAddress: SENDER, legs: legs(1), idempotencyKey: `k-${randomUUID()}` };
    const mine = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', { headers: bearer(a.token), body });
    const theirs = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', { headers: bearer(b.token), body });
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('10 concurrent requests with one key create exactly one batch', async () => {
    const body = { fromAddress: SENDER, legs: legs(1, 2, 3), idempotencyKey: `k-${randomUUID()}` };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call(e.svc.url, 'POST', '/api/v2/transactions/batches', { headers: bearer(a.token), body })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const id = results[0]?.body.id;
    const [row] = await e.sql`
      select (select count(*)::int from batches where idempotency_key = ${body.idempotencyKey}) as batches,
             (select count(*)::int from transactions where batch_id = ${id}) as legs,
             (select count(*)::int from outbox where payload->'data'->'transaction'->>'batchId' = ${id}) as events`;
    expect(row).toEqual({ batches: 1, legs: 3, events: 3 });
  });
});

describe('GET batches: list and read', () => {
  let c: Tenant;
  const ids: string[] = [];

  beforeAll(async () => {
    c = await tenant();
    const other = '0xCdCDCdCdcdcdcdCdcDcDCdcDcDCdCdcdCdcDCDcD';
    for (const body of [
      { fromAddress: SENDER, legs: legs(1), customerId: 'alice' },
      { fromAddress: other, legs: legs(2, 3), customerId: 'bob' },
      { fromAddress: SENDER, legs: legs(4), customerId: 'bob' },
    ]) {
      const res = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', { headers: bearer(c.token), body });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    // The first batch was created a day earlier; its only leg is escrowed (the batch is submitted).
    await e.sql`update batches set created_at = now() - interval '1 day' where id = ${ids[0]!}`;
    const [leg] = await e.sql<{ id: string }[]>`select id from transactions where batch_id = ${ids[0]!}`;
    await e.sql.begin((tx) =>
      moves.move(tx, { transactionId: leg!.id, action: 'lock_escrow', actor: 'test', patch: { txHash: '0x1', escrowAddress: '0x2' } }),
    );
  });

  const list = (query: string, headers: Record<string, string> = bearer(c.token), v = 'v2/transactions/batches') =>
    call(e.svc.url, 'GET', `/api/${v}${query}`, { headers });

  it('lists the platform’s batches newest first, without legs, paginated', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1 });
    for (const item of res.body.data) expect(item).not.toHaveProperty('legs');
    const page = await list('?page=2&limit=2');
    expect(page.body.data.map((x: { id: string }) => x.id)).toEqual([ids[0]]);
    expect(page.body.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    const v1 = await list('', key(c.apiKey), 'v1/transactions/batch');
    expect(v1.status).toBe(200);
    expect(v1.body.data).toHaveLength(3);
  });

  it('filters by status, fromAddress (any case), customerId and dates', async () => {
    const idsOf = async (q: string) => (await list(q)).body.data.map((x: { id: string }) => x.id);
    expect(await idsOf('?status=submitted')).toEqual([ids[0]]);
    expect(await idsOf('?status=pending_user_action')).toEqual([ids[2], ids[1]]);
    expect(await idsOf(`?fromAddress=${SENDER.toLowerCase()}`)).toEqual([ids[2], ids[0]]);
    expect(await idsOf('?customerId=bob')).toEqual([ids[2], ids[1]]);
    const hourAgo = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
    expect(await idsOf(`?dateFrom=${hourAgo}`)).toEqual([ids[2], ids[1]]);
    expect(await idsOf(`?dateTo=${hourAgo}`)).toEqual([ids[0]]);
    expect(await idsOf(`?dateFrom=${hourAgo}&customerId=alice`)).toEqual([]);
  });

  it('refuses bad filters with 400', async () => {
    expect((await list('?status=escrowed')).status).toBe(400);
    expect((await list('?limit=101')).status).toBe(400);
    expect((await list('?dateFrom=yesterday')).status).toBe(400);
    const reversed = await list(
      `?dateFrom=${encodeURIComponent('2030-01-02T00:00:00Z')}&dateTo=${encodeURIComponent('2030-01-01T00:00:00Z')}`,
    );
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.details.errors[0].field).toBe('dateTo');
  });

  it('reads one batch with its legs in leg order (v1 and v2)', async () => {
    for (const [path, headers] of [
      [`/api/v2/transactions/batches/${ids[1]}`, bearer(c.token)],
      [`/api/v1/transactions/batch/${ids[1]}`, key(c.apiKey)],
    ] as const) {
      const res = await call(e.svc.url, 'GET', path, { headers });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: ids[1], legCount: 2, totalAmount: '5', customerId: 'bob' });
      expect(res.body.legs.map((l: { legIndex: number; amount: string }) => [l.legIndex, l.amount])).toEqual([
        [0, '2'],
        [1, '3'],
      ]);
      expect(res.body).not.toHaveProperty('nextAction');
    }
  });

  it('another platform’s batch, or an unknown id: 404; lists never show it', async () => {
    const res = await call(e.svc.url, 'GET', `/api/v2/transactions/batches/${ids[1]}`, { headers: bearer(a.token) });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await call(e.svc.url, 'GET', `/api/v1/transactions/batch/${randomUUID()}`, { headers: key(c.apiKey) })).status).toBe(404);
    const theirs = await list('?limit=100', bearer(a.token));
    expect(theirs.body.data.map((x: { id: string }) => x.id)).not.toContain(ids[1]);
    expect((await call(e.svc.url, 'GET', '/api/v2/transactions/batches/not-a-uuid', { headers: bearer(c.token) })).status).toBe(400);
  });
});

describe('security', () => {
  const create = { fromAddress: SENDER, legs: [{ toAddress: `0x${'1'.repeat(40)}`, amount: 1 }] };

  it('no credential: 401 on every batch route', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/transactions/batch'],
      ['POST', '/api/v2/transactions/batches'],
      ['GET', '/api/v1/transactions/batch'],
      ['GET', '/api/v2/transactions/batches'],
      ['GET', `/api/v1/transactions/batch/${randomUUID()}`],
      ['GET', `/api/v2/transactions/batches/${randomUUID()}`],
    ] as const) {
      const res = await call(e.svc.url, method, path, method === 'POST' ? { body: create } : {});
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it('an API key on v2: 401', async () => {
    const res = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', { headers: key(a.apiKey), body: create });
    expect(res.status).toBe(401);
    expect((await call(e.svc.url, 'GET', '/api/v2/transactions/batches', { headers: key(a.apiKey) })).status).toBe(401);
  });

  it('missing scope: 403 and nothing written', async () => {
    const before = await counts();
    const readOnly = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
      headers: key(e.admin),
      body: { name: `ro ${randomUUID().slice(0, 8)}`, scopes: ['read:transactions'] },
    });
    const readKey = readOnly.body.apiKey as string;
    const v1 = await call(e.svc.url, 'POST', '/api/v1/transactions/batch', { headers: key(readKey), body: create });
    expect(v1.status).toBe(403);
    expect(v1.body.error.code).toBe('INSUFFICIENT_SCOPE');
    // A v2 token with write:transactions but not move:transactions cannot create a batch.
    const client = await createClient(e.svc.url, e.admin, {
      name: 'writer',
      scopes: ['read:transactions', 'write:transactions'],
      platformId: a.platformId,
    });
    const token = await tokenFor(e.svc.url, client);
    const v2 = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', { headers: bearer(token), body: create });
    expect(v2.status).toBe(403);
    // Reading needs read:transactions.
    const noRead = await createClient(e.svc.url, e.admin, { name: 'mover', scopes: ['move:transactions'], platformId: a.platformId });
    const moverToken = await tokenFor(e.svc.url, noRead);
    expect((await call(e.svc.url, 'GET', '/api/v2/transactions/batches', { headers: bearer(moverToken) })).status).toBe(403);
    expect((await counts())?.batches).toBe(before?.batches);
  });
});

describe('batch status follows its legs', () => {
  it('pending_user_action -> submitted (first leg escrowed) -> completed (every leg released)', async () => {
    const res = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: bearer(a.token),
      body: { fromAddress: SENDER, legs: legs(1, 2) },
    });
    expect(res.status).toBe(201);
    const batchId = res.body.id as string;
    const legIds = res.body.legs.map((l: { id: string }) => l.id) as string[];
    const status = async () => (await call(e.svc.url, 'GET', `/api/v2/transactions/batches/${batchId}`, { headers: bearer(a.token) })).body;

    // Each leg moves on its own escrow-created event (what the chain consumer calls).
    for (const [i, id] of legIds.entries()) {
      const out = await e.sql.begin((tx) =>
        moves.move(tx, {
          transactionId: id,
          action: 'lock_escrow',
          actor: `chain:evt_${i}`,
          patch: { txHash: `0x${i}`, escrowAddress: '0xE5' },
        }),
      );
      expect(out.event).toMatchObject({
        type: 'transaction.escrowed',
        platformId: a.platformId,
        workspaceId: a.workspaceId,
        data: { transaction: { id, status: 'escrowed', batchId }, escrowAddress: '0xE5', txHash: `0x${i}` },
      });
      const now = await status();
      expect(now.status).toBe('submitted');
      expect(now.legs[i].status).toBe('escrowed');
    }
    const escrowed =
      await e.sql`select count(*)::int as n from outbox where type = 'transaction.escrowed' and payload->'data'->'transaction'->>'batchId' = ${batchId}`;
    expect(escrowed[0]?.n).toBe(2);

    await e.sql.begin((tx) => moves.move(tx, { transactionId: legIds[0]!, action: 'release', actor: 'test' }));
    expect((await status()).status).toBe('submitted');
    await e.sql.begin((tx) => moves.move(tx, { transactionId: legIds[1]!, action: 'release', actor: 'test' }));
    const done = await status();
    expect(done.status).toBe('completed');
    expect(done.legs.map((l: { status: string }) => l.status)).toEqual(['completed', 'completed']);
  });

  it('failed when every leg ends without completing', async () => {
    const res = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: bearer(a.token),
      body: { fromAddress: SENDER, legs: legs(1, 2) },
    });
    for (const leg of res.body.legs as { id: string }[]) {
      await e.sql.begin((tx) => moves.move(tx, { transactionId: leg.id, action: 'fail_transfer', actor: 'test', reason: 'reverted' }));
    }
    const [row] = await e.sql`select status from batches where id = ${res.body.id}`;
    expect(row?.status).toBe('failed');
  });
});

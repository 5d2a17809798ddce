import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, ConflictError, HoldfastError, NotFoundError, PaymentsClient, RateLimitError, ValidationError } from '../src/index.js';
import { address, answeringProxy, droppingProxy, type Stack, startStack } from './stack.js';

// Every PaymentsClient method against payments-service running as a process (its built main.js),
// on a real PostgreSQL and JetStream: the sandbox platform of a workspace signed up over HTTP.

let stack: Stack;
let client: PaymentsClient;
let admin: PaymentsClient;
let sql: postgres.Sql;
const requests: string[] = [];

/** The platform's fetch, noting each request (method and path) so tests can count round trips. */
const countingFetch: typeof fetch = (input, init) => {
  const url = new URL(String(input));
  requests.push(`${init?.method ?? 'GET'} ${url.pathname}${url.search}`);
  return fetch(input, init);
};

const tx = (extra: Record<string, unknown> = {}) =>
  client.transactions.create({ fromAddress: address(), toAddress: address(), amount: 10.5, orchestrationType: 'raw', ...extra });

beforeAll(async () => {
  stack = await startStack();
  client = new PaymentsClient({
    baseUrl: stack.paymentsUrl,
    clientId: stack.tenant.sandbox.clientId,
    clientSecret: stack.tenant.sandbox.clientSecret,
    fetch: countingFetch,
  });
  // An operator's client (admin:platform) of the bootstrap platform, made with the bootstrap API key.
  const made = await fetch(`${stack.paymentsUrl}/api/v1/oauth/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': stack.processes.env.PAYMENTS_BOOTSTRAP_API_KEY as string },
    body: JSON.stringify({ name: 'operator', scopes: ['admin:platform', 'read:platform'] }),
  });
  const operator = (await made.json()) as { clientId: string; clientSecret: string };
  admin = new PaymentsClient({ baseUrl: stack.paymentsUrl, clientId: operator.clientId, clientSecret: operator.clientSecret });
  sql = postgres(stack.processes.db.url, { max: 1, onnotice: () => {} });
});
afterAll(async () => {
  await sql?.end();
  await stack?.stop();
});

describe('tokens', () => {
  it('fetches one token, caches it for every call, and introspects and revokes it', async () => {
    const before = requests.filter((r) => r.includes('/oauth/token')).length;
    const token = await client.oauth.token();
    await client.platforms.me();
    await client.transactions.stats();
    expect(requests.filter((r) => r.includes('/oauth/token')).length).toBe(before + (before === 0 ? 1 : 0));
    expect(token.expiresAt.getTime()).toBeGreaterThan(Date.now() + 3000 * 1000);
    expect(token.scope).toContain('move:transactions');
    const introspected = await client.oauth.introspect(token.accessToken);
    expect(introspected).toMatchObject({ active: true, platform_id: stack.tenant.sandbox.platformId });
    await client.oauth.revoke();
    expect(await client.oauth.introspect(token.accessToken)).toMatchObject({ active: false });
    // The next call fetches a new token by itself.
    const me = await client.platforms.me();
    expect(me.id).toBe(stack.tenant.sandbox.platformId);
    expect((await client.oauth.token()).accessToken).not.toBe(token.accessToken);
  });

  it('renews a token the server refuses (revoked behind its back) and repeats the call once', async () => {
    const { accessToken } = await client.oauth.token();
    const other = new PaymentsClient({
      baseUrl: stack.paymentsUrl,
      clientId: stack.tenant.sandbox.clientId,
      clientSecret: stack.tenant.sandbox.clientSecret,
    });
    await other.oauth.revoke(accessToken);
    expect((await client.platforms.me()).id).toBe(stack.tenant.sandbox.platformId);
    expect((await client.oauth.token()).accessToken).not.toBe(accessToken);
  });

  it('refuses a wrong client secret with an AuthError carrying the code and the request id', async () => {
    const wrong = new PaymentsClient({
      baseUrl: stack.paymentsUrl,
      clientId: stack.tenant.sandbox.clientId,
      clientSecret: 'hf_secret_wrong',
    });
    const error = await wrong.platforms.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ statusCode: 401, code: 'INVALID_CLIENT' });
  });
});

describe('platforms and scopes', () => {
  it('lists the scopes, reads the own platform, and an operator lists, reads, updates and deactivates platforms', async () => {
    const scopes = await client.auth.scopes();
    expect(JSON.stringify(scopes)).toContain('move:transactions');
    const mine = await client.platforms.get(stack.tenant.sandbox.platformId);
    expect(mine.id).toBe(stack.tenant.sandbox.platformId);

    const made = await fetch(`${stack.paymentsUrl}/api/v1/auth/api-key`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': stack.processes.env.PAYMENTS_BOOTSTRAP_API_KEY as string },
      body: JSON.stringify({ name: 'throwaway platform' }),
    });
    const { platformId } = (await made.json()) as { platformId: string };
    const all = await admin.platforms.list().toArray();
    expect(all.map((p) => p.id)).toEqual(expect.arrayContaining([platformId, stack.tenant.sandbox.platformId]));
    expect((await admin.platforms.update(platformId, { name: 'renamed platform' })).name).toBe('renamed platform');
    await admin.platforms.deactivate(platformId);
    expect((await admin.platforms.get(platformId)).isActive).toBe(false);
  });

  it('answers another platform as NotFoundError', async () => {
    const error = await client.platforms.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HoldfastError);
    expect((error as HoldfastError).statusCode).toBeGreaterThanOrEqual(403);
  });
});

describe('transactions', () => {
  it('creates with an Idempotency-Key of its own, reads it back, and a repeat with the same key replays it', async () => {
    const created = await tx();
    expect(created).toMatchObject({ status: 'pending', amount: '10.5', orchestrationType: 'raw' });
    expect(created.idempotencyKey).toMatch(/^auto_[0-9a-f-]{36}$/);
    expect((await client.transactions.get(created.id)).id).toBe(created.id);
    const body = { fromAddress: address(), toAddress: address(), amount: 3, orchestrationType: 'raw' as const };
    const first = await client.transactions.create(body, { idempotencyKey: 'order-42' });
    const again = await client.transactions.create(body, { idempotencyKey: 'order-42' });
    expect(again.id).toBe(first.id);
    expect(again.idempotentReplayed).toBe(true);
  });

  it("keeps the server's duplicate guard: the same body twice without a key of the caller's is 409, with one it is meant", async () => {
    const body = { fromAddress: address(), toAddress: address(), amount: 4.25, orchestrationType: 'raw' as const };
    const first = await client.transactions.create(body);
    const repeat = await client.transactions.create(body).catch((e: unknown) => e);
    expect(repeat).toBeInstanceOf(ConflictError);
    expect((repeat as ConflictError).code).toBe('DUPLICATE_TRANSACTION');
    expect((repeat as ConflictError).statusCode).toBe(409);
    const rows = await sql`select id from payments.transactions where lower(from_address) = ${body.fromAddress.toLowerCase()}`;
    expect(rows.map((r) => r.id)).toEqual([first.id]);
    // The caller's own key says the repeat is deliberate (the spec's idempotency rule).
    const meant = await client.transactions.create(body, { idempotencyKey: `order-${randomUUID()}` });
    expect(meant.id).not.toBe(first.id);
    expect(meant.idempotentReplayed).toBeUndefined();
  });

  it('a create whose answer is lost (connection dropped) is retried with the same key and makes one transaction', async () => {
    const proxy = await droppingProxy(stack.paymentsUrl, (head) => head.startsWith('POST /api/v2/transactions '));
    try {
      const flaky = new PaymentsClient({
        baseUrl: proxy.url,
        clientId: stack.tenant.sandbox.clientId,
        clientSecret: stack.tenant.sandbox.clientSecret,
      });
      const fromAddress = address();
      const created = await flaky.transactions.create({ fromAddress, toAddress: address(), amount: 7, orchestrationType: 'raw' });
      expect(proxy.dropped()).toBe(1);
      expect(created.idempotentReplayed).toBe(true);
      const rows = await sql`select id from payments.transactions where lower(from_address) = ${fromAddress.toLowerCase()}`;
      expect(rows.map((r) => r.id)).toEqual([created.id]);
    } finally {
      await proxy.close();
    }
  });

  it('retries a read after a 503, a 429, a 502 and a 504, waiting as Retry-After says, and never repeats a write without an idempotency key', async () => {
    const made = await tx();
    const other = await tx();
    const third = await tx();
    const proxy = await answeringProxy(stack.paymentsUrl, (method, path, seen) => {
      if (path === `/api/v2/transactions/${other.id}`) return { status: 429, headers: { 'retry-after': '7' } };
      // A proxy in front of payments that lost the answer (502) or timed out (504).
      if (method === 'GET' && path === `/api/v2/transactions/${third.id}` && seen <= 2) return { status: seen === 1 ? 502 : 504 };
      if (method === 'GET' && path === `/api/v2/transactions/${made.id}` && seen <= 2) {
        return seen === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 429, headers: { 'retry-after': '1' } };
      }
      if (method === 'POST' && path.endsWith('/hash')) return { status: 503 };
      return undefined;
    });
    try {
      const behind = new PaymentsClient({
        baseUrl: proxy.url,
        clientId: stack.tenant.sandbox.clientId,
        clientSecret: stack.tenant.sandbox.clientSecret,
      });
      expect((await behind.transactions.get(made.id)).id).toBe(made.id);
      expect(proxy.seen.filter((s) => s === `GET /api/v2/transactions/${made.id}`)).toHaveLength(3);
      expect((await behind.transactions.get(third.id)).id).toBe(third.id);
      expect(proxy.seen.filter((s) => s === `GET /api/v2/transactions/${third.id}`)).toHaveLength(3);
      const refused = await behind.transactions.submitHash(made.id, { txHash: `0x${'ab'.repeat(32)}` }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ statusCode: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(proxy.seen.filter((s) => s.endsWith('/hash'))).toHaveLength(1);
      // With retries off, the 429 reaches the caller with its Retry-After.
      const noRetries = new PaymentsClient({
        baseUrl: proxy.url,
        clientId: stack.tenant.sandbox.clientId,
        clientSecret: stack.tenant.sandbox.clientSecret,
        maxRetries: 0,
      });
      const limited = await noRetries.transactions.get(other.id).catch((e: unknown) => e);
      expect(limited).toBeInstanceOf(RateLimitError);
      expect(limited).toMatchObject({ statusCode: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfterSeconds: 7 });
      expect(proxy.seen.filter((s) => s === `GET /api/v2/transactions/${other.id}`)).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  it('lists every transaction over more than one page', async () => {
    const fromAddress = address();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await tx({ fromAddress, toAddress: address() }));
    const pagesBefore = requests.filter((r) => r.startsWith('GET /api/v2/transactions?')).length;
    const listed = await client.transactions.list({ fromAddress, limit: 2 }).toArray();
    expect(listed.map((t) => t.id).sort()).toEqual(made.map((t) => t.id).sort());
    expect(requests.filter((r) => r.startsWith('GET /api/v2/transactions?')).length - pagesBefore).toBe(3);
    const first = await client.transactions.list({ fromAddress, limit: 2 }).firstPage();
    expect(first.pagination).toMatchObject({ total: 5, totalPages: 3 });
  });

  it('reports at-risk, statistics and a quote', async () => {
    expect(await client.transactions.atRisk()).toHaveProperty('escrowed');
    expect(await client.transactions.stats()).toHaveProperty('pending');
    const quote = await client.transactions.quote({ amount: 100, currency: 'USDC' });
    expect(quote).toMatchObject({ quoteId: expect.any(String), amount: '100', currency: 'USDC', total: expect.any(String) });
  });

  it('rescind and refund of a pending transaction answer ConflictError (only escrowed funds can go back)', async () => {
    const pending = await tx();
    const rescinded = await client.transactions.rescind(pending.id, { reason: 'customer asked' }).catch((e: unknown) => e);
    const refunded = await client.transactions.refund(pending.id, { reason: 'duplicate' }).catch((e: unknown) => e);
    for (const outcome of [rescinded, refunded]) {
      expect(outcome).toBeInstanceOf(ConflictError);
      expect((outcome as ConflictError).statusCode).toBe(409);
    }
    expect((await client.transactions.get(pending.id)).status).toBe('pending');
  });

  it('hash, escrow hash, release and early-release calls reach the server and answer typed errors on a transaction that cannot take them', async () => {
    const raw = await tx();
    const hash = `0x${'ab'.repeat(32)}`;
    const outcomes = await Promise.all([
      client.transactions.submitHash(raw.id, { txHash: hash }).catch((e: unknown) => e),
      client.transactions.submitEscrowHash(raw.id, { transactionHash: hash }).catch((e: unknown) => e),
      client.transactions.attestRelease(raw.id).catch((e: unknown) => e),
      client.transactions.attestEarlyRelease(raw.id, { party: 'sender' }).catch((e: unknown) => e),
    ]);
    for (const outcome of outcomes) {
      expect(outcome).toBeInstanceOf(HoldfastError);
      expect([409, 503]).toContain((outcome as HoldfastError).statusCode);
      expect((outcome as HoldfastError).requestId).toMatch(/^req_/);
    }
  });

  it('answers a bad body as ValidationError naming the field, and an unknown id as NotFoundError', async () => {
    const bad = await client.transactions.create({ fromAddress: address(), toAddress: address(), amount: 0 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).details).toMatchObject({ errors: [expect.objectContaining({ field: 'amount' })] });
    const missing = await client.transactions.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', statusCode: 404 });
  });
});

describe('batches', () => {
  it('creates a batch (idempotently), reads it with its legs and lists it', async () => {
    const fromAddress = address();
    const body = {
      fromAddress,
      signerType: 'external_wallet' as const,
      legs: [
        { toAddress: address(), amount: 1 },
        { toAddress: address(), amount: 2 },
      ],
    };
    const batch = await client.batches.create(body);
    const again = await client.batches.create(body, { idempotencyKey: batch.idempotencyKey as string });
    expect(again.id).toBe(batch.id);
    const read = await client.batches.get(batch.id);
    expect(read.legs).toHaveLength(2);
    const listed = await client.batches.list({ fromAddress }).toArray();
    expect(listed.map((b) => b.id)).toEqual([batch.id]);
  });
});

describe('controls and compliance', () => {
  it('verifies codes (typed error without a pending control) and creates, checks and reads a verification', async () => {
    const plain = await tx();
    for (const call of [client.controls.verifyTwoFactor, client.controls.verifyVendorSms]) {
      const error = await call({ transactionId: plain.id, code: '123456' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HoldfastError);
      expect([400, 404, 409]).toContain((error as HoldfastError).statusCode);
    }
    const created = await client.compliance.createVerification({ userId: 'user-1', type: 'identity' });
    expect(created).toMatchObject({ userId: 'user-1', type: 'identity' });
    expect((await client.compliance.checkVerification({ userId: 'user-1', type: 'identity' })).id).toBe(created.id);
    expect((await client.compliance.getVerification(created.id)).id).toBe(created.id);
  });
});

describe('disputes', () => {
  it('opens, reads, lists, escalates, takes evidence and resolves a dispute', async () => {
    const t = await tx({ orchestrationType: 'platform' });
    // Arranged: the escrow lock the chain would have reported.
    await sql`update payments.transactions set status = 'escrowed' where id = ${t.id}`;
    const dispute = await client.disputes.open({ transactionId: t.id, initiatedBy: 'sender', reason: 'not delivered' });
    expect(dispute).toMatchObject({ status: 'open', currentTier: 'tier_1_smart_contract' });
    expect((await client.disputes.get(dispute.id)).id).toBe(dispute.id);
    expect((await client.disputes.list({ transactionId: t.id }).toArray()).map((d) => d.id)).toEqual([dispute.id]);
    expect((await client.disputes.escalate(dispute.id)).currentTier).not.toBe('tier_1_smart_contract');
    const evidence = await client.disputes.submitEvidence(dispute.id, {
      submittedBy: 'sender',
      type: 'text',
      title: 'Chat log',
      content: 'no parcel',
    });
    expect(evidence).toMatchObject({ disputeId: dispute.id, title: 'Chat log' });
    const resolved = await client.disputes.resolve(dispute.id, { outcome: 'favor_sender', resolutionReason: 'no proof of delivery' });
    expect(resolved).toMatchObject({ status: 'resolved', outcome: 'favor_sender' });
    const again = await client.disputes.escalate(dispute.id).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(ValidationError);
    expect(again).toMatchObject({ code: 'DISPUTE_RESOLVED' });
  });

  it('evidence and a resolution whose answers are lost are retried under their keys: one evidence row, the resolution answered', async () => {
    const t = await tx({ orchestrationType: 'platform' });
    await sql`update payments.transactions set status = 'escrowed' where id = ${t.id}`;
    const dispute = await client.disputes.open({ transactionId: t.id, initiatedBy: 'receiver', reason: 'paid twice' });
    // Each proxy cuts the first answer it relays of its operation, after payments committed it.
    const flakyFor = async (operation: string) => {
      const proxy = await droppingProxy(stack.paymentsUrl, (head) => head.startsWith(`POST /api/v2/disputes/${dispute.id}/${operation} `));
      const flaky = new PaymentsClient({
        baseUrl: proxy.url,
        clientId: stack.tenant.sandbox.clientId,
        clientSecret: stack.tenant.sandbox.clientSecret,
      });
      return { proxy, flaky };
    };
    const ev = await flakyFor('evidence');
    const rs = await flakyFor('resolve');
    try {
      const evidence = await ev.flaky.disputes.submitEvidence(dispute.id, {
        submittedBy: 'receiver',
        type: 'text',
        title: 'Receipt',
        content: 'x',
      });
      expect(evidence).toMatchObject({ disputeId: dispute.id, title: 'Receipt' });
      expect(ev.proxy.dropped()).toBe(1);
      const resolved = await rs.flaky.disputes.resolve(dispute.id, { outcome: 'favor_receiver', resolutionReason: 'one payment only' });
      expect(resolved).toMatchObject({ status: 'resolved', outcome: 'favor_receiver' });
      expect(rs.proxy.dropped()).toBe(1);
      const rows = await sql`select id from payments.dispute_evidence where dispute_id = ${dispute.id}`;
      expect(rows.map((r) => r.id)).toEqual([evidence.id]);
    } finally {
      await Promise.all([ev.proxy.close(), rs.proxy.close()]);
    }
  });
});

describe('events', () => {
  it('reconnects by itself when the connection drops and misses nothing (Last-Event-ID)', async () => {
    // The first stream connection is cut right after it relayed one transaction.created.
    const proxy = await droppingProxy(
      stack.paymentsUrl,
      (head) => head.startsWith('GET /api/v2/events/stream'),
      (relayed) => relayed.includes('event: transaction.created'),
    );
    const controller = new AbortController();
    const statuses: string[] = [];
    const seen: string[] = [];
    try {
      const behind = new PaymentsClient({
        baseUrl: proxy.url,
        clientId: stack.tenant.sandbox.clientId,
        clientSecret: stack.tenant.sandbox.clientSecret,
      });
      const reading = (async () => {
        for await (const { event } of behind.events.stream({
          types: ['transaction.created'],
          signal: controller.signal,
          onStatus: (s) => statuses.push(s.state),
        })) {
          if (event.type === 'transaction.created') seen.push(event.data.transaction.id);
          if (seen.length === 2) controller.abort();
        }
      })();
      while (!statuses.includes('connected')) await new Promise((r) => setTimeout(r, 50));
      const first = await tx();
      while (!statuses.includes('reconnecting')) await new Promise((r) => setTimeout(r, 50));
      // Created while the stream is down: delivered after the reconnection.
      const second = await tx();
      await reading;
      expect(seen).toEqual([first.id, second.id]);
      expect(proxy.dropped()).toBe(1);
      expect(statuses.filter((s) => s === 'connected')).toHaveLength(2);
    } finally {
      controller.abort();
      await proxy.close();
    }
  });

  it('streams the platform’s events live and resumes after the last id', async () => {
    const controller = new AbortController();
    const statuses: string[] = [];
    const seen: string[] = [];
    let lastId = '';
    const reading = (async () => {
      for await (const { id, event } of client.events.stream({
        types: ['transaction.created'],
        signal: controller.signal,
        onStatus: (s) => statuses.push(s.state),
      })) {
        seen.push(event.type === 'transaction.created' ? event.data.transaction.id : event.type);
        lastId = id;
        if (seen.length === 1) controller.abort();
      }
    })();
    while (!statuses.includes('connected')) await new Promise((r) => setTimeout(r, 50));
    const created = await tx();
    await reading;
    expect(seen).toEqual([created.id]);
    const later = await tx();
    const resumed = new AbortController();
    for await (const { event } of client.events.stream({ lastEventId: lastId, signal: resumed.signal })) {
      expect(event).toMatchObject({ type: 'transaction.created', data: { transaction: { id: later.id } } });
      resumed.abort();
    }
  });
});

import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { type DomainEvent, EVENT_TYPES, PAYMENTS_COMMANDS, type SandboxCredential } from '@holdfast/contracts';
import { publishEvent, sendCommand } from '@holdfast/messaging';
import { domainEvent, fileFixture, type Receiver, startReceiver, until } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDispatcherFor } from '../support/dispatcher.js';
import { bearer, call, key, type Running, startPaymentsEnv, tokenFor } from '../support/harness.js';

// Payments API v1 webhooks: every operation forwarded to a real webhook-dispatcher on the same
// NATS prefix and database server, owned by the calling credential's platform.

const WORKSPACE_API = 'https://workspace.holdfast.test';

const e = fileFixture(() => startPaymentsEnv({ PAYMENTS_WORKSPACE_API_URL: WORKSPACE_API }));
let dispatcher: Running | undefined;
let receiver: Receiver;
/** Platform A: a sandbox credential of a workspace; platform B: another workspace's. */
let a: SandboxCredential;
let b: SandboxCredential;
let workspaceA: string;
let readOnlyKey: string;
let noWebhookScopesKey: string;

const startDispatcher = () => startDispatcherFor(e.db, e.nats, { WEBHOOK_RETRY_SCHEDULE: '1s' });

const asA = () => key(a.apiKey);
const hex = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
const subscriptions = async (platformId: string) =>
  (await e.sql<{ n: number }[]>`select count(*)::int as n from webhooks.subscriptions where platform_id = ${platformId}`)[0]?.n;

async function createWebhook(credential: Record<string, string>, path: string, eventTypes = ['transaction.created']) {
  const res = await call(e.svc.url, 'POST', '/api/v1/webhooks', { headers: credential, body: { url: receiver.url(path), eventTypes } });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; secret: string };
}

beforeAll(async () => {
  [dispatcher, receiver] = await Promise.all([
    startDispatcher(),
    startReceiver((request) => ({ status: request.path.startsWith('/fail') ? 500 : 200 })),
  ]);
  workspaceA = randomUUID();
  [a, b] = await Promise.all([
    sendCommand(e.nats.bus, PAYMENTS_COMMANDS.issueSandboxCredentials, { workspaceId: workspaceA, name: 'Platform A' }),
    sendCommand(e.nats.bus, PAYMENTS_COMMANDS.issueSandboxCredentials, { workspaceId: randomUUID(), name: 'Platform B' }),
  ]);
  const keyWith = async (name: string, scopes: string[]) =>
    (await call(e.svc.url, 'POST', '/api/v1/auth/api-key', { headers: key(e.admin), body: { name, scopes } })).body.apiKey as string;
  [readOnlyKey, noWebhookScopesKey] = await Promise.all([keyWith('Reader', ['read:webhooks']), keyWith('Nothing', ['read:customers'])]);
});

afterAll(async () => {
  await dispatcher?.stop();
  await receiver?.close();
});

describe('the eleven v1 operations', () => {
  it('create, list, read, change, rotate, test and delete a subscription of the calling platform', async () => {
    const created = await call(e.svc.url, 'POST', '/api/v1/webhooks', {
      headers: asA(),
      body: { url: receiver.url('/a/main'), eventTypes: ['transaction.created', 'transaction.completed'], metadata: { team: 'payouts' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      platformId: a.platformId,
      workspaceId: null,
      url: receiver.url('/a/main'),
      eventTypes: ['transaction.created', 'transaction.completed'],
      isActive: true,
      metadata: { team: 'payouts' },
      circuitBreaker: { state: 'CLOSED' },
    });
    expect(created.body.secret).toMatch(/^whsec_/);
    const id = created.body.id as string;

    const list = await call(e.svc.url, 'GET', '/api/v1/webhooks', { headers: asA() });
    expect(list.status).toBe(200);
    expect(list.body.map((s: { id: string }) => s.id)).toContain(id);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    // The spec's string query parameters.
    expect((await call(e.svc.url, 'GET', '/api/v1/webhooks?isActive=false', { headers: asA() })).body).toEqual([]);
    expect(
      (await call(e.svc.url, 'GET', '/api/v1/webhooks?isActive=true&eventType=transaction.completed', { headers: asA() })).body,
    ).toHaveLength(1);
    expect((await call(e.svc.url, 'GET', '/api/v1/webhooks?eventType=dispute.created', { headers: asA() })).body).toEqual([]);

    const types = await call(e.svc.url, 'GET', '/api/v1/webhooks/events/types', { headers: asA() });
    expect(types.status).toBe(200);
    expect(types.body.map((t: { type: string }) => t.type)).toEqual([...EVENT_TYPES]);

    const got = await call(e.svc.url, 'GET', `/api/v1/webhooks/${id}`, { headers: asA() });
    expect(got.body).toMatchObject({ id, platformId: a.platformId });
    expect(got.body.secret).toBeUndefined();

    const patched = await call(e.svc.url, 'PATCH', `/api/v1/webhooks/${id}`, {
      headers: asA(),
      body: { isActive: false, metadata: {} },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ isActive: false, metadata: {} });
    expect((await call(e.svc.url, 'GET', '/api/v1/webhooks?isActive=false', { headers: asA() })).body).toHaveLength(1);

    const rotated = await call(e.svc.url, 'POST', `/api/v1/webhooks/${id}/rotate-secret`, { headers: asA() });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);
    expect(rotated.body.secretRotation.inProgress).toBe(true);

    // A test delivery is signed with both secrets during the rotation.
    const tested = await call(e.svc.url, 'POST', `/api/v1/webhooks/${id}/test`, { headers: asA() });
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ webhookSubscriptionId: id, eventType: 'webhook.test', success: true, statusCode: 200 });
    const [delivery] = receiver.received('/a/main');
    expect(delivery?.headers['x-webhook-event']).toBe('webhook.test');
    expect(String(delivery?.headers['x-webhook-signature']).split(',')).toEqual([
      hex(rotated.body.secret, delivery!.body),
      hex(created.body.secret, delivery!.body),
    ]);

    const completed = await call(e.svc.url, 'POST', `/api/v1/webhooks/${id}/complete-rotation`, { headers: asA() });
    expect(completed.body.secretRotation.inProgress).toBe(false);
    const again = await call(e.svc.url, 'POST', `/api/v1/webhooks/${id}/complete-rotation`, { headers: asA() });
    expect([again.status, again.body.error.code]).toEqual([400, 'NO_ROTATION_IN_PROGRESS']);

    const reset = await call(e.svc.url, 'POST', `/api/v1/webhooks/${id}/reset-circuit-breaker`, { headers: asA() });
    expect(reset.body.circuitBreaker).toMatchObject({ state: 'CLOSED', consecutiveFailures: 0 });

    const logs = await call(e.svc.url, 'GET', `/api/v1/webhooks/${id}/delivery-logs?limit=5&successOnly=true`, { headers: asA() });
    expect(logs.status).toBe(200);
    expect(logs.body.total).toBe(1);
    expect(logs.body.logs[0]).toMatchObject({
      eventType: 'webhook.test',
      success: true,
      requestHeaders: { 'x-webhook-signature': '[redacted]' },
    });
    expect((await call(e.svc.url, 'GET', `/api/v1/webhooks/${id}/delivery-logs?failuresOnly=true`, { headers: asA() })).body).toEqual({
      logs: [],
      total: 0,
    });

    const deleted = await call(e.svc.url, 'DELETE', `/api/v1/webhooks/${id}`, { headers: asA() });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id, deleted: true });
    expect(deleted.body.message).toEqual(expect.any(String));
    expect((await call(e.svc.url, 'GET', `/api/v1/webhooks/${id}`, { headers: asA() })).status).toBe(404);
    expect(await subscriptions(a.platformId)).toBe(0);
  });

  it('works with the sandbox OAuth client on v1, and does not exist on v2', async () => {
    const token = await tokenFor(e.svc.url, a.oauthClient);
    const created = await createWebhook(bearer(token), '/a/token');
    expect((await call(e.svc.url, 'GET', `/api/v1/webhooks/${created.id}`, { headers: bearer(token) })).body.platformId).toBe(a.platformId);
    for (const path of ['/api/v2/webhooks', `/api/v2/webhooks/${created.id}`, '/api/v2/webhooks/events/types']) {
      const res = await call(e.svc.url, 'GET', path, { headers: bearer(token) });
      expect([res.status, res.body.error.code], path).toEqual([404, 'NOT_FOUND']);
    }
    await call(e.svc.url, 'DELETE', `/api/v1/webhooks/${created.id}`, { headers: bearer(token) });
  });

  it('answers with the deprecation headers: v2 as successor, the Workspace API webhooks as the alternate', async () => {
    const res = await call(e.svc.url, 'GET', '/api/v1/webhooks', { headers: asA() });
    expect(res.headers).toMatchObject({ deprecation: 'true', sunset: 'Sun, 01 Nov 2026 00:00:00 GMT', 'x-api-version': 'v1' });
    expect(res.headers.link).toBe(
      `</api/v2>; rel="successor-version", <${WORKSPACE_API}/api/v1/workspaces/${workspaceA}/webhooks>; rel="alternate"; title="Workspace API webhooks"`,
    );
    // A platform of no workspace (the operator's) gets the successor only.
    const operator = await call(e.svc.url, 'GET', '/api/v1/webhooks', { headers: key(e.admin) });
    expect(operator.headers.link).toBe('</api/v2>; rel="successor-version"');
  });

  it('delivers the events of the platform, signed, to a subscription made here', async () => {
    const sub = await createWebhook(asA(), '/a/events', ['transaction.created']);
    const mine = event(a.platformId);
    const theirs = event(b.platformId);
    await publishEvent(e.nats.bus, theirs);
    await publishEvent(e.nats.bus, mine);
    const delivery = await until('the delivery', async () => receiver.received('/a/events')[0]);
    expect(JSON.parse(delivery.body)).toEqual({ id: mine.id, type: 'transaction.created', createdAt: mine.createdAt, data: mine.data });
    expect(delivery.headers['x-webhook-signature']).toBe(hex(sub.secret, delivery.body));
    expect(delivery.headers['x-webhook-event']).toBe('transaction.created');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received('/a/events')).toHaveLength(1);
    await call(e.svc.url, 'DELETE', `/api/v1/webhooks/${sub.id}`, { headers: asA() });
  });
});

const event = (platformId: string): DomainEvent =>
  domainEvent('transaction.created', { platformId }, { transaction: { id: randomUUID(), status: 'pending', amount: '5.00' } });

describe('bad input gets a 400 and changes nothing', () => {
  it.each([
    [
      'unknown event types',
      'POST',
      '/api/v1/webhooks',
      { url: 'http://127.0.0.1:9/x', eventTypes: ['payment.teleported'] },
      'INVALID_EVENT_TYPES',
    ],
    ['no event types', 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/x', eventTypes: [] }, 'VALIDATION_ERROR'],
    ['not a URL', 'POST', '/api/v1/webhooks', { url: 'not a url', eventTypes: ['transaction.created'] }, 'VALIDATION_ERROR'],
    [
      'unknown field',
      'POST',
      '/api/v1/webhooks',
      { url: 'http://127.0.0.1:9/x', eventTypes: ['transaction.created'], secret: 'x' },
      'VALIDATION_ERROR',
    ],
    ['isActive not true/false', 'GET', '/api/v1/webhooks?isActive=yes', undefined, 'VALIDATION_ERROR'],
    ['unknown eventType filter', 'GET', '/api/v1/webhooks?eventType=nope', undefined, 'INVALID_EVENT_TYPES'],
    ['id not a uuid', 'GET', '/api/v1/webhooks/42', undefined, 'VALIDATION_ERROR'],
    ['both log filters', 'GET', '/api/v1/webhooks/{a}/delivery-logs?successOnly=true&failuresOnly=true', undefined, 'VALIDATION_ERROR'],
    ['log limit over 100', 'GET', '/api/v1/webhooks/{a}/delivery-logs?limit=101', undefined, 'VALIDATION_ERROR'],
    ['patch with an unknown event type', 'PATCH', '/api/v1/webhooks/{a}', { eventTypes: ['nope'] }, 'INVALID_EVENT_TYPES'],
    ['patch with a bad URL', 'PATCH', '/api/v1/webhooks/{a}', { url: 'ftp://x' }, 'VALIDATION_ERROR'],
  ] as const)('%s', async (_name, method, path, body, code) => {
    const existing = await createWebhook(asA(), '/a/bad-input');
    const before =
      await e.sql`select url, event_types, updated_at from webhooks.subscriptions where platform_id = ${a.platformId} order by id`;
    const res = await call(e.svc.url, method, path.replace('{a}', existing.id), { headers: asA(), body });
    expect([res.status, res.body.error.code], JSON.stringify(res.body)).toEqual([400, code]);
    expect(
      await e.sql`select url, event_types, updated_at from webhooks.subscriptions where platform_id = ${a.platformId} order by id`,
    ).toEqual(before);
    await call(e.svc.url, 'DELETE', `/api/v1/webhooks/${existing.id}`, { headers: asA() });
  });
});

describe('security', () => {
  const ops = (id: string) =>
    [
      ['GET', '/api/v1/webhooks', undefined, 'read'],
      ['POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/x', eventTypes: ['transaction.created'] }, 'write'],
      ['GET', '/api/v1/webhooks/events/types', undefined, 'read'],
      ['GET', `/api/v1/webhooks/${id}`, undefined, 'read'],
      ['PATCH', `/api/v1/webhooks/${id}`, { isActive: false }, 'write'],
      ['DELETE', `/api/v1/webhooks/${id}`, undefined, 'write'],
      ['GET', `/api/v1/webhooks/${id}/delivery-logs`, undefined, 'read'],
      ['POST', `/api/v1/webhooks/${id}/rotate-secret`, undefined, 'write'],
      ['POST', `/api/v1/webhooks/${id}/complete-rotation`, undefined, 'write'],
      ['POST', `/api/v1/webhooks/${id}/reset-circuit-breaker`, undefined, 'write'],
      ['POST', `/api/v1/webhooks/${id}/test`, undefined, 'write'],
    ] as const;

  it('refuses missing, wrong and under-scoped credentials on every operation, changing nothing', async () => {
    const target = await createWebhook(asA(), '/a/target');
    const snapshot = () => e.sql`select * from webhooks.subscriptions order by id`;
    const before = await snapshot();
    const cases: [string, Record<string, string>, 'read' | 'write' | 'all', number, string][] = [
      ['no credential', {}, 'all', 401, 'UNAUTHORIZED'],
      ['a wrong key', key(`hf_test_${randomBytes(32).toString('base64url')}`), 'all', 401, 'UNAUTHORIZED'],
      ['a wrong token', bearer(`hf_at_${'Q'.repeat(43)}`), 'all', 401, 'UNAUTHORIZED'],
      ['a key without webhook scopes', key(noWebhookScopesKey), 'all', 403, 'INSUFFICIENT_SCOPE'],
      ['a read:webhooks key, on writes', key(readOnlyKey), 'write', 403, 'INSUFFICIENT_SCOPE'],
    ];
    for (const [name, headers, applies, status, code] of cases) {
      for (const [method, path, body, kind] of ops(target.id)) {
        if (applies !== 'all' && applies !== kind) continue;
        const res = await call(e.svc.url, method, path, { headers, body });
        expect([res.status, res.body?.error?.code], `${name}: ${method} ${path}`).toEqual([status, code]);
      }
    }
    expect(receiver.received('/a/target')).toEqual([]);
    expect(await snapshot()).toEqual(before);
    await call(e.svc.url, 'DELETE', `/api/v1/webhooks/${target.id}`, { headers: asA() });
  });

  it("never reaches another platform's subscriptions (404), and leaves them untouched", async () => {
    const theirs = await createWebhook(key(b.apiKey), '/b/theirs');
    const before = await e.sql`select * from webhooks.subscriptions where id = ${theirs.id}`;
    for (const [method, path, body] of ops(theirs.id)) {
      if (path === '/api/v1/webhooks' || path.endsWith('/events/types')) continue;
      const res = await call(e.svc.url, method, path, { headers: asA(), body });
      expect([res.status, res.body.error.code], `${method} ${path}`).toEqual([404, 'NOT_FOUND']);
    }
    const list = await call(e.svc.url, 'GET', '/api/v1/webhooks', { headers: asA() });
    expect(JSON.stringify(list.body)).not.toContain(theirs.id);
    expect(await e.sql`select * from webhooks.subscriptions where id = ${theirs.id}`).toEqual(before);
    expect(receiver.received('/b/theirs')).toEqual([]);
  });

  it('answers 503 UPSTREAM_UNAVAILABLE with Retry-After while no dispatcher answers', async () => {
    await dispatcher?.stop();
    dispatcher = undefined;
    const res = await call(e.svc.url, 'GET', '/api/v1/webhooks', { headers: asA() });
    expect([res.status, res.body.error.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    expect(res.headers['retry-after']).toBe('1');
    // The catalog does not need the dispatcher.
    expect((await call(e.svc.url, 'GET', '/api/v1/webhooks/events/types', { headers: asA() })).status).toBe(200);
  });
});

import { createHmac, randomUUID } from 'node:crypto';
import { type DomainEvent, eventTypeCatalog, WebhookCommands } from '@holdfast/contracts';
import { publishEvent } from '@holdfast/messaging';
import { domainEvent, sendWebhookCommand, startReceiver, until } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, buildWorld, type Harness, type Json, startHarness, type World } from '../support/harness.js';
import { newTenant } from '../support/integrations.js';

// Workspace webhooks against a real webhook-dispatcher: the spec's eleven operations, resend and
// replay, and a signed delivery to a receiver on loopback for a subscription made here.

let h: Harness;
let world: World;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let w1: string;

beforeAll(async () => {
  [h, receiver] = await Promise.all([
    startHarness({}, { peers: true }),
    startReceiver((request) => ({ status: request.path.startsWith('/down') ? 503 : 200 })),
  ]);
  world = await buildWorld(h);
  w1 = `/api/v1/workspaces/${world.w1.id}`;
});
afterAll(async () => {
  await h?.stop();
  await receiver?.close();
});

const hex = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
function standard(secret: string, headers: Record<string, unknown>, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest('base64')}`;
}

const event = (workspaceId: string, type: 'transaction.created' | 'transaction.completed' = 'transaction.created'): DomainEvent =>
  domainEvent(
    type,
    { platformId: randomUUID(), workspaceId },
    { transaction: { id: randomUUID(), status: type === 'transaction.created' ? 'pending' : 'completed', amount: '42.00' } },
  );

async function create(base: string, token: string, body: Json) {
  const res = await h.call('POST', `${base}/webhooks`, { token, body });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${res.text}`);
  return res.body.data;
}

describe('a subscription made on the Workspace API', () => {
  it("receives the workspace's events, signed with its secret, and nothing of other workspaces", async () => {
    const sub = await create(w1, world.clientW1.token, { url: receiver.url('/w1/events'), eventTypes: ['transaction.created'] });
    expect(sub).toMatchObject({ workspaceId: world.w1.id, platformId: null, isActive: true });
    expect(sub.secret).toMatch(/^whsec_/);

    const theirs = event(world.w2.id);
    const completed = event(world.w1.id, 'transaction.completed');
    const mine = event(world.w1.id);
    for (const e of [theirs, completed, mine]) await publishEvent(h.nats.bus, e);

    const delivery = await until('the delivery', async () => receiver.received('/w1/events')[0]);
    expect(JSON.parse(delivery.body)).toEqual({ id: mine.id, type: mine.type, createdAt: mine.createdAt, data: mine.data });
    expect(delivery.headers).toMatchObject({
      'content-type': 'application/json',
      'x-webhook-event': 'transaction.created',
      'x-webhook-signature': hex(sub.secret, delivery.body),
      'webhook-signature': standard(sub.secret, delivery.headers, delivery.body),
    });
    expect(delivery.headers['x-webhook-delivery']).toBe(delivery.headers['webhook-id']);

    const logs = await until('the log', async () => {
      const res = await h.call('GET', `${w1}/webhooks/${sub.id}/delivery-logs?successOnly=true`, { token: world.clientW1.token });
      // The page and its total are read side by side: wait for the page itself to hold the entry.
      return res.body.data.logs.length > 0 ? res.body.data : undefined;
    });
    expect(logs.logs[0]).toMatchObject({
      eventId: mine.id,
      success: true,
      statusCode: 200,
      deliveryId: delivery.headers['x-webhook-delivery'],
    });
    expect(receiver.received('/w1/events')).toHaveLength(1);
  });
});

describe('the operations', () => {
  it('list, read, change, rotate, test, complete, reset, resend, replay and delete', async () => {
    const token = world.adminW1.token;
    const sub = await create(w1, token, {
      url: receiver.url('/w1/ops'),
      eventTypes: ['transaction.created', 'dispute.created'],
      ipWhitelist: ['127.0.0.1/32'],
      metadata: { team: 'ops' },
    });
    const path = `${w1}/webhooks/${sub.id}`;

    const list = await h.call('GET', `${w1}/webhooks?eventType=dispute.created&isActive=true`, { token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ success: true, meta: { requestId: expect.any(String) } });
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([sub.id]);
    expect(list.text).not.toContain(sub.secret);
    expect((await h.call('GET', `${w1}/webhooks?isActive=false`, { token })).body.data).toEqual([]);

    const got = await h.call('GET', path, { token });
    expect(got.body.data).toMatchObject({ id: sub.id, ipWhitelist: ['127.0.0.1/32'], circuitBreaker: { state: 'CLOSED' } });
    expect(got.body.data.secret).toBeUndefined();

    const patched = await h.call('PATCH', path, { token, body: { eventTypes: ['transaction.created'], metadata: { team: 'payouts' } } });
    expect(patched.body.data).toMatchObject({ eventTypes: ['transaction.created'], metadata: { team: 'payouts' } });

    const rotated = await h.call('POST', `${path}/rotate-secret`, { token });
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secretRotation.inProgress).toBe(true);

    const tested = await h.call('POST', `${path}/test`, { token });
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({ eventType: 'webhook.test', success: true, statusCode: 200 });
    const [test] = receiver.received('/w1/ops');
    expect(String(test?.headers['x-webhook-signature']).split(',')).toEqual([
      hex(rotated.body.data.secret, test!.body),
      hex(sub.secret, test!.body),
    ]);

    expect((await h.call('POST', `${path}/complete-rotation`, { token })).body.data.secretRotation.inProgress).toBe(false);
    const again = await h.call('POST', `${path}/complete-rotation`, { token });
    expect([again.status, again.body.error.code]).toEqual([400, 'NO_ROTATION_IN_PROGRESS']);
    expect((await h.call('POST', `${path}/reset-circuit-breaker`, { token })).body.data.circuitBreaker).toMatchObject({
      state: 'CLOSED',
      consecutiveFailures: 0,
    });

    // A delivery, resent with the same X-Webhook-Delivery; then replayed.
    const e = event(world.w1.id);
    await publishEvent(h.nats.bus, e);
    const first = await until('the event delivered', async () => receiver.received('/w1/ops').find((r) => r.body.includes(e.id)));
    const deliveryId = String(first.headers['x-webhook-delivery']);
    const resent = await h.call('POST', `${path}/deliveries/${deliveryId}/resend`, { token });
    expect(resent.status).toBe(200);
    expect(resent.body.data).toMatchObject({ id: deliveryId, eventId: e.id, status: 'pending' });
    await until('the resend', async () => receiver.received('/w1/ops').filter((r) => r.body.includes(e.id)).length === 2);
    expect(
      receiver
        .received('/w1/ops')
        .filter((r) => r.body.includes(e.id))
        .map((r) => r.headers['x-webhook-delivery']),
    ).toEqual([deliveryId, deliveryId]);
    // The range of that one event: it succeeded, so `onlyFailed` skips it; without, it is queued again.
    // The dispatcher stores a success after the receiver's answer (on an idle worker with its next
    // claim, 50 ms at most: ADR 41), so wait for the stored status the replay reads.
    await until('the resend stored', async () => {
      const [row] = await h.sql<{ status: string }[]>`select status from webhooks.deliveries where id = ${deliveryId}`;
      return row?.status === 'succeeded';
    });
    const range = { from: e.createdAt, to: new Date(Date.parse(e.createdAt) + 1).toISOString() };
    const skipped = await h.call('POST', `${path}/replay`, { token, body: { ...range, onlyFailed: true } });
    expect(skipped.status).toBe(200);
    expect(skipped.body.data).toMatchObject({ matched: 1, created: 0, requeued: 0, skipped: 1, resumeFrom: null });
    const replayed = await h.call('POST', `${path}/replay`, { token, body: range });
    expect(replayed.body.data).toMatchObject({ matched: 1, requeued: 1 });
    await until('the replay', async () => receiver.received('/w1/ops').filter((r) => r.body.includes(e.id)).length === 3);
    const unknownDelivery = await h.call('POST', `${path}/deliveries/${randomUUID()}/resend`, { token });
    expect(unknownDelivery.status).toBe(404);

    const deleted = await h.call('DELETE', path, { token });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({ id: sub.id, deleted: true, message: expect.any(String) });
    expect((await h.call('GET', path, { token })).status).toBe(404);
    expect((await h.sql`select count(*)::int as n from webhooks.subscriptions where id = ${sub.id}`)[0]?.n).toBe(0);

    // Every change is in the trail, secrets hidden.
    const actions = (await auditEntries(h, { resourceId: sub.id })).map((e) => e.action).reverse();
    expect(actions).toEqual([
      'webhook.create',
      'webhook.update',
      'webhook.rotate_secret',
      'webhook.test',
      'webhook.complete_rotation',
      'webhook.reset_circuit_breaker',
      'webhook.resend_delivery',
      'webhook.replay',
      'webhook.replay',
      'webhook.delete',
    ]);
    const trail = JSON.stringify(await auditEntries(h, { resourceId: sub.id }));
    expect(trail).not.toContain(sub.secret);
    expect(trail).not.toContain(rotated.body.data.secret);
    const [update] = await auditEntries(h, { action: 'webhook.update', resourceId: sub.id });
    expect(update?.changes).toEqual({
      eventTypes: { from: ['transaction.created', 'dispute.created'], to: ['transaction.created'] },
      metadata: { from: { team: 'ops' }, to: { team: 'payouts' } },
    });
  });

  it('serves the event types from the shared catalog', async () => {
    const res = await h.call('GET', `${w1}/webhooks/events/types`, { token: world.clientW1.token });
    expect(res.body.data).toEqual(eventTypeCatalog());
  });
});

describe('bad input gets a 400 and changes nothing', () => {
  it.each([
    ['unknown event types', { url: 'http://127.0.0.1:9/x', eventTypes: ['transaction.teleported'] }, 'INVALID_EVENT_TYPES'],
    ['a URL with credentials', { url: 'http://user:pw@127.0.0.1:9/x', eventTypes: ['transaction.created'] }, 'VALIDATION_ERROR'],
    [
      'a bad ipWhitelist entry',
      { url: 'http://127.0.0.1:9/x', eventTypes: ['transaction.created'], ipWhitelist: ['nope'] },
      'VALIDATION_ERROR',
    ],
    ['an unknown field', { url: 'http://127.0.0.1:9/x', eventTypes: ['transaction.created'], secret: 'mine' }, 'VALIDATION_ERROR'],
  ])('%s', async (_name, body, code) => {
    const before = await h.sql`select count(*)::int as n from webhooks.subscriptions where workspace_id = ${world.w1.id}`;
    const res = await h.call('POST', `${w1}/webhooks`, { token: world.adminW1.token, body });
    expect([res.status, res.body.error.code]).toEqual([400, code]);
    if (code === 'INVALID_EVENT_TYPES') expect(res.body.error.details.invalidEventTypes).toEqual(['transaction.teleported']);
    expect(await h.sql`select count(*)::int as n from webhooks.subscriptions where workspace_id = ${world.w1.id}`).toEqual(before);
  });

  it('replay with `to` not after `from`, an unknown eventType filter, both log filters', async () => {
    const sub = await create(w1, world.adminW1.token, { url: 'http://127.0.0.1:9/bad', eventTypes: ['transaction.created'] });
    const now = new Date().toISOString();
    const replay = await h.call('POST', `${w1}/webhooks/${sub.id}/replay`, { token: world.adminW1.token, body: { from: now, to: now } });
    expect([replay.status, replay.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const filter = await h.call('GET', `${w1}/webhooks?eventType=nope`, { token: world.adminW1.token });
    expect([filter.status, filter.body.error.code]).toEqual([400, 'INVALID_EVENT_TYPES']);
    const logs = await h.call('GET', `${w1}/webhooks/${sub.id}/delivery-logs?successOnly=true&failuresOnly=true`, {
      token: world.adminW1.token,
    });
    expect([logs.status, logs.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('security', () => {
  it("keeps each workspace to its own subscriptions: another's id answers 404 and stays untouched", async () => {
    const t = await newTenant(h, world);
    const theirs = await create(t.base, t.admin.token, { url: receiver.url('/other'), eventTypes: ['transaction.created'] });
    const before = await h.sql`select * from webhooks.subscriptions where id = ${theirs.id}`;
    for (const [method, suffix] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['GET', '/delivery-logs'],
      ['POST', '/rotate-secret'],
      ['POST', '/reset-circuit-breaker'],
      ['POST', '/test'],
    ] as const) {
      const res = await h.call(method, `${w1}/webhooks/${theirs.id}${suffix}`, {
        token: world.adminW1.token,
        body: method === 'PATCH' ? { isActive: false } : undefined,
      });
      expect([res.status, res.body.error.code], `${method} ${suffix}`).toEqual([404, 'NOT_FOUND']);
    }
    expect(await h.sql`select * from webhooks.subscriptions where id = ${theirs.id}`).toEqual(before);
    expect(receiver.received('/other')).toEqual([]);
    expect((await h.call('GET', `${t.base}/webhooks`, { token: world.adminW1.token })).status).toBe(403);
    expect((await h.call('GET', `/api/v1/workspaces/${randomUUID()}/webhooks`, { token: world.superAdmin.token })).status).toBe(404);
  });

  it('a platform subscription (Payments API) is not visible on the workspace surface', async () => {
    const platformSub = await sendWebhookCommand(h.nats.bus, WebhookCommands.create, {
      owner: { platformId: randomUUID() },
      url: 'http://127.0.0.1:9/platform',
      eventTypes: ['transaction.created'],
    });
    expect((await h.call('GET', `${w1}/webhooks/${platformSub.id}`, { token: world.superAdmin.token })).status).toBe(404);
  });

  it('answers 503 with Retry-After while no dispatcher answers, and records the failed change', async () => {
    await h.peers!.dispatcher.stop();
    try {
      const res = await h.call('POST', `${w1}/webhooks`, {
        token: world.adminW1.token,
        body: { url: 'http://127.0.0.1:9/x', eventTypes: ['transaction.created'] },
        headers: { 'x-request-id': 'webhook-down-1' },
      });
      expect([res.status, res.body.error.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
      expect(res.headers['retry-after']).toBe('1');
      const [entry] = await h.sql`select success, action from workspace.audit_logs where metadata->>'requestId' = 'webhook-down-1'`;
      expect(entry).toEqual({ success: false, action: 'webhook.create' });
      // The catalog needs no dispatcher.
      expect((await h.call('GET', `${w1}/webhooks/events/types`, { token: world.adminW1.token })).status).toBe(200);
    } finally {
      await h.peers!.dispatcher.start();
    }
  });
});

import { randomUUID } from 'node:crypto';
import {
  DEFAULT_EVENT_TYPES,
  type DomainEvent,
  WebhookCommands,
  type WebhookOwner,
  type WebhookSubscriptionWithSecret,
} from '@holdfast/contracts';
import { publishEvent } from '@holdfast/messaging';
import { domainEvent, fileFixture, startReceiver } from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { type AttemptRecord, createDeliveriesRepository } from '../../src/modules/deliveries/repository.js';
import { idleSleepMs } from '../../src/modules/deliveries/worker.js';
import { startTestDispatcher } from '../support/dispatcher.js';
import { disputeEvent, transactionEvent } from '../support/events.js';
import { verifyHexSignature, verifyStandardSignature } from '../support/verify.js';

// Deliveries end to end: events published on the real EVENTS stream, a real HTTP receiver on
// loopback, the dispatcher's commands over real NATS. Short retry schedule; the circuit breaker
// is out of the way here (its own file).

const replies = new Map<string, (index: number) => { status: number; headers?: Record<string, string>; body?: string; hang?: boolean }>();

const receiver = fileFixture(() =>
  startReceiver((request, index) => replies.get(request.path)?.(index) ?? { status: 200, body: '{"received":true}' }),
);
const dispatcher = fileFixture(() =>
  startTestDispatcher({
    WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,200ms',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_CIRCUIT_THRESHOLD: '1000',
  }),
);

async function subscribe(
  owner: WebhookOwner,
  path: string,
  eventTypes: string[] = ['transaction.created'],
  extra: { ipWhitelist?: string[] } = {},
) {
  return dispatcher.send(WebhookCommands.create, { owner, url: receiver.url(path), eventTypes, ...extra });
}

async function publish(event: DomainEvent) {
  await publishEvent(dispatcher.nats.bus, event);
  return event;
}

/** Waits until the intake has stored the event (its deliveries are created in the same transaction). */
async function stored(event: DomainEvent) {
  await expect.poll(async () => (await dispatcher.sql`select 1 from webhooks.received_events where id = ${event.id}`).length).toBe(1);
}

async function deliveryRows(subscriptionId: string) {
  return dispatcher.sql<{ id: string; event_id: string; status: string; attempt_count: number }[]>`
    select id, event_id, status, attempt_count from webhooks.deliveries where subscription_id = ${subscriptionId} order by created_at`;
}

const waitForRequests = (path: string, count: number, timeout = 10_000) =>
  expect.poll(() => receiver.received(path).length, { timeout }).toBeGreaterThanOrEqual(count);

describe('a delivery', () => {
  it('is the event as {id, type, createdAt, data}, signed so that a receiver verifies both signatures', async () => {
    const owner = { platformId: randomUUID() };
    const subscription = await subscribe(owner, '/signed');
    const event = await publish(transactionEvent(owner));
    await waitForRequests('/signed', 1);
    const [request] = receiver.received('/signed');

    expect(JSON.parse(request!.body)).toEqual({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data });
    expect(Object.keys(JSON.parse(request!.body))).toEqual(['id', 'type', 'createdAt', 'data']);
    const headers = request!.headers;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-webhook-event']).toBe('transaction.created');
    expect(headers['x-webhook-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers['webhook-id']).toBe(headers['x-webhook-delivery']);
    expect(headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(headers['x-webhook-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);

    expect(verifyHexSignature(subscription.secret, request!.body, headers)).toBe(true);
    expect(verifyStandardSignature(subscription.secret, request!.body, headers)).toBe(true);
    // The official Standard Webhooks library, fed the secret exactly as create returned it.
    const verified = new Webhook(subscription.secret).verify(request!.body, headers as Record<string, string>);
    expect(verified).toEqual(JSON.parse(request!.body));
    expect(() => new Webhook(subscription.secret).verify(`${request!.body} `, headers as Record<string, string>)).toThrow();
    const other = await subscribe(owner, '/unused');
    expect(verifyHexSignature(other.secret, request!.body, headers)).toBe(false);

    const [row] = await deliveryRows(subscription.id);
    expect(row).toMatchObject({ id: headers['x-webhook-delivery'], event_id: event.id });
    await expect.poll(async () => (await deliveryRows(subscription.id))[0]?.status).toBe('succeeded');
    const { logs, total } = await dispatcher.send(WebhookCommands.deliveryLogs, { owner, subscriptionId: subscription.id });
    expect(total).toBe(1);
    expect(logs[0]).toMatchObject({
      webhookSubscriptionId: subscription.id,
      deliveryId: headers['x-webhook-delivery'],
      eventId: event.id,
      eventType: 'transaction.created',
      deliveryAttempt: 1,
      success: true,
      statusCode: 200,
      errorMessage: null,
      responseBody: '{"received":true}',
    });
    expect(logs[0]!.requestHeaders).toMatchObject({
      'x-webhook-signature': '[redacted]',
      'webhook-signature': '[redacted]',
      'x-webhook-delivery': headers['x-webhook-delivery'],
    });
  });

  it('keeps the secret only sealed at rest', async () => {
    const owner = { platformId: randomUUID() };
    const subscription = await subscribe(owner, '/sealed');
    const [row] = await dispatcher.sql<
      { secret_sealed: string }[]
    >`select secret_sealed from webhooks.subscriptions where id = ${subscription.id}`;
    expect(subscription.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(row!.secret_sealed.startsWith('v1.localdev.')).toBe(true);
    expect(row!.secret_sealed).not.toContain(subscription.secret.slice(6, 20));
    expect(await dispatcher.send(WebhookCommands.get, { owner, subscriptionId: subscription.id })).not.toHaveProperty('secret');
  });
});

describe('routing', () => {
  it('creates one delivery per active subscription that names the type and owns the event', async () => {
    const platform = randomUUID();
    const workspace = randomUUID();
    const byPlatform = await subscribe({ platformId: platform }, '/route/platform', ['transaction.created', 'dispute.created']);
    const byWorkspace = await subscribe({ workspaceId: workspace }, '/route/workspace');
    const otherPlatform = await subscribe({ platformId: randomUUID() }, '/route/other-platform');
    const otherWorkspace = await subscribe({ workspaceId: randomUUID() }, '/route/other-workspace');
    const disputesOnly = await subscribe({ platformId: platform }, '/route/disputes', ['dispute.created']);
    const inactive = await subscribe({ platformId: platform }, '/route/inactive');
    await dispatcher.send(WebhookCommands.update, { owner: { platformId: platform }, subscriptionId: inactive.id, isActive: false });

    const event = await publish(transactionEvent({ platformId: platform, workspaceId: workspace }));
    await stored(event);
    const count = async (id: string) => (await deliveryRows(id)).filter((d) => d.event_id === event.id).length;
    expect(await count(byPlatform.id)).toBe(1);
    expect(await count(byWorkspace.id)).toBe(1);
    for (const s of [otherPlatform, otherWorkspace, disputesOnly, inactive]) expect(await count(s.id)).toBe(0);
    await waitForRequests('/route/platform', 1);
    await waitForRequests('/route/workspace', 1);

    // A type a subscription does not name never reaches it.
    const dispute = await publish(disputeEvent(platform));
    await stored(dispute);
    expect((await deliveryRows(disputesOnly.id)).map((d) => d.event_id)).toEqual([dispute.id]);
    expect((await deliveryRows(byPlatform.id)).map((d) => d.event_id)).toEqual([event.id, dispute.id]);
    expect((await deliveryRows(byWorkspace.id)).map((d) => d.event_id)).toEqual([event.id]);
  });

  it('delivers an opt-in type (transaction.reorged) only to a subscription that names it, never to one of every other type', async () => {
    const platform = randomUUID();
    // Every type there was before the opt-in ones: what a subscriber of "all events" holds.
    const everyOther = await subscribe({ platformId: platform }, '/route/every-other', [...DEFAULT_EVENT_TYPES]);
    const named = await subscribe({ platformId: platform }, '/route/reorged', ['transaction.reorged']);
    const reorged = await publish(
      domainEvent(
        'transaction.reorged',
        { platformId: platform },
        {
          transaction: { id: randomUUID(), status: 'pending' },
          reason: 'reorg',
          previousStatus: 'escrowed',
          finality: 'confirmed',
          blockNumber: 12,
          blockHash: `0x${'1'.repeat(64)}`,
          txHash: `0x${'2'.repeat(64)}`,
        },
      ),
    );
    await stored(reorged);
    expect((await deliveryRows(named.id)).map((d) => d.event_id)).toEqual([reorged.id]);
    expect(await deliveryRows(everyOther.id)).toEqual([]);
    await waitForRequests('/route/reorged', 1);
    expect(JSON.parse(receiver.received('/route/reorged')[0]!.body)).toMatchObject({ type: 'transaction.reorged' });
    expect(receiver.received('/route/every-other')).toEqual([]);
  });
});

describe('retries', () => {
  it('retries non-2xx answers on the schedule with one X-Webhook-Delivery, and logs every attempt', async () => {
    replies.set('/flaky', (i) => (i < 2 ? { status: 500, body: 'x'.repeat(10_000) } : { status: 204 }));
    const owner = { platformId: randomUUID() };
    const subscription = await subscribe(owner, '/flaky');
    const event = await publish(transactionEvent(owner));
    await waitForRequests('/flaky', 3);
    await expect.poll(async () => (await deliveryRows(subscription.id))[0]?.status).toBe('succeeded');
    const requests = receiver.received('/flaky');
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers['x-webhook-delivery'])).size).toBe(1);
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    for (const r of requests) expect(JSON.parse(r.body).id).toBe(event.id);

    const all = await dispatcher.send(WebhookCommands.deliveryLogs, { owner, subscriptionId: subscription.id });
    expect(all.total).toBe(3);
    expect(all.logs.map((l) => [l.deliveryAttempt, l.success, l.statusCode])).toEqual([
      [3, true, 204],
      [2, false, 500],
      [1, false, 500],
    ]);
    expect(all.logs[1]!.errorMessage).toBe('receiver answered 500');
    expect(Buffer.byteLength(all.logs[1]!.responseBody!)).toBe(4096);
    const failures = await dispatcher.send(WebhookCommands.deliveryLogs, { owner, subscriptionId: subscription.id, failuresOnly: true });
    expect(failures.total).toBe(2);
    expect(failures.logs.every((l) => !l.success)).toBe(true);
    const successes = await dispatcher.send(WebhookCommands.deliveryLogs, { owner, subscriptionId: subscription.id, successOnly: true });
    expect(successes.logs.map((l) => l.deliveryAttempt)).toEqual([3]);
    const page = await dispatcher.send(WebhookCommands.deliveryLogs, { owner, subscriptionId: subscription.id, limit: 1, offset: 1 });
    expect(page).toMatchObject({ total: 3, logs: [{ deliveryAttempt: 2 }] });
  });

  it('counts a time-out as a failure and retries it', async () => {
    replies.set('/slow', (i) => (i === 0 ? { status: 200, hang: true } : { status: 200 }));
    const owner = { platformId: randomUUID() };
    const subscription = await subscribe(owner, '/slow');
    await publish(transactionEvent(owner));
    await expect.poll(async () => (await deliveryRows(subscription.id))[0]?.status, { timeout: 10_000 }).toBe('succeeded');
    const { logs } = await dispatcher.send(WebhookCommands.deliveryLogs, { owner, subscriptionId: subscription.id });
    expect(logs.map((l) => [l.deliveryAttempt, l.success, l.statusCode, l.errorMessage])).toEqual([
      [2, true, 200, null],
      [1, false, null, 'no answer within 1000 ms'],
    ]);
  });

  const exhaustedCount = async () => {
    const metrics = await (await fetch(`${dispatcher.url}/metrics`)).text();
    return Number(/^webhook_deliveries_exhausted_total(?:\{[^}]*\})? (\d+)$/m.exec(metrics)?.[1] ?? 0);
  };

  it('gives up when the schedule is spent; a resend queues the same delivery again with a fresh schedule', async () => {
    replies.set('/dead', () => ({ status: 503 }));
    const exhaustedBefore = await exhaustedCount();
    const owner = { workspaceId: randomUUID() };
    const subscription = await subscribe(owner, '/dead');
    await publish(transactionEvent({ platformId: randomUUID(), workspaceId: owner.workspaceId }));
    await expect.poll(async () => (await deliveryRows(subscription.id))[0]?.status, { timeout: 10_000 }).toBe('failed');
    expect(receiver.received('/dead')).toHaveLength(4);
    const [failed] = await deliveryRows(subscription.id);
    // What the HoldfastWebhookDeliveriesExhausted alert counts (infra/observability): this delivery once, after its result was stored.
    await expect.poll(exhaustedCount, { timeout: 2_000 }).toBe(exhaustedBefore + 1);

    replies.set('/dead', () => ({ status: 200 }));
    const resent = await dispatcher.send(WebhookCommands.resendDelivery, {
      owner,
      subscriptionId: subscription.id,
      deliveryId: failed!.id,
    });
    expect(resent).toMatchObject({ id: failed!.id, status: 'pending', attempts: 4 });
    await expect.poll(async () => (await deliveryRows(subscription.id))[0]?.status).toBe('succeeded');
    const requests = receiver.received('/dead');
    expect(requests).toHaveLength(5);
    expect(requests[4]!.headers['x-webhook-delivery']).toBe(failed!.id);
    const { logs } = await dispatcher.send(WebhookCommands.deliveryLogs, { owner, subscriptionId: subscription.id, limit: 1 });
    expect(logs[0]).toMatchObject({ deliveryAttempt: 5, success: true });
  });

  it('honours Retry-After on a 429 before the next attempt', async () => {
    replies.set('/busy', (i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    const owner = { platformId: randomUUID() };
    const subscription = await subscribe(owner, '/busy');
    await publish(transactionEvent(owner));
    await waitForRequests('/busy', 1);
    await expect.poll(async () => (await deliveryRows(subscription.id))[0]?.attempt_count).toBeGreaterThanOrEqual(1);
    // No look at the pause while it runs (a loaded machine can outlast a one-second pause before
    // the check): the gap between the two attempts is what the receiver relies on.
    await waitForRequests('/busy', 2);
    const [first, second] = receiver.received('/busy');
    // The schedule says 100 ms; the receiver asked for a second.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it('deactivates the subscription when the receiver answers 410, and delivers again once reactivated', async () => {
    replies.set('/gone', () => ({ status: 410 }));
    const owner = { platformId: randomUUID() };
    const subscription = await subscribe(owner, '/gone');
    await publish(transactionEvent(owner));
    await expect.poll(async () => (await deliveryRows(subscription.id))[0]?.status).toBe('failed');
    expect(receiver.received('/gone')).toHaveLength(1);
    const disabled = await dispatcher.send(WebhookCommands.get, { owner, subscriptionId: subscription.id });
    expect(disabled.isActive).toBe(false);
    expect(disabled.disabledReason).toMatch(/410 Gone/);

    const ignored = await publish(transactionEvent(owner));
    await stored(ignored);
    expect(await deliveryRows(subscription.id)).toHaveLength(1);

    replies.set('/gone', () => ({ status: 200 }));
    const reactivated = await dispatcher.send(WebhookCommands.update, { owner, subscriptionId: subscription.id, isActive: true });
    expect(reactivated).toMatchObject({ isActive: true, disabledReason: null });
    const next = await publish(transactionEvent(owner));
    await waitForRequests('/gone', 2);
    expect(JSON.parse(receiver.received('/gone')[1]!.body).id).toBe(next.id);
  });
});

describe('secret rotation', () => {
  it('signs with both secrets, newest first, until complete-rotation; then with the new one only', async () => {
    const owner = { workspaceId: randomUUID() };
    const created = await subscribe(owner, '/rotation');
    const rotated: WebhookSubscriptionWithSecret = await dispatcher.send(WebhookCommands.rotateSecret, {
      owner,
      subscriptionId: created.id,
    });
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.secretRotation.inProgress).toBe(true);
    expect((await dispatcher.send(WebhookCommands.get, { owner, subscriptionId: created.id })).secretRotation.inProgress).toBe(true);

    await publish(transactionEvent({ platformId: randomUUID(), workspaceId: owner.workspaceId }));
    await waitForRequests('/rotation', 1);
    const during = receiver.received('/rotation')[0]!;
    const [newest, previous] = String(during.headers['x-webhook-signature']).split(',');
    expect(verifyHexSignature(rotated.secret, during.body, { 'x-webhook-signature': newest })).toBe(true);
    expect(verifyHexSignature(created.secret, during.body, { 'x-webhook-signature': previous })).toBe(true);
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [created.secret, rotated.secret]) {
      expect(verifyStandardSignature(secret, during.body, during.headers)).toBe(true);
      expect(() => new Webhook(secret).verify(during.body, during.headers as Record<string, string>)).not.toThrow();
    }

    const completed = await dispatcher.send(WebhookCommands.completeRotation, { owner, subscriptionId: created.id });
    expect(completed.secretRotation).toEqual({ inProgress: false, startedAt: null });
    expect(completed).not.toHaveProperty('secret');
    await publish(transactionEvent({ platformId: randomUUID(), workspaceId: owner.workspaceId }));
    await waitForRequests('/rotation', 2);
    const after = receiver.received('/rotation')[1]!;
    expect(String(after.headers['x-webhook-signature']).split(',')).toHaveLength(1);
    expect(verifyHexSignature(rotated.secret, after.body, after.headers)).toBe(true);
    expect(verifyHexSignature(created.secret, after.body, after.headers)).toBe(false);
    expect(() => new Webhook(created.secret).verify(after.body, after.headers as Record<string, string>)).toThrow();

    await expect(dispatcher.send(WebhookCommands.completeRotation, { owner, subscriptionId: created.id })).rejects.toMatchObject({
      code: 'NO_ROTATION_IN_PROGRESS',
      statusCode: 400,
    });
  });

  it('signs with the new secret right after a rotation of a subscription already delivered to (no stale secret)', async () => {
    const owner = { platformId: randomUUID() };
    const created = await subscribe(owner, '/rotation-after-delivery');
    await publish(transactionEvent(owner));
    await waitForRequests('/rotation-after-delivery', 1);
    const rotated = await dispatcher.send(WebhookCommands.rotateSecret, { owner, subscriptionId: created.id });
    await publish(transactionEvent(owner));
    await waitForRequests('/rotation-after-delivery', 2);
    const after = receiver.received('/rotation-after-delivery')[1]!;
    const [newest, previous] = String(after.headers['x-webhook-signature']).split(',');
    expect(verifyHexSignature(rotated.secret, after.body, { 'x-webhook-signature': newest })).toBe(true);
    expect(verifyHexSignature(created.secret, after.body, { 'x-webhook-signature': previous })).toBe(true);

    await dispatcher.send(WebhookCommands.completeRotation, { owner, subscriptionId: created.id });
    await publish(transactionEvent(owner));
    await waitForRequests('/rotation-after-delivery', 3);
    const completed = receiver.received('/rotation-after-delivery')[2]!;
    expect(String(completed.headers['x-webhook-signature']).split(',')).toHaveLength(1);
    expect(verifyHexSignature(rotated.secret, completed.body, completed.headers)).toBe(true);
  });

  it('keeps only the two newest secrets when rotating during a rotation', async () => {
    const owner = { platformId: randomUUID() };
    const first = await subscribe(owner, '/rotation-twice');
    const second = await dispatcher.send(WebhookCommands.rotateSecret, { owner, subscriptionId: first.id });
    const third = await dispatcher.send(WebhookCommands.rotateSecret, { owner, subscriptionId: first.id });
    await publish(transactionEvent(owner));
    await waitForRequests('/rotation-twice', 1);
    const request = receiver.received('/rotation-twice')[0]!;
    const digests = String(request.headers['x-webhook-signature']).split(',');
    expect(digests).toHaveLength(2);
    expect(verifyHexSignature(third.secret, request.body, { 'x-webhook-signature': digests[0] })).toBe(true);
    expect(verifyHexSignature(second.secret, request.body, { 'x-webhook-signature': digests[1] })).toBe(true);
    expect(verifyHexSignature(first.secret, request.body, request.headers)).toBe(false);
  });
});

describe('test delivery', () => {
  it('sends one signed webhook.test now and answers its log entry, success or not', async () => {
    const owner = { platformId: randomUUID() };
    const subscription = await subscribe(owner, '/test-delivery');
    const result = await dispatcher.send(WebhookCommands.test, { owner, subscriptionId: subscription.id });
    expect(result).toMatchObject({
      webhookSubscriptionId: subscription.id,
      eventType: 'webhook.test',
      deliveryAttempt: 1,
      success: true,
      statusCode: 200,
    });
    const [request] = receiver.received('/test-delivery');
    expect(request!.headers['x-webhook-event']).toBe('webhook.test');
    expect(request!.headers['x-webhook-delivery']).toBe(result.deliveryId);
    expect(JSON.parse(request!.body)).toMatchObject({
      id: result.eventId,
      type: 'webhook.test',
      data: { webhookSubscriptionId: subscription.id },
    });
    expect(new Webhook(subscription.secret).verify(request!.body, request!.headers as Record<string, string>)).toBeTruthy();
    expect((await dispatcher.send(WebhookCommands.deliveryLogs, { owner, subscriptionId: subscription.id })).logs).toEqual([result]);

    replies.set('/test-delivery', () => ({ status: 500, body: 'broken' }));
    const failed = await dispatcher.send(WebhookCommands.test, { owner, subscriptionId: subscription.id });
    expect(failed).toMatchObject({ success: false, statusCode: 500, errorMessage: 'receiver answered 500', responseBody: 'broken' });
    expect(await deliveryRows(subscription.id)).toEqual([]);
  });
});

describe('ipWhitelist', () => {
  it('sends only to an address of the host within the list', async () => {
    const owner = { platformId: randomUUID() };
    const subscription = await subscribe(owner, '/whitelisted', ['transaction.created'], { ipWhitelist: ['10.0.0.0/8'] });
    await publish(transactionEvent(owner));
    await expect.poll(async () => (await deliveryRows(subscription.id))[0]?.attempt_count).toBeGreaterThanOrEqual(1);
    await expect
      .poll(
        async () => (await dispatcher.send(WebhookCommands.deliveryLogs, { owner, subscriptionId: subscription.id })).logs[0]?.errorMessage,
      )
      .toBe("connection refused by policy: address 127.0.0.1 is not in the subscription's ipWhitelist");
    expect(receiver.received('/whitelisted')).toHaveLength(0);

    await dispatcher.send(WebhookCommands.update, { owner, subscriptionId: subscription.id, ipWhitelist: ['192.0.2.1', '127.0.0.0/8'] });
    await expect.poll(async () => (await deliveryRows(subscription.id))[0]?.status, { timeout: 10_000 }).toBe('succeeded');
    expect(receiver.received('/whitelisted')).toHaveLength(1);
  });
});

describe('replay', () => {
  it('queues the events of a time range a subscription matches: new deliveries, then the same ones again', async () => {
    const owner = { platformId: randomUUID() };
    const from = new Date(Date.now() - 1000).toISOString();
    const events = [await publish(transactionEvent(owner)), await publish(transactionEvent(owner, 'transaction.completed'))];
    const unrelated = await publish(disputeEvent(owner.platformId));
    for (const e of [...events, unrelated]) await stored(e);
    const to = new Date(Date.now() + 1000).toISOString();

    // Subscribed after the events happened: nothing was queued for it.
    const late = await subscribe(owner, '/replay', ['transaction.created', 'transaction.completed']);
    expect(await deliveryRows(late.id)).toEqual([]);

    const first = await dispatcher.send(WebhookCommands.replay, { owner, subscriptionId: late.id, from, to });
    expect(first).toEqual({ matched: 2, created: 2, requeued: 0, alreadyPending: 0, skipped: 0, resumeFrom: null });
    await waitForRequests('/replay', 2);
    expect(
      receiver
        .received('/replay')
        .map((r) => JSON.parse(r.body).id)
        .sort(),
    ).toEqual(events.map((e) => e.id).sort());
    await expect.poll(async () => (await deliveryRows(late.id)).map((d) => d.status)).toEqual(['succeeded', 'succeeded']);

    expect(await dispatcher.send(WebhookCommands.replay, { owner, subscriptionId: late.id, from, to, onlyFailed: true })).toMatchObject({
      matched: 2,
      created: 0,
      requeued: 0,
      skipped: 2,
    });
    expect(await dispatcher.send(WebhookCommands.replay, { owner, subscriptionId: late.id, from, to })).toMatchObject({
      matched: 2,
      requeued: 2,
    });
    await waitForRequests('/replay', 4);
    const ids = receiver.received('/replay').map((r) => r.headers['x-webhook-delivery']);
    expect(new Set(ids).size).toBe(2);

    // Past the per-call limit the answer says where to resume (the limit made small here).
    const schemaSql = postgres(dispatcher.db.url, { max: 1, connection: { search_path: 'webhooks' }, onnotice: () => {} });
    try {
      const [row] = await dispatcher.sql<
        { occurred_at: Date }[]
      >`select occurred_at from webhooks.received_events where id = ${events[1]!.id}`;
      const partial = await createDeliveriesRepository(schemaSql).replay({
        subscription: { id: late.id, platformId: owner.platformId, workspaceId: null, eventTypes: late.eventTypes },
        from,
        to,
        onlyFailed: true,
        maxEvents: 1,
      });
      expect(partial).toMatchObject({ matched: 1 });
      expect(new Date(partial.resumeFrom!).toISOString()).toBe(row!.occurred_at.toISOString());
    } finally {
      await schemaSql.end();
    }

    await expect(dispatcher.send(WebhookCommands.replay, { owner, subscriptionId: late.id, from: to, to: from })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ field: 'to', reason: 'must be after from' }] },
    });
  });
});

describe('the delivery worker between passes', () => {
  const retryIn = (delayMs: number) =>
    ({ decision: { status: 'pending', retryIndex: 1, delayMs, disableSubscription: false } }) as unknown as AttemptRecord;
  const succeeded = { decision: { status: 'succeeded', disableSubscription: false } } as unknown as AttemptRecord;

  it('sleeps the poll interval when it scheduled no retry (it never spins while idle)', () => {
    expect(idleSleepMs(500, [])).toBe(500);
    expect(idleSleepMs(500, [succeeded])).toBe(500);
  });

  it('wakes for the earliest retry it scheduled, at least 5 ms and at most the poll interval away', () => {
    expect(idleSleepMs(500, [retryIn(2000), retryIn(50), succeeded])).toBe(50);
    expect(idleSleepMs(500, [retryIn(0)])).toBe(5);
    expect(idleSleepMs(500, [retryIn(60_000)])).toBe(500);
  });
});

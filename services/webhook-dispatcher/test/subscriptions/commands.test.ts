import { randomUUID } from 'node:crypto';
import { EVENT_TYPES, newEventId, WEBHOOK_LIMITS, WebhookCommands, type WebhookOwner } from '@holdfast/contracts';
import { prefixed } from '@holdfast/messaging';
import { fileFixture, webhookSubjectOf } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { startTestDispatcher } from '../support/dispatcher.js';

// Every command the Payments API (owner platformId) and the Workspace API (owner workspaceId) will
// forward: happy path, bad input (nothing changes), another owner's subscription (404).

const dispatcher = fileFixture(() => startTestDispatcher({}, { purgeEveryMs: 200 }));

type Command = (typeof WebhookCommands)[keyof typeof WebhookCommands];
/**
 * For requests that break the contract on purpose: sent as raw NATS requests (sendCommand would
 * refuse them before sending), so that the dispatcher's own check is what answers.
 */
async function sendRaw(command: Command, request: unknown) {
  const reply = await dispatcher.nats.bus.nc.request(
    prefixed(dispatcher.nats.bus, webhookSubjectOf(command, request)),
    JSON.stringify(request),
    {
      timeout: 5000,
    },
  );
  const result = reply.json<{ ok: boolean; data?: unknown; error?: { code: string; statusCode: number } }>();
  if (result.ok) return result.data;
  throw result.error;
}

const URL_OK = 'https://hooks.example.com/holdfast';
const platform = (): WebhookOwner => ({ platformId: randomUUID() });
const workspace = (): WebhookOwner => ({ workspaceId: randomUUID() });
const create = (
  owner: WebhookOwner,
  extra: Partial<{ url: string; eventTypes: string[]; ipWhitelist: string[]; metadata: Record<string, unknown> }> = {},
) => dispatcher.send(WebhookCommands.create, { owner, url: URL_OK, eventTypes: ['transaction.created'], ...extra });
const rowCount = async () => (await dispatcher.sql<{ n: number }[]>`select count(*)::int as n from webhooks.subscriptions`)[0]!.n;

describe('create', () => {
  it('creates a platform subscription and shows its secret this once', async () => {
    const owner = platform();
    const created = await create(owner, {
      eventTypes: ['transaction.created', 'transaction.completed', 'transaction.created'],
      ipWhitelist: [' 203.0.113.0/24 ', '2001:db8::1'],
      metadata: { team: 'payments', nested: { a: 1 } },
    });
    expect(created).toMatchObject({
      platformId: 'platformId' in owner ? owner.platformId : '',
      workspaceId: null,
      url: URL_OK,
      eventTypes: ['transaction.created', 'transaction.completed'],
      isActive: true,
      ipWhitelist: ['203.0.113.0/24', '2001:db8::1'],
      metadata: { team: 'payments', nested: { a: 1 } },
      circuitBreaker: { state: 'CLOSED', consecutiveFailures: 0, openedAt: null, halfOpenAt: null },
      secretRotation: { inProgress: false, startedAt: null },
      disabledReason: null,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), 'base64')).toHaveLength(32);
    expect(await dispatcher.send(WebhookCommands.get, { owner, subscriptionId: created.id })).not.toHaveProperty('secret');
  });

  it('creates a workspace subscription', async () => {
    const owner = workspace();
    const created = await create(owner);
    expect(created).toMatchObject({ platformId: null, workspaceId: 'workspaceId' in owner ? owner.workspaceId : '' });
  });

  it('answers 400 INVALID_EVENT_TYPES naming each unknown type, and creates nothing', async () => {
    const before = await rowCount();
    await expect(create(platform(), { eventTypes: ['transaction.created', 'transaction.exploded', '*'] })).rejects.toMatchObject({
      code: 'INVALID_EVENT_TYPES',
      statusCode: 400,
      details: {
        errors: [
          { field: 'eventTypes.1', reason: 'transaction.exploded is not an event type' },
          { field: 'eventTypes.2', reason: '* is not an event type' },
        ],
        invalidEventTypes: ['transaction.exploded', '*'],
        validEventTypes: [...EVENT_TYPES],
      },
    });
    expect(await rowCount()).toBe(before);
  });

  it('refuses a bad URL, whitelist entry or oversized metadata with VALIDATION_ERROR naming each field', async () => {
    const before = await rowCount();
    await expect(
      create(platform(), {
        url: 'ftp://user:pw@example.com/x',
        ipWhitelist: ['10.0.0.0/33', 'not-an-ip', '192.0.2.7'],
        metadata: { blob: 'x'.repeat(WEBHOOK_LIMITS.metadataMaxBytes) },
      }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      statusCode: 400,
      details: {
        errors: [
          { field: 'url', reason: 'must use http or https' },
          { field: 'url', reason: 'must not contain a user name or password' },
          { field: 'ipWhitelist.0', reason: 'prefix must be an integer from 0 to 32' },
          { field: 'ipWhitelist.1', reason: 'must be an IP address or a CIDR range such as 203.0.113.0/24' },
          { field: 'metadata', reason: expect.stringMatching(/^must be at most 8192 bytes as JSON/) },
        ],
      },
    });
    await expect(sendRaw(WebhookCommands.create, { owner: platform(), url: URL_OK, eventTypes: [] })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(sendRaw(WebhookCommands.create, { owner: platform(), eventTypes: ['transaction.created'] })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(
      sendRaw(WebhookCommands.create, {
        owner: { platformId: randomUUID(), workspaceId: randomUUID() },
        url: URL_OK,
        eventTypes: ['transaction.created'],
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await rowCount()).toBe(before);
  });

  it(`allows loopback and private targets in local`, async () => {
    const created = await create(platform(), { url: 'http://127.0.0.1:9/hook' });
    expect(created.url).toBe('http://127.0.0.1:9/hook');
  });

  it(`answers 409 CONFLICT past ${WEBHOOK_LIMITS.subscriptionsPerOwner} subscriptions per owner`, async () => {
    const owner = platform();
    await Promise.all(Array.from({ length: WEBHOOK_LIMITS.subscriptionsPerOwner }, () => create(owner)));
    await expect(create(owner)).rejects.toMatchObject({ code: 'CONFLICT', statusCode: 409 });
    expect(await dispatcher.send(WebhookCommands.list, { owner })).toHaveLength(WEBHOOK_LIMITS.subscriptionsPerOwner);
  });
});

describe('event types', () => {
  it('lists every event type with a description', async () => {
    const types = await dispatcher.send(WebhookCommands.eventTypes, {});
    expect(types.map((t) => t.type)).toEqual([...EVENT_TYPES]);
    expect(types.every((t) => t.description.length > 10)).toBe(true);
  });

  it('refuses unknown parameters', async () => {
    await expect(sendRaw(WebhookCommands.eventTypes, { owner: platform(), extra: 1 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('list', () => {
  it("lists only the owner's subscriptions, newest first, filtered by isActive and eventType", async () => {
    const owner = workspace();
    const a = await create(owner, { eventTypes: ['transaction.created'] });
    const b = await create(owner, { eventTypes: ['dispute.created', 'transaction.created'] });
    const c = await create(owner, { eventTypes: ['dispute.created'] });
    await dispatcher.send(WebhookCommands.update, { owner, subscriptionId: c.id, isActive: false });
    await create(workspace());
    await create({ platformId: 'workspaceId' in owner ? owner.workspaceId : '' });

    expect((await dispatcher.send(WebhookCommands.list, { owner })).map((s) => s.id)).toEqual([c.id, b.id, a.id]);
    expect((await dispatcher.send(WebhookCommands.list, { owner, isActive: true })).map((s) => s.id)).toEqual([b.id, a.id]);
    expect((await dispatcher.send(WebhookCommands.list, { owner, isActive: false })).map((s) => s.id)).toEqual([c.id]);
    expect((await dispatcher.send(WebhookCommands.list, { owner, eventType: 'dispute.created' })).map((s) => s.id)).toEqual([c.id, b.id]);
    expect((await dispatcher.send(WebhookCommands.list, { owner, eventType: 'dispute.created', isActive: true })).map((s) => s.id)).toEqual(
      [b.id],
    );
    expect(await dispatcher.send(WebhookCommands.list, { owner: workspace() })).toEqual([]);
    for (const s of await dispatcher.send(WebhookCommands.list, { owner })) expect(s).not.toHaveProperty('secret');
  });

  it('answers 400 for an unknown eventType filter or a missing owner', async () => {
    await expect(dispatcher.send(WebhookCommands.list, { owner: platform(), eventType: 'nope' })).rejects.toMatchObject({
      code: 'INVALID_EVENT_TYPES',
      details: { errors: [{ field: 'eventType', reason: 'nope is not an event type' }] },
    });
    await expect(sendRaw(WebhookCommands.list, {})).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(sendRaw(WebhookCommands.list, { owner: { platformId: 'not-a-uuid' } })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});

describe('get', () => {
  it("answers the owner's subscription and 404 for another owner's or an unknown id", async () => {
    const owner = platform();
    const created = await create(owner);
    const { secret: _secret, ...shown } = created;
    expect(await dispatcher.send(WebhookCommands.get, { owner, subscriptionId: created.id })).toEqual(shown);
    await expect(dispatcher.send(WebhookCommands.get, { owner: platform(), subscriptionId: created.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      statusCode: 404,
    });
    const asWorkspace = { workspaceId: 'platformId' in owner ? owner.platformId : '' };
    await expect(dispatcher.send(WebhookCommands.get, { owner: asWorkspace, subscriptionId: created.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(dispatcher.send(WebhookCommands.get, { owner, subscriptionId: randomUUID() })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(sendRaw(WebhookCommands.get, { owner, subscriptionId: 'abc' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('update', () => {
  it('changes only the given fields', async () => {
    const owner = workspace();
    const created = await create(owner, { metadata: { a: 1 }, ipWhitelist: ['198.51.100.0/24'] });
    const url = await dispatcher.send(WebhookCommands.update, { owner, subscriptionId: created.id, url: 'https://other.example.com/h' });
    expect(url).toMatchObject({
      url: 'https://other.example.com/h',
      eventTypes: ['transaction.created'],
      metadata: { a: 1 },
      ipWhitelist: ['198.51.100.0/24'],
    });
    const all = await dispatcher.send(WebhookCommands.update, {
      owner,
      subscriptionId: created.id,
      eventTypes: ['evidence.submitted'],
      isActive: false,
      ipWhitelist: [],
      metadata: { b: 2 },
    });
    expect(all).toMatchObject({
      url: 'https://other.example.com/h',
      eventTypes: ['evidence.submitted'],
      isActive: false,
      ipWhitelist: [],
      metadata: { b: 2 },
    });
    expect(Date.parse(all.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    expect(await dispatcher.send(WebhookCommands.update, { owner, subscriptionId: created.id })).toMatchObject({
      eventTypes: ['evidence.submitted'],
    });
  });

  it('refuses bad fields and changes nothing', async () => {
    const owner = platform();
    const created = await create(owner);
    await expect(
      dispatcher.send(WebhookCommands.update, { owner, subscriptionId: created.id, eventTypes: ['bogus'], url: 'https://x.example' }),
    ).rejects.toMatchObject({
      code: 'INVALID_EVENT_TYPES',
    });
    await expect(
      dispatcher.send(WebhookCommands.update, { owner, subscriptionId: created.id, url: 'mailto:someone@example.com' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ field: 'url', reason: 'must use http or https' }] },
    });
    await expect(sendRaw(WebhookCommands.update, { owner, subscriptionId: created.id, secret: 'whsec_mine' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    const { secret: _secret, ...unchanged } = created;
    expect(await dispatcher.send(WebhookCommands.get, { owner, subscriptionId: created.id })).toEqual(unchanged);
  });

  it("answers 404 for another owner's subscription and leaves it as it was", async () => {
    const owner = platform();
    const created = await create(owner);
    await expect(
      dispatcher.send(WebhookCommands.update, { owner: platform(), subscriptionId: created.id, isActive: false }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    // Even with a bad body: the stranger learns nothing about the id.
    await expect(
      dispatcher.send(WebhookCommands.update, { owner: platform(), subscriptionId: created.id, eventTypes: ['bogus'] }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await dispatcher.send(WebhookCommands.get, { owner, subscriptionId: created.id })).isActive).toBe(true);
  });
});

describe('delete', () => {
  it('deletes the subscription with its deliveries and logs; another owner gets 404', async () => {
    const owner = workspace();
    const created = await create(owner);
    await expect(dispatcher.send(WebhookCommands.delete, { owner: workspace(), subscriptionId: created.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await dispatcher.send(WebhookCommands.get, { owner, subscriptionId: created.id })).toMatchObject({ id: created.id });

    const eventId = newEventId();
    await dispatcher.sql`insert into webhooks.received_events (id, type, payload, occurred_at) values (${eventId}, 'transaction.created', '{}'::jsonb, now())`;
    await dispatcher.sql`
      insert into webhooks.deliveries (id, subscription_id, event_id, event_type, status) values (${randomUUID()}, ${created.id}, ${eventId}, 'transaction.created', 'failed')`;
    await dispatcher.sql`
      insert into webhooks.delivery_attempts (id, subscription_id, delivery_id, event_id, event_type, attempt, success, response_time_ms, request_headers)
      values (${randomUUID()}, ${created.id}, ${randomUUID()}, ${eventId}, 'transaction.created', 1, false, 5, '{}'::jsonb)`;

    expect(await dispatcher.send(WebhookCommands.delete, { owner, subscriptionId: created.id })).toEqual({
      id: created.id,
      deleted: true,
      message: 'Webhook subscription deleted',
    });
    await expect(dispatcher.send(WebhookCommands.get, { owner, subscriptionId: created.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(dispatcher.send(WebhookCommands.delete, { owner, subscriptionId: created.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await dispatcher.sql`select 1 from webhooks.deliveries where subscription_id = ${created.id}`).toHaveLength(0);
    expect(await dispatcher.sql`select 1 from webhooks.delivery_attempts where subscription_id = ${created.id}`).toHaveLength(0);
  });
});

describe('delivery logs', () => {
  it('answers {logs, total}; refuses contradictory filters and bad pages; 404 for another owner', async () => {
    const owner = platform();
    const created = await create(owner);
    expect(await dispatcher.send(WebhookCommands.deliveryLogs, { owner, subscriptionId: created.id })).toEqual({ logs: [], total: 0 });
    await expect(
      dispatcher.send(WebhookCommands.deliveryLogs, { owner, subscriptionId: created.id, successOnly: true, failuresOnly: true }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ field: 'failuresOnly', reason: 'cannot be true together with successOnly' }] },
    });
    await expect(sendRaw(WebhookCommands.deliveryLogs, { owner, subscriptionId: created.id, limit: 101 })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(sendRaw(WebhookCommands.deliveryLogs, { owner, subscriptionId: created.id, offset: -1 })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(dispatcher.send(WebhookCommands.deliveryLogs, { owner: platform(), subscriptionId: created.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('secret rotation commands', () => {
  it('rotate answers the new secret; complete answers 400 with none in progress; another owner gets 404', async () => {
    const owner = workspace();
    const created = await create(owner);
    await expect(dispatcher.send(WebhookCommands.completeRotation, { owner, subscriptionId: created.id })).rejects.toMatchObject({
      code: 'NO_ROTATION_IN_PROGRESS',
      statusCode: 400,
    });
    await expect(dispatcher.send(WebhookCommands.rotateSecret, { owner: workspace(), subscriptionId: created.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      dispatcher.send(WebhookCommands.completeRotation, { owner: workspace(), subscriptionId: created.id }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const [sealedBefore] = await dispatcher.sql`select secret_sealed from webhooks.subscriptions where id = ${created.id}`;

    const rotated = await dispatcher.send(WebhookCommands.rotateSecret, { owner, subscriptionId: created.id });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.secretRotation.inProgress).toBe(true);
    expect(Date.parse(rotated.secretRotation.startedAt!)).not.toBeNaN();
    const [sealed] =
      await dispatcher.sql`select secret_sealed, previous_secret_sealed from webhooks.subscriptions where id = ${created.id}`;
    expect(sealed).toMatchObject({ previous_secret_sealed: sealedBefore!.secret_sealed });

    const completed = await dispatcher.send(WebhookCommands.completeRotation, { owner, subscriptionId: created.id });
    expect(completed.secretRotation).toEqual({ inProgress: false, startedAt: null });
    await expect(sendRaw(WebhookCommands.rotateSecret, { owner })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

describe('reset circuit breaker', () => {
  it('forces CLOSED and lifts a pause; another owner gets 404', async () => {
    const owner = platform();
    const created = await create(owner);
    await dispatcher.sql`
      update webhooks.subscriptions set circuit_state = 'OPEN', consecutive_failures = 12, circuit_opened_at = now(),
        circuit_half_open_at = now() + interval '1 minute', paused_until = now() + interval '1 hour' where id = ${created.id}`;
    const open = await dispatcher.send(WebhookCommands.get, { owner, subscriptionId: created.id });
    expect(open.circuitBreaker).toMatchObject({ state: 'OPEN', consecutiveFailures: 12 });
    expect(open.circuitBreaker.openedAt).not.toBeNull();
    expect(open.circuitBreaker.halfOpenAt).not.toBeNull();

    await expect(
      dispatcher.send(WebhookCommands.resetCircuitBreaker, { owner: platform(), subscriptionId: created.id }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const reset = await dispatcher.send(WebhookCommands.resetCircuitBreaker, { owner, subscriptionId: created.id });
    expect(reset.circuitBreaker).toEqual({ state: 'CLOSED', consecutiveFailures: 0, openedAt: null, halfOpenAt: null });
    const [row] = await dispatcher.sql`select paused_until from webhooks.subscriptions where id = ${created.id}`;
    expect(row!.paused_until).toBeNull();
  });
});

describe('test, resend and replay', () => {
  it('answer 404 for another owner or an unknown delivery, and 400 for bad input', async () => {
    const owner = workspace();
    const created = await create(owner);
    const stranger = workspace();
    await expect(dispatcher.send(WebhookCommands.test, { owner: stranger, subscriptionId: created.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      dispatcher.send(WebhookCommands.resendDelivery, { owner: stranger, subscriptionId: created.id, deliveryId: randomUUID() }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      dispatcher.send(WebhookCommands.resendDelivery, { owner, subscriptionId: created.id, deliveryId: randomUUID() }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'Webhook delivery not found',
    });
    const range = { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' };
    await expect(dispatcher.send(WebhookCommands.replay, { owner: stranger, subscriptionId: created.id, ...range })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await dispatcher.send(WebhookCommands.replay, { owner, subscriptionId: created.id, ...range })).toEqual({
      matched: 0,
      created: 0,
      requeued: 0,
      alreadyPending: 0,
      skipped: 0,
      resumeFrom: null,
    });
    await expect(
      sendRaw(WebhookCommands.replay, { owner, subscriptionId: created.id, from: 'yesterday', to: range.to }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(sendRaw(WebhookCommands.resendDelivery, { owner, subscriptionId: created.id })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});

describe('deactivate owner', () => {
  it("deactivates every subscription of the owner and no one else's", async () => {
    const owner = workspace();
    const other = workspace();
    const mine = [await create(owner), await create(owner)];
    const theirs = await create(other);
    expect(await dispatcher.send(WebhookCommands.deactivateOwner, { owner, reason: 'workspace deleted' })).toEqual({ deactivated: 2 });
    for (const s of mine)
      expect(await dispatcher.send(WebhookCommands.get, { owner, subscriptionId: s.id })).toMatchObject({
        isActive: false,
        disabledReason: 'workspace deleted',
      });
    expect((await dispatcher.send(WebhookCommands.get, { owner: other, subscriptionId: theirs.id })).isActive).toBe(true);
    expect(await dispatcher.send(WebhookCommands.deactivateOwner, { owner })).toEqual({ deactivated: 0 });
  });
});

describe('retention', () => {
  it('purges logs, finished deliveries and events older than 30 days on its schedule, and keeps pending deliveries', async () => {
    const owner = platform();
    const created = await create(owner);
    const old = `now() - interval '31 days'`;
    const [oldEvent, pendingEvent, recentEvent] = [newEventId(), newEventId(), newEventId()];
    // One transaction: the purge (every 200 ms here) sees all of it or none of it.
    await dispatcher.sql.begin(async (tx) => {
      await tx`update webhooks.subscriptions set is_active = false where id = ${created.id}`;
      for (const id of [oldEvent, pendingEvent, recentEvent]) {
        await tx`
          insert into webhooks.received_events (id, type, payload, occurred_at, received_at)
          values (${id}, 'transaction.created', '{}'::jsonb, now(), ${id === recentEvent ? tx`now()` : tx.unsafe(old)})`;
      }
      await tx`
        insert into webhooks.deliveries (id, subscription_id, event_id, event_type, status, updated_at) values
          (${randomUUID()}, ${created.id}, ${oldEvent}, 'transaction.created', 'succeeded', ${tx.unsafe(old)}),
          (${randomUUID()}, ${created.id}, ${pendingEvent}, 'transaction.created', 'pending', ${tx.unsafe(old)})`;
      for (const age of [old, 'now()']) {
        await tx`
          insert into webhooks.delivery_attempts (id, subscription_id, delivery_id, event_id, event_type, attempt, success, response_time_ms, request_headers, created_at)
          values (${randomUUID()}, ${created.id}, ${randomUUID()}, ${oldEvent}, 'transaction.created', 1, true, 5, '{}'::jsonb, ${tx.unsafe(age)})`;
      }
    });

    await expect
      .poll(async () => (await dispatcher.sql`select 1 from webhooks.delivery_attempts where subscription_id = ${created.id}`).length, {
        timeout: 10_000,
      })
      .toBe(1);
    await expect
      .poll(async () =>
        (await dispatcher.sql`select status from webhooks.deliveries where subscription_id = ${created.id}`).map((r) => r.status),
      )
      .toEqual(['pending']);
    await expect
      .poll(async () =>
        (await dispatcher.sql`select id from webhooks.received_events where id in ${dispatcher.sql([oldEvent, pendingEvent, recentEvent])}`)
          .map((r) => r.id)
          .sort(),
      )
      .toEqual([pendingEvent, recentEvent].sort());
  });
});

import { randomUUID } from 'node:crypto';
import { type DomainEvent, eventSubject, WebhookCommands, webhookCommandOf } from '@holdfast/contracts';
import { startForTest } from '@holdfast/http-kit';
import { type Bus, publishEvent, sendCommand } from '@holdfast/messaging';
import { type PermissionedTestNats, startPermissionedTestNats } from '@holdfast/messaging/testing';
import { createTestDatabase, fileFixture, sendWebhookCommand, startReceiver, type TestDatabase, testLogger } from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcherService, dispatcherConfigFrom } from '../../src/index.js';
import { transactionEvent } from '../support/events.js';

// Issue 28 item 7: services cannot forge for each other on NATS. workspace-service's user could
// publish any `events.>`: a forged `transaction.completed` was signed by the dispatcher and
// delivered to another platform's webhook. Here the real dispatcher runs as its own NATS user on a
// private nats-server with infra/nats's grants; workspace's user (and the indexer's) try to publish
// that event, and something on EVENTS outside payments' subjects is put there by a full-access
// user: the platform's webhook receives only payments' own event.

const receiver = fileFixture(() => startReceiver(() => ({ status: 200, body: '{"received":true}' })));
let nats: PermissionedTestNats;
let db: TestDatabase;
let sql: postgres.Sql;
let dispatcher: { url: string; stop: () => Promise<void> };
const buses: Partial<Record<'payments-service' | 'workspace-service' | 'chain-indexer', Bus>> = {};

beforeAll(async () => {
  [nats, db] = await Promise.all([startPermissionedTestNats(), createTestDatabase()]);
  sql = postgres(db.url, { max: 2, onnotice: () => {} });
  const config = dispatcherConfigFrom({
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    NATS_SUBJECT_PREFIX: nats.prefix,
    ...nats.credentialsOf('webhook-dispatcher'),
    WEBHOOK_RETRY_SCHEDULE: '100ms',
  });
  dispatcher = await startForTest(await createDispatcherService(config, testLogger('webhook-dispatcher'), { pollIntervalMs: 100 }));
  for (const service of ['payments-service', 'workspace-service', 'chain-indexer'] as const) buses[service] = await nats.connectAs(service);
}, 60_000);

afterAll(async () => {
  await dispatcher?.stop();
  await sql?.end();
  await nats?.stop();
  await db?.drop();
});

const received = (path: string) => receiver.received(path).map((r) => (JSON.parse(r.body) as { id: string; type: string }).id);

describe('domain events on NATS (security)', () => {
  it("delivers payments' transaction.completed only: one forged by workspace's or the indexer's user is refused by NATS, one outside payments' subjects is never read", async () => {
    const owner = { platformId: randomUUID() };
    const path = '/victim';
    // Subscribed through payments' user, as the Payments API v1 does for a platform.
    await sendWebhookCommand(buses['payments-service'] as Bus, WebhookCommands.create, {
      owner,
      url: receiver.url(path),
      eventTypes: ['transaction.completed'],
    });

    const forged = transactionEvent(owner, 'transaction.completed');
    for (const intruder of ['workspace-service', 'chain-indexer'] as const) {
      const bus = buses[intruder] as Bus;
      await expect(publishEvent(bus, forged)).rejects.toThrow();
      // The subject payments used before publishers had their own (events.<type>).
      await expect(
        bus.js.publish(`${nats.prefix}events.transaction.completed`, JSON.stringify(forged), { timeout: 1500 }),
      ).rejects.toThrow();
    }
    // On EVENTS but outside payments' subjects (another publisher's, were one granted its own): not payments' event.
    const elsewhere: DomainEvent = transactionEvent(owner, 'transaction.completed');
    await nats.admin.js.publish(`${nats.prefix}events.workspace.transaction.completed`, JSON.stringify(elsewhere));
    await nats.admin.js.publish(`${nats.prefix}events.transaction.completed`, JSON.stringify(elsewhere));

    const genuine = transactionEvent(owner, 'transaction.completed');
    expect(eventSubject(genuine.type)).toBe('events.payments.transaction.completed');
    await publishEvent(buses['payments-service'] as Bus, genuine);

    await expect.poll(() => received(path), { timeout: 15_000 }).toEqual([genuine.id]);
    const stored = await sql<{ id: string }[]>`select id from webhooks.received_events where platform_id = ${owner.platformId}`;
    expect(stored.map((r) => r.id)).toEqual([genuine.id]);
    // Nothing else arrives later (the dispatcher's intake has passed the genuine event, published last).
    expect(received(path)).toEqual([genuine.id]);
  });
});

describe("webhook commands on NATS (security): a workspace's user never reaches a platform's subscriptions", () => {
  it("refuses, on either subject, workspace-service's user creating or listing a platform's subscriptions; nothing is stored", async () => {
    const victim = { platformId: randomUUID() };
    const workspaceBus = buses['workspace-service'] as Bus;
    const attack = { owner: victim, url: receiver.url('/stolen'), eventTypes: ['transaction.completed' as const] };
    // The platform's subject: NATS refuses the publish (workspace's user has no grant there).
    await expect(
      sendCommand(workspaceBus, webhookCommandOf(WebhookCommands.create, 'platform'), attack, { timeoutMs: 1500 }),
    ).rejects.toThrow();
    await expect(
      sendCommand(workspaceBus, webhookCommandOf(WebhookCommands.list, 'platform'), { owner: victim }, { timeoutMs: 1500 }),
    ).rejects.toThrow();
    // Its own subject naming a platform owner: the dispatcher refuses it.
    await expect(sendCommand(workspaceBus, webhookCommandOf(WebhookCommands.create, 'workspace'), attack)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(sendCommand(workspaceBus, webhookCommandOf(WebhookCommands.list, 'workspace'), { owner: victim })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    // And payments' user cannot name a workspace's subscriptions either.
    await expect(
      sendCommand(buses['payments-service'] as Bus, webhookCommandOf(WebhookCommands.list, 'platform'), {
        owner: { workspaceId: randomUUID() },
      }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const rows = await sql`select 1 from webhooks.subscriptions where platform_id = ${victim.platformId}`;
    expect(rows).toHaveLength(0);
    // Its own workspace's subscriptions still work on its subject.
    const own = await sendWebhookCommand(workspaceBus, WebhookCommands.create, {
      owner: { workspaceId: randomUUID() },
      url: receiver.url('/own'),
      eventTypes: ['transaction.completed'],
    });
    expect(own.id).toEqual(expect.any(String));
  });
});

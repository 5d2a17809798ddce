import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type DomainEvent, WebhookCommands } from '@holdfast/contracts';
import { publishEvent } from '@holdfast/messaging';
import { createTestStores, fileFixture, freePort, sendWebhookCommand, startReceiver } from '@holdfast/test-fixtures';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { transactionEvent } from '../support/events.js';

// The dispatcher as a real process (dist/main.js), killed with SIGKILL while its attempts are in
// flight and more deliveries wait in its queue, then started again: every event still arrives,
// with the X-Webhook-Delivery its first (interrupted) attempt carried.

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

let answering = false;
const children: ChildProcess[] = [];

const stores = fileFixture(() => createTestStores());

async function startProcess(): Promise<ChildProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      APP_ENV: 'local',
      DATABASE_URL: stores.db.url,
      NATS_URL: stores.nats.url,
      NATS_SUBJECT_PREFIX: stores.nats.prefix,
      HOST: '127.0.0.1',
      DISPATCHER_PORT: String(port),
      LOG_LEVEL: process.env.HOLDFAST_TEST_LOGS || 'silent',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  children.push(child);
  await expect
    .poll(
      async () => {
        try {
          return (await request(`http://127.0.0.1:${port}/health/ready`)).statusCode;
        } catch {
          return 0;
        }
      },
      { timeout: 20_000, interval: 100 },
    )
    .toBe(200);
  return child;
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

// Until told otherwise the receiver takes each request and never answers: attempts stay in flight.
const receiver = fileFixture(() =>
  startReceiver((request) => (answering || request.path === '/answered' ? { status: 200 } : { status: 200, hang: true })),
);

// Declared after the fixtures, so it runs before they stop: no process outlives its database.
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) await killHard(child);
});

describe('a dispatcher killed mid-delivery', () => {
  it('delivers every event at least once after a restart, each with its unchanged X-Webhook-Delivery', async () => {
    const first = await startProcess();
    const owner = { platformId: randomUUID() };
    await sendWebhookCommand(stores.nats.bus, WebhookCommands.create, {
      owner,
      url: receiver.url('/crash'),
      eventTypes: ['transaction.created'],
    });

    const events: DomainEvent[] = [];
    for (let i = 0; i < 12; i += 1) events.push(transactionEvent(owner));
    for (const event of events) await publishEvent(stores.nats.bus, event);
    // Ten attempts in flight (the per-subscription limit, ten slots), the other two claimed by the
    // process too, queued behind its slots: the kill takes all twelve leases with it.
    await expect.poll(() => receiver.received('/crash').length, { timeout: 10_000 }).toBeGreaterThanOrEqual(10);
    await expect.poll(async () => (await stores.sql`select 1 from webhooks.deliveries`).length).toBe(12);
    const claims = () => stores.sql<{ slots: number; queued: number }[]>`
      select count(*) filter (where holds_slot)::int as slots, count(*) filter (where not holds_slot)::int as queued
      from webhooks.deliveries where claimed_until > now()`;
    await expect.poll(async () => (await claims())[0], { timeout: 10_000 }).toEqual({ slots: 10, queued: 2 });
    expect(receiver.received('/crash')).toHaveLength(10);
    await killHard(first);
    const beforeRestart = receiver.received('/crash');
    const interrupted = new Map(beforeRestart.map((r) => [JSON.parse(r.body).id as string, r.headers['x-webhook-delivery']]));

    // Published while no dispatcher runs: waiting in JetStream.
    const whileDown: DomainEvent[] = [];
    for (let i = 0; i < 3; i += 1) whileDown.push(transactionEvent(owner));
    for (const event of whileDown) await publishEvent(stores.nats.bus, event);

    answering = true;
    await startProcess();
    const all = [...events, ...whileDown];
    const answered = () => receiver.received('/crash').slice(beforeRestart.length);
    await expect
      .poll(() => new Set(answered().map((r) => JSON.parse(r.body).id)).size, { timeout: 30_000, interval: 200 })
      .toBe(all.length);

    const byEvent = new Map(answered().map((r) => [JSON.parse(r.body).id as string, r.headers['x-webhook-delivery']]));
    for (const event of all) expect(byEvent.has(event.id), event.id).toBe(true);
    for (const [eventId, deliveryId] of interrupted) expect(byEvent.get(eventId), eventId).toBe(deliveryId);
    const rows = await stores.sql<{ event_id: string; id: string; status: string }[]>`select event_id, id, status from webhooks.deliveries`;
    expect(rows).toHaveLength(all.length);
    for (const row of rows) expect(byEvent.get(row.event_id)).toBe(row.id);
    await expect.poll(async () => (await stores.sql`select status from webhooks.deliveries where status <> 'succeeded'`).length).toBe(0);
    // Two process starts and the waits above add up to more than the default 30 s on a loaded machine.
  }, 120_000);

  it('sends again what was answered but not yet stored when the process died (results are stored in batches)', async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) await killHard(child);
    const first = await startProcess();
    const owner = { platformId: randomUUID() };
    await sendWebhookCommand(stores.nats.bus, WebhookCommands.create, {
      owner,
      url: receiver.url('/answered'),
      eventTypes: ['transaction.created'],
    });
    const events = Array.from({ length: 300 }, () => transactionEvent(owner));
    await Promise.all(events.map((event) => publishEvent(stores.nats.bus, event)));
    // Killed while deliveries are answered and stored at full speed: some answered ones are not stored yet.
    await expect.poll(() => receiver.received('/answered').length, { timeout: 20_000, interval: 5 }).toBeGreaterThanOrEqual(60);
    await killHard(first);

    await startProcess();
    const eventIds = () => new Set(receiver.received('/answered').map((r) => JSON.parse(r.body).id as string));
    await expect.poll(() => eventIds().size, { timeout: 60_000, interval: 200 }).toBe(events.length);
    const rows = await stores.sql<{ id: string; event_id: string }[]>`
      select d.id, d.event_id from webhooks.deliveries d join webhooks.subscriptions s on s.id = d.subscription_id
      where s.platform_id = ${owner.platformId}`;
    expect(rows).toHaveLength(events.length);
    // Every request of an event carried its one delivery id, however often it was sent.
    const deliveryOf = new Map(rows.map((r) => [r.event_id, r.id]));
    for (const request of receiver.received('/answered'))
      expect(request.headers['x-webhook-delivery']).toBe(deliveryOf.get(JSON.parse(request.body).id));
    await expect
      .poll(async () => (await stores.sql`select 1 from webhooks.deliveries where status <> 'succeeded'`).length, { timeout: 30_000 })
      .toBe(0);
  }, 120_000);
});

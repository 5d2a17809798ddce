import { randomUUID } from 'node:crypto';
import { WebhookCommands } from '@holdfast/contracts';
import { publishEvent } from '@holdfast/messaging';
import { fileFixture, sendWebhookCommand, startReceiver } from '@holdfast/test-fixtures';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestDispatcher } from '../support/dispatcher.js';
import { transactionEvent } from '../support/events.js';

// WEBHOOK_SUBSCRIPTION_CONCURRENCY counts a subscription's slots in PostgreSQL, whichever instance
// holds them (ADR 36): a second instance takes no slot the first holds and sends nothing the first
// holds queued, and every event still arrives.

const ENV = {
  WEBHOOK_SUBSCRIPTION_CONCURRENCY: '3',
  WEBHOOK_TIMEOUT_MS: '8000',
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms,100ms,100ms,100ms,100ms',
};

let second: { url: string; stop: () => Promise<void> } | undefined;
// Until told otherwise the receiver takes each request and never answers: attempts stay in flight
// until WEBHOOK_TIMEOUT_MS, then are retried.
let answering = false;

const receiver = fileFixture(() => startReceiver(() => (answering ? { status: 200 } : { status: 200, hang: true })));
const dispatcher = fileFixture(() => startTestDispatcher(ENV));

afterAll(async () => {
  await second?.stop();
});

describe("a subscription's slots across two instances", () => {
  it('keep its attempts in flight within WEBHOOK_SUBSCRIPTION_CONCURRENCY, and every event arrives once answered', async () => {
    const owner = { platformId: randomUUID() };
    await sendWebhookCommand(dispatcher.nats.bus, WebhookCommands.create, {
      owner,
      url: receiver.url('/slots'),
      eventTypes: ['transaction.created'],
    });
    // More than the first instance queues (4 × 3 behind its 3 slots): some are left for anyone.
    const events = Array.from({ length: 30 }, () => transactionEvent(owner));
    await Promise.all(events.map((event) => publishEvent(dispatcher.nats.bus, event)));
    await expect.poll(() => receiver.received('/slots').length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    const claims = async () =>
      (
        await dispatcher.sql<{ slots: number; queued: number; free: number }[]>`
          select count(*) filter (where holds_slot and claimed_until > now())::int as slots,
                 count(*) filter (where not holds_slot and claimed_until > now())::int as queued,
                 count(*) filter (where claimed_until is null)::int as free
          from webhooks.deliveries`
      )[0];
    await expect.poll(claims, { timeout: 10_000 }).toEqual({ slots: 3, queued: 12, free: 15 });

    second = await dispatcher.startAnother(ENV);
    // The second instance claims on every pass (100 ms here): give it several.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await claims()).toEqual({ slots: 3, queued: 12, free: 15 });
    expect(receiver.received('/slots')).toHaveLength(3);

    answering = true;
    const eventIds = () => new Set(receiver.received('/slots').map((r) => JSON.parse(r.body).id as string));
    await expect.poll(() => eventIds().size, { timeout: 30_000, interval: 100 }).toBe(events.length);
    await expect
      .poll(async () => (await dispatcher.sql`select 1 from webhooks.deliveries where status = 'succeeded'`).length, { timeout: 10_000 })
      .toBe(events.length);
    const rows = await dispatcher.sql<{ id: string; event_id: string }[]>`select id, event_id from webhooks.deliveries`;
    const deliveryOf = new Map(rows.map((r) => [r.event_id, r.id]));
    for (const request of receiver.received('/slots'))
      expect(request.headers['x-webhook-delivery']).toBe(deliveryOf.get(JSON.parse(request.body).id));
    const [left] = await dispatcher.sql<{ n: number }[]>`
      select count(*)::int as n from webhooks.deliveries where claimed_until is not null or holds_slot`;
    expect(left?.n).toBe(0);
  }, 60_000);
});

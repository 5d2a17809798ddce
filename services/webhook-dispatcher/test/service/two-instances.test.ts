import { randomUUID } from 'node:crypto';
import { WebhookCommands } from '@holdfast/contracts';
import { publishEvent } from '@holdfast/messaging';
import { fileFixture, sendWebhookCommand, startReceiver } from '@holdfast/test-fixtures';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDispatcher } from '../support/dispatcher.js';
import { transactionEvent } from '../support/events.js';

// Two dispatcher instances on one database and one NATS prefix share the intake (one durable
// consumer) and the deliveries (FOR UPDATE SKIP LOCKED claims): each delivery is sent once.

let second: { url: string; stop: () => Promise<void> };

// Few slots per instance and a receiver that takes a moment, so that neither instance can take
// all the work alone.
const ENV = { WEBHOOK_CONCURRENCY: '4', WEBHOOK_TIMEOUT_MS: '10000' };

const receiver = fileFixture(() =>
  startReceiver(async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { status: 200 };
  }),
);
const dispatcher = fileFixture(() => startTestDispatcher(ENV));
beforeAll(async () => {
  second = await dispatcher.startAnother(ENV);
});

afterAll(async () => {
  await second?.stop();
});

async function successfulAttempts(url: string): Promise<number> {
  const text = await (await request(`${url}/metrics`)).body.text();
  const line = text.split('\n').find((l) => l.startsWith('webhook_delivery_attempts_total{') && l.includes('outcome="success"'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('two dispatcher instances', () => {
  it('send every delivery exactly once between them', async () => {
    const owner = { workspaceId: randomUUID() };
    const subscriptions = await Promise.all(
      ['/a', '/b', '/c'].map((path) =>
        sendWebhookCommand(dispatcher.nats.bus, WebhookCommands.create, {
          owner,
          url: receiver.url(path),
          eventTypes: ['transaction.created'],
        }),
      ),
    );
    const events = Array.from({ length: 60 }, () => transactionEvent({ platformId: randomUUID(), workspaceId: owner.workspaceId }));
    await Promise.all(events.map((event) => publishEvent(dispatcher.nats.bus, event)));

    const expected = events.length * subscriptions.length;
    await expect.poll(() => receiver.requests.length, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(expected);
    await expect
      .poll(async () => (await dispatcher.sql`select 1 from webhooks.deliveries where status = 'succeeded'`).length, { timeout: 10_000 })
      .toBe(expected);
    // Nothing more arrives once everything succeeded.
    expect(receiver.requests).toHaveLength(expected);
    const deliveryIds = receiver.requests.map((r) => r.headers['x-webhook-delivery']);
    expect(new Set(deliveryIds).size).toBe(expected);
    for (const path of ['/a', '/b', '/c']) {
      expect(new Set(receiver.received(path).map((r) => JSON.parse(r.body).id)).size).toBe(events.length);
    }
    const [attempts] = await dispatcher.sql<{ n: number }[]>`select count(*)::int as n from webhooks.delivery_attempts`;
    expect(attempts!.n).toBe(expected);

    const [byFirst, bySecond] = await Promise.all([successfulAttempts(dispatcher.url), successfulAttempts(second.url)]);
    expect(byFirst + bySecond).toBe(expected);
    expect(byFirst).toBeGreaterThan(0);
    expect(bySecond).toBeGreaterThan(0);
  });
});

import { randomUUID } from 'node:crypto';
import { WebhookCommands, type WebhookOwner } from '@holdfast/contracts';
import { publishEvent } from '@holdfast/messaging';
import { fileFixture, type Reply, startReceiver } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { startTestDispatcher } from '../support/dispatcher.js';
import { transactionEvent } from '../support/events.js';

// The breaker of one subscription: CLOSED -> OPEN after 3 consecutive failures (deliveries kept),
// HALF_OPEN after the cooldown with exactly one probe, CLOSED when the probe succeeds; and the
// reset command. A healthy subscription next to it is never held up.

let reply: (path: string) => Reply | Promise<Reply> = () => ({ status: 200 });

const receiver = fileFixture(() => startReceiver((request) => reply(request.path)));
const dispatcher = fileFixture(() =>
  startTestDispatcher({
    WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 30 }, () => '50ms').join(','),
    WEBHOOK_TIMEOUT_MS: '10000',
    WEBHOOK_CIRCUIT_THRESHOLD: '3',
    WEBHOOK_CIRCUIT_COOLDOWN: '600ms',
  }),
);

/** A subscription of `owner` to transaction.created, delivered to the receiver's `path`. */
const subscribe = (owner: WebhookOwner, path: string) =>
  dispatcher.send(WebhookCommands.create, { owner, url: receiver.url(path), eventTypes: ['transaction.created'] });

/** The subscription's breaker as the dispatcher answers it (its own get command). */
const breakerOf = async (owner: WebhookOwner, subscriptionId: string) =>
  (await dispatcher.send(WebhookCommands.get, { owner, subscriptionId })).circuitBreaker;

async function statuses(subscriptionId: string) {
  const rows = await dispatcher.sql<{ status: string }[]>`select status from webhooks.deliveries where subscription_id = ${subscriptionId}`;
  return rows.map((r) => r.status).sort();
}

describe('circuit breaker', () => {
  it('opens after the threshold, keeps the deliveries, probes once when half open, and closes on success', async () => {
    const owner = { platformId: randomUUID() };
    const healthyOwner = { platformId: randomUUID() };
    const subscription = await subscribe(owner, '/breaker');
    const healthy = await subscribe(healthyOwner, '/healthy');
    let releaseProbe: ((reply: Reply) => void) | undefined;
    let failing = true;
    reply = (path) => {
      if (path !== '/breaker') return { status: 200 };
      if (failing) return { status: 500 };
      // The first request after recovery is the probe: held until the test lets it answer.
      return new Promise<Reply>((resolve) => {
        releaseProbe ??= resolve;
        if (releaseProbe !== resolve) resolve({ status: 200 });
      });
    };

    for (let i = 0; i < 5; i += 1) await publishEvent(dispatcher.nats.bus, transactionEvent(owner));
    await expect.poll(async () => (await breakerOf(owner, subscription.id)).state).toBe('OPEN');
    const opened = await breakerOf(owner, subscription.id);
    // The circuits panel and the HoldfastWebhookCircuitsOpen alert read this (infra/observability).
    const metrics = await (await fetch(`${dispatcher.url}/metrics`)).text();
    expect(metrics).toMatch(/^webhook_subscriptions_by_circuit\{state="OPEN"[^}]*\} 1$/m);
    expect(opened.consecutiveFailures).toBeGreaterThanOrEqual(3);
    expect(Date.parse(opened.halfOpenAt!)).toBeGreaterThan(Date.parse(opened.openedAt!));
    // Paused, not dropped: every delivery is still waiting.
    await expect.poll(() => statuses(subscription.id)).toEqual(['pending', 'pending', 'pending', 'pending', 'pending']);

    // Another receiver's subscription keeps delivering meanwhile.
    await publishEvent(dispatcher.nats.bus, transactionEvent(healthyOwner));
    await expect.poll(() => statuses(healthy.id)).toEqual(['succeeded']);

    // The receiver recovers; after the cooldown one probe goes out, and nothing else until it answers.
    failing = false;
    const beforeProbe = receiver.received('/breaker').length;
    await expect.poll(() => releaseProbe !== undefined, { timeout: 5000 }).toBe(true);
    expect((await breakerOf(owner, subscription.id)).state).toBe('HALF_OPEN');
    const probe = receiver.received('/breaker')[beforeProbe]!;
    expect(probe.at).toBeGreaterThanOrEqual(Date.parse(opened.halfOpenAt!) - 50);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received('/breaker').length).toBe(beforeProbe + 1);
    expect(await statuses(subscription.id)).toEqual(['pending', 'pending', 'pending', 'pending', 'pending']);

    releaseProbe!({ status: 200 });
    await expect.poll(() => statuses(subscription.id)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(await breakerOf(owner, subscription.id)).toEqual({
      state: 'CLOSED',
      consecutiveFailures: 0,
      openedAt: null,
      halfOpenAt: null,
    });
    const succeeded = receiver.received('/breaker').filter((_, i) => i >= beforeProbe);
    expect(new Set(succeeded.map((r) => JSON.parse(r.body).id)).size).toBe(5);
  });

  it('re-opens when the probe fails', async () => {
    const owner = { workspaceId: randomUUID() };
    const subscription = await subscribe(owner, '/still-down');
    reply = () => ({ status: 502 });
    for (let i = 0; i < 3; i += 1)
      await publishEvent(dispatcher.nats.bus, transactionEvent({ platformId: randomUUID(), workspaceId: owner.workspaceId }));
    await expect.poll(async () => (await breakerOf(owner, subscription.id)).state).toBe('OPEN');
    const first = await breakerOf(owner, subscription.id);
    const requestsAtOpen = receiver.received('/still-down').length;
    // The failed probe opens it again with a later half-open time and one more failure.
    await expect.poll(async () => (await breakerOf(owner, subscription.id)).openedAt, { timeout: 5000 }).not.toBe(first.openedAt);
    const again = await breakerOf(owner, subscription.id);
    expect(again.state).toBe('OPEN');
    expect(again.consecutiveFailures).toBeGreaterThan(first.consecutiveFailures);
    expect(Date.parse(again.openedAt!)).toBeGreaterThanOrEqual(Date.parse(first.halfOpenAt!));
    expect(receiver.received('/still-down').length).toBeGreaterThan(requestsAtOpen);
    expect(await statuses(subscription.id)).toEqual(['pending', 'pending', 'pending']);
  });

  it('reset-circuit-breaker forces CLOSED at once and deliveries resume', async () => {
    const owner = { platformId: randomUUID() };
    const subscription = await subscribe(owner, '/reset');
    reply = () => ({ status: 500 });
    for (let i = 0; i < 3; i += 1) await publishEvent(dispatcher.nats.bus, transactionEvent(owner));
    await expect.poll(async () => (await breakerOf(owner, subscription.id)).state).toBe('OPEN');
    // Park the circuit far in the future so that only the reset can close it.
    await dispatcher.sql`update webhooks.subscriptions set circuit_half_open_at = now() + interval '1 hour' where id = ${subscription.id}`;
    reply = () => ({ status: 200 });
    const reset = await dispatcher.send(WebhookCommands.resetCircuitBreaker, { owner, subscriptionId: subscription.id });
    expect(reset.circuitBreaker).toEqual({ state: 'CLOSED', consecutiveFailures: 0, openedAt: null, halfOpenAt: null });
    await expect.poll(() => statuses(subscription.id)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });
});

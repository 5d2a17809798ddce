import { createHmac } from 'node:crypto';
import { fileFixture, type Receiver, startReceiver, until } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECEIVER, SENDER, startChainPaymentsEnv } from '../support/chain.js';
import { checkoutClient } from '../support/checkout.js';
import { startDispatcherFor } from '../support/dispatcher.js';
import { bearer, call, key, newPlatform, type Running } from '../support/harness.js';

// checkout.session.completed and checkout.session.expired end to end: payments writes them to its
// outbox, the real webhook-dispatcher delivers them to the platform's subscription, and the
// receiver gets them signed with the subscription's secret (docs/webhooks.md).

const e = fileFixture(() => startChainPaymentsEnv({ CHECKOUT_EXPIRY_INTERVAL: '100ms' }));
let p: { platformId: string; apiKey: string; token: string };
let api: ReturnType<typeof checkoutClient>;
let receiver: Receiver;
let dispatcher: Running;
let secret: string;

const hex = (body: string) => createHmac('sha256', secret).update(body).digest('hex');

beforeAll(async () => {
  [p, receiver, dispatcher] = await Promise.all([
    newPlatform(e, {
      name: 'checkout webhooks',
      scopes: ['read:transactions', 'write:transactions', 'read:webhooks', 'write:webhooks'],
      clientScopes: ['read:transactions', 'write:transactions', 'move:transactions'],
    }),
    startReceiver(),
    startDispatcherFor(e.db, e.nats, { WEBHOOK_RETRY_SCHEDULE: '1s' }),
  ]);
  api = checkoutClient(e.svc.url);
  const hook = await call(e.svc.url, 'POST', '/api/v1/webhooks', {
    headers: key(p.apiKey),
    body: { url: receiver.url('/hooks'), eventTypes: ['checkout.session.completed', 'checkout.session.expired'] },
  });
  expect(hook.status, JSON.stringify(hook.body)).toBe(201);
  secret = hook.body.secret;
}, 60_000);

afterAll(async () => {
  await dispatcher?.stop();
  await receiver?.close();
});

const body = () => ({
  amount: '25.5',
  toAddress: RECEIVER,
  successUrl: 'https://shop.example/thanks',
  cancelUrl: 'https://shop.example/cart',
});

/** The one signed delivery of `type` for session `id`. */
async function deliveryOf(type: string, id: string) {
  const delivery = await until(`the ${type} webhook`, () =>
    receiver.received('/hooks').find((r) => {
      const event = JSON.parse(r.body);
      return event.type === type && event.data.session.id === id;
    }),
  );
  expect(delivery.headers['x-webhook-signature']).toBe(hex(delivery.body));
  expect(delivery.headers['x-webhook-event']).toBe(type);
  expect(delivery.headers['webhook-id']).toBeTruthy();
  return JSON.parse(delivery.body);
}

describe('checkout webhooks through the real dispatcher', () => {
  it('checkout.session.completed: the escrow locked on chain, the receiver gets the signed event', async () => {
    const s = (await api.create(p.token, { ...body(), metadata: { order: 'W-1' } })).body;
    const paid = await api.payer(s.id, SENDER);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const { transactionId } = paid.body.session;
    const receipt = await e.world.createEscrow(transactionId, BigInt(paid.body.escrow.amountBaseUnits), {
      holdDeadline: BigInt(paid.body.escrow.holdDeadline),
    });
    const hashed = await call(e.svc.url, 'POST', `/api/v2/transactions/${transactionId}/escrow-hash`, {
      headers: bearer(p.token),
      body: { transactionHash: receipt.transactionHash },
    });
    expect(hashed.status, JSON.stringify(hashed.body)).toBe(200);
    const event = await deliveryOf('checkout.session.completed', s.id);
    expect(event).toMatchObject({
      type: 'checkout.session.completed',
      data: { session: { id: s.id, status: 'complete', transactionId, amount: '25.5', fromAddress: SENDER, metadata: { order: 'W-1' } } },
    });
    expect((await api.get(p.token, s.id)).body.status).toBe('complete');
  });

  it('checkout.session.expired: by POST …/expire and by the worker past expiresAt, each delivered once, signed', async () => {
    const now = (await api.create(p.token, body())).body;
    const expired = await api.expire(p.token, now.id);
    expect(expired.status).toBe(200);
    expect((await deliveryOf('checkout.session.expired', now.id)).data.session).toMatchObject({ id: now.id, status: 'expired' });

    const later = (await api.create(p.token, body())).body;
    await e.sql`update checkout_sessions set expires_at = now() - interval '1 second' where id = ${later.id}`;
    const event = await deliveryOf('checkout.session.expired', later.id);
    expect(event.data.session).toMatchObject({ id: later.id, status: 'expired', transactionId: null });
    expect((await api.get(p.token, later.id)).body.status).toBe('expired');
    // Each session's expiry reached the receiver once, and the dispatcher recorded both deliveries succeeded.
    for (const id of [now.id, later.id])
      expect(receiver.received('/hooks').filter((r) => JSON.parse(r.body).data.session.id === id)).toHaveLength(1);
    // The dispatcher stores attempt results in batches, a moment after the receiver answered.
    const statuses = async () =>
      (
        await e.sql<{ status: string }[]>`select d.status from webhooks.deliveries d
          join webhooks.received_events r on r.id = d.event_id
          where d.event_type = 'checkout.session.expired' and r.payload->'data'->'session'->>'id' in (${now.id}, ${later.id})`
      ).map((r) => r.status);
    await expect.poll(statuses).toEqual(['succeeded', 'succeeded']);
  });
});

import { randomUUID } from 'node:crypto';
import { WebhookCommands } from '@holdfast/contracts';
import { startForTest } from '@holdfast/http-kit';
import { createTestStores, fileFixture, sendWebhookCommand, testLogger, until } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentsService, paymentsConfigFrom } from '../../src/index.js';
import { startDispatcherFor } from '../support/dispatcher.js';
import { bearer, call, createClient, GENEROUS_LIMITS, key, newBootstrapKey, type Running, tokenFor } from '../support/harness.js';

// A deactivated platform's webhook subscriptions stop too (ADR 15): the deactivation's transaction
// queues `cmd.webhooks.owners.deactivate` for the platform, and payments' remote-task runner sends
// it to a real webhook-dispatcher (same database server and NATS prefix) until it answers.

const admin = newBootstrapKey();

const stores = fileFixture(() => createTestStores({ searchPath: 'payments' }));
let payments: Running | undefined;
let dispatcher: Running | undefined;

/** payments with fast retries of its remote tasks, so the tests see them land. */
async function startPaymentsService(): Promise<Running> {
  const config = paymentsConfigFrom({
    DATABASE_URL: stores.db.url,
    NATS_URL: stores.nats.url,
    NATS_SUBJECT_PREFIX: stores.nats.prefix,
    CHAIN_RPC_URLS: 'base-sepolia=http://127.0.0.1:9',
    LOG_LEVEL: 'silent',
    PAYMENTS_BOOTSTRAP_API_KEY: admin,
    ...GENEROUS_LIMITS,
  });
  return startForTest(
    await createPaymentsService(config, testLogger('payments-service'), {
      remoteTasks: { pollIntervalMs: 100, retryBaseMs: 100, retryMaxMs: 400 },
    }),
  );
}

const startDispatcher = () => startDispatcherFor(stores.db, stores.nats, { WEBHOOK_RETRY_SCHEDULE: '1s' });

const url = () => payments!.url;

/** A platform holding webhook scopes, with two subscriptions in the dispatcher. */
async function platformWithWebhooks() {
  const created = await call(url(), 'POST', '/api/v1/auth/api-key', {
    headers: key(admin),
    body: { name: `platform ${randomUUID().slice(0, 8)}`, scopes: ['read:platform', 'read:webhooks', 'write:webhooks'] },
  });
  expect(created.status).toBe(201);
  const platform = created.body as { apiKey: string; platformId: string };
  for (const path of ['/one', '/two']) {
    const res = await call(url(), 'POST', '/api/v1/webhooks', {
      headers: key(platform.apiKey),
      body: { url: `http://127.0.0.1:9${path}`, eventTypes: ['transaction.created'] },
    });
    expect(res.status).toBe(201);
  }
  return platform;
}

/** The platform's subscriptions as the dispatcher holds them (its own list command). */
const subscriptionsOf = (platformId: string) => sendWebhookCommand(stores.nats.bus, WebhookCommands.list, { owner: { platformId } });

const allInactive = async (platformId: string) => {
  const subs = await subscriptionsOf(platformId);
  return subs.length > 0 && subs.every((s) => !s.isActive) ? subs : undefined;
};

const tasksOf = (platformId: string) =>
  stores.sql<{ id: string; kind: string; status: string; attempts: number; payload: unknown; last_error: string | null }[]>`
    select id, kind, status, attempts, payload, last_error from remote_tasks where platform_id = ${platformId} order by created_at, id`;

beforeAll(async () => {
  [payments, dispatcher] = await Promise.all([startPaymentsService(), startDispatcher()]);
});

afterAll(async () => {
  await dispatcher?.stop();
  await payments?.stop();
});

describe('deactivating a platform deactivates its webhook subscriptions', () => {
  it('DELETE (v1): the dispatcher deactivates them; another platform keeps its own', async () => {
    const p = await platformWithWebhooks();
    const other = await platformWithWebhooks();
    const res = await call(url(), 'DELETE', `/api/v1/auth/platform/${p.platformId}`, { headers: key(admin) });
    expect(res.status).toBe(204);

    const subs = await until('the subscriptions to be deactivated', () => allInactive(p.platformId));
    expect(subs).toHaveLength(2);
    expect(subs.every((s) => s.disabledReason === 'its payments platform was deactivated')).toBe(true);
    await until('the task to be done', async () => ((await tasksOf(p.platformId))[0]?.status === 'done' ? true : undefined));
    const tasks = await tasksOf(p.platformId);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      kind: 'webhooks.deactivate-owner',
      payload: { owner: { platformId: p.platformId }, reason: 'its payments platform was deactivated' },
    });
    expect((await subscriptionsOf(other.platformId)).map((s) => s.isActive)).toEqual([true, true]);
    expect(await tasksOf(other.platformId)).toEqual([]);

    // Deactivating again changes nothing and queues nothing.
    expect((await call(url(), 'DELETE', `/api/v1/auth/platform/${p.platformId}`, { headers: key(admin) })).status).toBe(204);
    expect(await tasksOf(p.platformId)).toHaveLength(1);
  });

  it('PUT isActive:false (v2) does the same; PUT isActive:true brings the key back, not the subscriptions', async () => {
    const p = await platformWithWebhooks();
    const operator = await createClient(url(), admin, { name: 'operator', scopes: ['admin:platform'] });
    const token = await tokenFor(url(), operator);
    const res = await call(url(), 'PUT', `/api/v2/auth/platform/${p.platformId}`, { headers: bearer(token), body: { isActive: false } });
    expect(res.status).toBe(200);
    expect(res.body.isActive).toBe(false);
    await until('the subscriptions to be deactivated', () => allInactive(p.platformId));

    const back = await call(url(), 'PUT', `/api/v1/auth/platform/${p.platformId}`, { headers: key(admin), body: { isActive: true } });
    expect(back.status).toBe(200);
    expect(back.body.isActive).toBe(true);
    expect(await tasksOf(p.platformId)).toHaveLength(1);
    expect((await subscriptionsOf(p.platformId)).map((s) => s.isActive)).toEqual([false, false]);
    // The owner re-enables them with its key (PATCH /api/v1/webhooks/{id} isActive:true).
    const [first] = await subscriptionsOf(p.platformId);
    const again = await call(url(), 'PATCH', `/api/v1/webhooks/${first!.id}`, { headers: key(p.apiKey), body: { isActive: true } });
    expect(again.status).toBe(200);
    expect(again.body.isActive).toBe(true);
  });

  it('queues nothing when the change is refused or is not a deactivation', async () => {
    const p = await platformWithWebhooks();
    const writer = await call(url(), 'POST', '/api/v1/auth/api-key', {
      headers: key(admin),
      body: { name: 'writer', scopes: ['write:platform', 'read:platform'] },
    });
    const own = { headers: key(writer.body.apiKey) };
    expect(
      (await call(url(), 'PUT', `/api/v1/auth/platform/${writer.body.platformId}`, { ...own, body: { isActive: false } })).status,
    ).toBe(403);
    expect((await call(url(), 'PUT', `/api/v1/auth/platform/${p.platformId}`, { ...own, body: { isActive: false } })).status).toBe(404);
    expect((await call(url(), 'DELETE', `/api/v1/auth/platform/${p.platformId}`, own)).status).toBe(403);
    expect(
      (await call(url(), 'PUT', `/api/v1/auth/platform/${p.platformId}`, { headers: key(admin), body: { isActive: 'no' } })).status,
    ).toBe(400);
    expect(
      (await call(url(), 'PUT', `/api/v1/auth/platform/${p.platformId}`, { headers: key(admin), body: { name: 'renamed' } })).status,
    ).toBe(200);
    expect(await tasksOf(p.platformId)).toEqual([]);
    expect(await tasksOf(writer.body.platformId)).toEqual([]);
    expect((await subscriptionsOf(p.platformId)).map((s) => s.isActive)).toEqual([true, true]);
  });

  it('with the dispatcher down: the deactivation answers at once, the instruction is retried, survives a restart and lands once the dispatcher is up', async () => {
    const p = await platformWithWebhooks();
    await dispatcher!.stop();
    dispatcher = undefined;
    try {
      const res = await call(url(), 'DELETE', `/api/v1/auth/platform/${p.platformId}`, { headers: key(admin) });
      expect(res.status).toBe(204);
      // The platform is deactivated; the instruction is still owed (no one has answered it).
      const shown = await call(url(), 'GET', `/api/v1/auth/platform/${p.platformId}`, { headers: key(admin) });
      expect(shown.body.isActive).toBe(false);
      const [pending] = await tasksOf(p.platformId);
      expect(pending?.status).toBe('pending');

      const retried = await until('the instruction to be retried', async () => {
        const [t] = await tasksOf(p.platformId);
        return t && t.attempts >= 2 ? t : undefined;
      });
      expect(retried.status).toBe('pending');
      expect(retried.last_error).toMatch(/UPSTREAM_UNAVAILABLE/);

      // payments restarts while the instruction is owed: a new instance picks it up from the table.
      await payments!.stop();
      payments = undefined;
      dispatcher = await startDispatcher();
      expect((await subscriptionsOf(p.platformId)).map((s) => s.isActive)).toEqual([true, true]);
      payments = await startPaymentsService();

      await until('the subscriptions to be deactivated', () => allInactive(p.platformId));
      await until('the task to be done', async () => ((await tasksOf(p.platformId))[0]?.status === 'done' ? true : undefined));
      expect(await tasksOf(p.platformId)).toHaveLength(1);
    } finally {
      dispatcher ??= await startDispatcher();
      payments ??= await startPaymentsService();
    }
  });
});

import { approveWorkspace, fileFixture, operatorOf } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AuthError,
  NotFoundError,
  PaymentsClient,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  WorkspaceClient,
} from '../src/index.js';
import { startReceiver } from './receiver.js';
import { address, startStack } from './stack.js';

// verifyWebhook against real deliveries of the webhook-dispatcher (a workspace subscription to a
// local receiver), with a rotated secret, a tampered body and a stale timestamp; and the
// WorkspaceClient's methods, all against the services running as processes.

const stack = fileFixture(() => startStack());
const receiver = fileFixture(() => startReceiver());
let workspace: WorkspaceClient;
let payments: PaymentsClient;
let webhookId: string;
let secret: string;

const createTx = () => payments.transactions.create({ fromAddress: address(), toAddress: address(), amount: 5, orchestrationType: 'raw' });
const deliveryOf = (transactionId: string) => receiver.waitFor((r) => r.rawBody.includes(transactionId));

beforeAll(async () => {
  workspace = new WorkspaceClient({ baseUrl: stack.workspaceUrl, email: stack.tenant.email, password: stack.tenant.password });
  payments = new PaymentsClient({
    baseUrl: stack.paymentsUrl,
    clientId: stack.tenant.sandbox.clientId,
    clientSecret: stack.tenant.sandbox.clientSecret,
  });
  const subscription = await workspace.webhooks.create(stack.tenant.workspaceId, {
    url: receiver.url,
    eventTypes: ['transaction.created'],
  });
  webhookId = subscription.id;
  secret = subscription.secret;
});

describe('verifyWebhook on real deliveries', () => {
  it('returns the typed event of a genuine delivery, by the Standard Webhooks headers and by X-Webhook-Signature alone', async () => {
    const created = await createTx();
    const delivery = await deliveryOf(created.id);
    const event = verifyWebhook(delivery.rawBody, delivery.headers, secret);
    expect(event.type).toBe('transaction.created');
    if (event.type === 'transaction.created') expect(event.data.transaction).toMatchObject({ id: created.id, status: 'pending' });
    const { 'webhook-id': _id, 'webhook-timestamp': _ts, 'webhook-signature': _sig, ...hexOnly } = delivery.headers;
    expect(verifyWebhook(Buffer.from(delivery.rawBody), hexOnly, secret).id).toBe(event.id);
    expect(verifyWebhook(delivery.rawBody, new Headers(delivery.headers as Record<string, string>), secret).id).toBe(event.id);
  });

  it('refuses a tampered body, a wrong secret, a stale timestamp and missing headers', async () => {
    const created = await createTx();
    const delivery = await deliveryOf(created.id);
    const tampered = delivery.rawBody.replace('"amount":"5"', '"amount":"5000"');
    expect(tampered).not.toBe(delivery.rawBody);
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookVerificationError);
        return (error as WebhookVerificationError).code;
      }
      throw new Error('accepted');
    };
    expect(refusal(() => verifyWebhook(tampered, delivery.headers, secret))).toBe('WEBHOOK_SIGNATURE_INVALID');
    const { 'webhook-id': _i, 'webhook-timestamp': _t, 'webhook-signature': _s, ...hexOnly } = delivery.headers;
    expect(refusal(() => verifyWebhook(tampered, hexOnly, secret))).toBe('WEBHOOK_SIGNATURE_INVALID');
    expect(refusal(() => verifyWebhook(delivery.rawBody, delivery.headers, 'whsec_d3Jvbmcgc2VjcmV0IHdyb25nIHNlY3JldCB3cm9uZyE='))).toBe(
      'WEBHOOK_SIGNATURE_INVALID',
    );
    // A framework's parsed body instead of the raw one: told to pass the raw body, not "signature invalid".
    const parsed = JSON.parse(delivery.rawBody) as unknown as string;
    expect(refusal(() => verifyWebhook(parsed, delivery.headers, secret))).toBe('WEBHOOK_RAW_BODY_REQUIRED');
    expect(() => verifyWebhook(parsed, delivery.headers, secret)).toThrow(/raw request body/);
    // Replayed six minutes later: the signature is genuine, the timestamp too old.
    expect(refusal(() => verifyWebhook(delivery.rawBody, delivery.headers, secret, { now: Date.now() + 360_000 }))).toBe(
      'WEBHOOK_TIMESTAMP_STALE',
    );
    expect(verifyWebhook(delivery.rawBody, delivery.headers, secret, { now: Date.now() + 360_000, toleranceSeconds: 600 }).type).toBe(
      'transaction.created',
    );
    expect(refusal(() => verifyWebhook(delivery.rawBody, { 'content-type': 'application/json' }, secret))).toBe('WEBHOOK_HEADERS_MISSING');
  });

  it('accepts either secret during a rotation and only the new one after it completes', async () => {
    const rotated = await workspace.webhooks.rotateSecret(stack.tenant.workspaceId, webhookId);
    const newSecret = rotated.secret;
    expect(newSecret).not.toBe(secret);
    const during = await deliveryOf((await createTx()).id);
    expect(String(during.headers['x-webhook-signature']).split(',')).toHaveLength(2);
    expect(verifyWebhook(during.rawBody, during.headers, newSecret).type).toBe('transaction.created');
    expect(verifyWebhook(during.rawBody, during.headers, secret).type).toBe('transaction.created');
    expect(verifyWebhook(during.rawBody, during.headers, [secret, newSecret]).type).toBe('transaction.created');

    await workspace.webhooks.completeRotation(stack.tenant.workspaceId, webhookId);
    const after = await deliveryOf((await createTx()).id);
    expect(verifyWebhook(after.rawBody, after.headers, [newSecret, secret]).type).toBe('transaction.created');
    expect(() => verifyWebhook(after.rawBody, after.headers, secret)).toThrow(WebhookVerificationError);
    secret = newSecret;
  });

  it('signWebhook signs exactly as the dispatcher does', async () => {
    const delivery = await deliveryOf((await createTx()).id);
    const again = signWebhook(delivery.rawBody, secret, {
      eventType: 'transaction.created',
      deliveryId: String(delivery.headers['webhook-id']),
      timestampSeconds: Number(delivery.headers['webhook-timestamp']),
    });
    expect(again.headers['webhook-signature']).toBe(delivery.headers['webhook-signature']);
    expect(again.headers['x-webhook-signature']).toBe(delivery.headers['x-webhook-signature']);
  });
});

describe('WorkspaceClient', () => {
  it('signs in with e-mail and password, reads the user, the workspace and lists workspaces', async () => {
    expect((await workspace.me()).email).toBe(stack.tenant.email);
    const mine = await workspace.workspaces.mine();
    expect(mine.id).toBe(stack.tenant.workspaceId);
    expect((await workspace.workspaces.get(mine.id)).name).toBe(mine.name);
    expect((await workspace.workspaces.list().toArray()).map((w) => w.id)).toEqual([mine.id]);
  });

  it('manages webhooks: event types, list, read, update, test delivery, delivery logs, delete', async () => {
    const ws = stack.tenant.workspaceId;
    expect((await workspace.webhooks.eventTypes(ws)).map((t) => t.type)).toContain('transaction.created');
    const second = await workspace.webhooks.create(ws, { url: receiver.url, eventTypes: ['dispute.created'] });
    expect((await workspace.webhooks.list(ws)).map((w) => w.id)).toEqual(expect.arrayContaining([webhookId, second.id]));
    expect((await workspace.webhooks.update(ws, second.id, { eventTypes: ['dispute.created', 'dispute.resolved'] })).eventTypes).toEqual([
      'dispute.created',
      'dispute.resolved',
    ]);
    const test = await workspace.webhooks.test(ws, second.id);
    expect(test).toMatchObject({ success: true, statusCode: 204 });
    const testDelivery = await receiver.waitFor((r) => r.headers['x-webhook-event'] === 'webhook.test');
    expect(testDelivery.headers['webhook-signature']).toMatch(/^v1,/);
    expect((await workspace.webhooks.deliveryLogs(ws, second.id).firstPage()).pagination.total).toBeGreaterThanOrEqual(1);
    expect((await workspace.webhooks.get(ws, second.id)).id).toBe(second.id);
    await workspace.webhooks.delete(ws, second.id);
    await expect(workspace.webhooks.get(ws, second.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('works with an access token it is given, creates a workspace and sandbox credentials for a new admin, and logs out', async () => {
    const email = `second${Date.now()}@example.com`;
    const password = 'Second-Admin-Password-9!';
    const signup = await fetch(`${stack.workspaceUrl}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, firstName: 'Grace', lastName: 'Hopper', companyName: 'Second' }),
    }).then((r) => r.json() as Promise<{ data: { verificationCode: string } }>);
    await fetch(`${stack.workspaceUrl}/auth/verify-code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, code: signup.data.verificationCode }),
    });
    const admin = new WorkspaceClient({ baseUrl: stack.workspaceUrl, email, password });
    const created = await admin.workspaces.create({ name: 'Second Workspace', email });
    // Credentials go to an approved workspace only (403 until a Holdfast operator activates it).
    await expect(admin.sandboxCredentials.create(created.id)).rejects.toMatchObject({ statusCode: 403 });
    await approveWorkspace(stack.workspaceUrl, operatorOf(stack.processes), created.id);
    const sandbox = await admin.sandboxCredentials.create(created.id);
    expect(sandbox.oauthClient.clientSecret).toMatch(/^hf_secret_/);
    const pay = new PaymentsClient({
      baseUrl: stack.paymentsUrl,
      clientId: sandbox.oauthClient.clientId,
      clientSecret: sandbox.oauthClient.clientSecret,
    });
    expect((await pay.platforms.me()).id).toBe(sandbox.platformId);

    const login = await fetch(`${stack.workspaceUrl}/identity/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    }).then((r) => r.json() as Promise<{ data: { accessToken: string } }>);
    const byToken = new WorkspaceClient({ baseUrl: stack.workspaceUrl, accessToken: login.data.accessToken });
    expect((await byToken.workspaces.mine()).id).toBe(created.id);
    await admin.logout();
    const stranger = new WorkspaceClient({ baseUrl: stack.workspaceUrl, accessToken: 'not-a-token' });
    await expect(stranger.me()).rejects.toBeInstanceOf(AuthError);
  });
});

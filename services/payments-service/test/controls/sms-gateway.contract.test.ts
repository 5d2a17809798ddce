import { capturingLogger, fileFixture } from '@holdfast/test-fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { paymentsConfigFrom } from '../../src/config.js';
import { createHttpSmsGateway, type SmsMessage, smsGatewayFor } from '../../src/modules/controls/sms.js';
import { startSmsGateway } from '../support/sms-gateway.js';

// The HTTP SMS gateway adapter against a local stand-in of the gateway's API (docs/controls.md,
// "SMS gateway adapters"): what it sends, and how each kind of failure comes back.

const gateway = fileFixture(() => startSmsGateway());
afterEach(() => {
  gateway.mode = 'ok';
});

/** What the adapter logged, in the service's own format. */
const capture = () => capturingLogger('sms-test');

const adapter = (overrides: { apiKey?: string; timeoutMs?: number; url?: string; logger?: ReturnType<typeof capture>['logger'] } = {}) =>
  createHttpSmsGateway({
    provider: 'sms-gateway',
    url: overrides.url ?? gateway.url,
    apiKey: overrides.apiKey ?? gateway.apiKey,
    timeoutMs: overrides.timeoutMs ?? 5000,
    logger: overrides.logger,
  });

const message: SmsMessage = {
  to: '+14155550123',
  text: 'Your Holdfast verification code is 042917. It expires in 10 minutes.',
  code: '042917',
  transactionId: '01a20056-cf27-7446-b9a6-b6f8c4732b82',
  purpose: 'two_factor',
};

describe('HTTP SMS gateway', () => {
  it('posts {to, body, reference} with the bearer key as JSON and answers the message id', async () => {
    const { lines, logger } = capture();
    const sent = await adapter({ logger }).send(message);
    expect(sent.messageId).toMatch(/^msg_[0-9a-f]{24}$/);
    const request = gateway.requests.at(-1);
    expect(request).toMatchObject({
      method: 'POST',
      path: '/messages',
      json: { to: message.to, body: message.text, reference: message.transactionId },
    });
    expect(Object.keys(request?.json as object).sort()).toEqual(['body', 'reference', 'to']);
    expect(request?.headers.authorization).toBe(`Bearer ${gateway.apiKey}`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(gateway.messages.at(-1)).toEqual({ id: sent.messageId, to: message.to, body: message.text, reference: message.transactionId });
    // The log keeps the masked number and the message id, never the code or the whole number.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', provider: 'sms-gateway', to: '+1******0123', messageId: sent.messageId });
    expect(JSON.stringify(lines)).not.toContain('042917');
    expect(JSON.stringify(lines)).not.toContain('+14155550123');
  });

  it('names its provider and answers a distinct message id per message', async () => {
    const sms = adapter();
    expect(sms.provider).toBe('sms-gateway');
    const first = await sms.send(message);
    const second = await sms.send({ ...message, purpose: 'vendor_sms' });
    expect(second.messageId).not.toBe(first.messageId);
  });

  it('reports a refused key as a permanent failure (502), logging neither the code nor the number', async () => {
    const { lines, logger } = capture();
    const error = await adapter({ apiKey: 'wrong-key-0000000000', logger })
      .send(message)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'INTEGRATION_PROVIDER_ERROR',
      statusCode: 502,
      retryable: false,
      details: { provider: 'sms-gateway', retryable: false, reason: 'status 401' },
    });
    expect(lines[0]).toMatchObject({ level: 'warn', to: '+1******0123', retryable: false });
    expect(JSON.stringify(lines)).not.toContain('042917');
    expect(JSON.stringify(lines)).not.toContain('+14155550123');
    expect(JSON.stringify((error as { toObject: () => unknown }).toObject())).not.toContain('042917');
  });

  it.each([400, 403, 422])('reports %i as a permanent failure (502)', async (status) => {
    gateway.mode = status;
    await expect(adapter().send(message)).rejects.toMatchObject({
      statusCode: 502,
      details: { retryable: false, reason: `status ${status}` },
    });
  });

  it('reports a message the gateway answered as rejected as a permanent failure', async () => {
    gateway.mode = 'rejected';
    await expect(adapter().send(message)).rejects.toMatchObject({
      statusCode: 502,
      details: { retryable: false, reason: 'message rejected' },
    });
  });

  it.each([500, 502, 503, 429])('reports %i as retryable (502)', async (status) => {
    gateway.mode = status;
    await expect(adapter().send(message)).rejects.toMatchObject({
      code: 'INTEGRATION_PROVIDER_ERROR',
      statusCode: 502,
      details: { retryable: true, reason: `status ${status}` },
    });
  });

  it.each(['malformed', 'not-json'] as const)('reports a %s answer as retryable', async (mode) => {
    gateway.mode = mode;
    await expect(adapter().send(message)).rejects.toMatchObject({
      statusCode: 502,
      details: { retryable: true, reason: 'malformed answer' },
    });
  });

  it('gives up after its timeout, and on an unreachable gateway', async () => {
    gateway.mode = 'hang';
    await expect(adapter({ timeoutMs: 200 }).send(message)).rejects.toMatchObject({
      statusCode: 502,
      details: { retryable: true, reason: 'no answer within 200 ms' },
    });
    await expect(adapter({ url: 'http://127.0.0.1:9' }).send(message)).rejects.toMatchObject({
      statusCode: 502,
      details: { retryable: true, reason: 'unreachable' },
    });
  });
});

describe('which gateway is wired', () => {
  const deps = { provider: 'sms-gateway', localProvider: 'local-log', setting: 'SMS_GATEWAY_URL', logger: capture().logger };

  it('the HTTP gateway when a URL and key are set, in every environment', async () => {
    const sms = smsGatewayFor({ url: gateway.url, apiKey: gateway.apiKey, timeoutMs: 5000 }, { ...deps, appEnv: 'production' });
    expect(sms.provider).toBe('sms-gateway');
    const before = gateway.messages.length;
    await sms.send(message);
    expect(gateway.messages).toHaveLength(before + 1);
  });

  it('unset: the log gateway in local', async () => {
    const sms = smsGatewayFor({ timeoutMs: 5000 }, { ...deps, appEnv: 'local' });
    expect(sms.provider).toBe('local-log');
    expect((await sms.send(message)).messageId).toMatch(/^local-/);
  });

  it.each(['staging', 'production'] as const)('unset: in %s every send is refused (503), nothing logged as sent', async (appEnv) => {
    const sms = smsGatewayFor({ timeoutMs: 5000 }, { ...deps, appEnv });
    await expect(sms.send(message)).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      statusCode: 503,
      details: { provider: 'sms-gateway', configured: false },
    });
  });
});

describe('SMS configuration', () => {
  const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x', NATS_URL: 'nats://127.0.0.1:4222' };

  it('reads both gateways apart, without a trailing slash, with the shared timeout', () => {
    const config = paymentsConfigFrom({
      ...base,
      SMS_GATEWAY_URL: 'https://sms.example.com/api/',
      SMS_GATEWAY_API_KEY: 'k'.repeat(20),
      SMS_VENDOR_URL: 'https://vendor.example.com',
      SMS_VENDOR_API_KEY: 'v'.repeat(20),
      SMS_TIMEOUT: '3s',
    });
    expect(config.sms).toEqual({
      gateway: { url: 'https://sms.example.com/api', apiKey: 'k'.repeat(20), timeoutMs: 3000 },
      vendor: { url: 'https://vendor.example.com', apiKey: 'v'.repeat(20), timeoutMs: 3000 },
    });
    expect(paymentsConfigFrom(base).sms.gateway).toEqual({ url: undefined, apiKey: undefined, timeoutMs: 10_000 });
  });

  it.each([
    [{ SMS_GATEWAY_URL: 'https://sms.example.com' }, /SMS_GATEWAY_API_KEY: is required with SMS_GATEWAY_URL/],
    [{ SMS_VENDOR_API_KEY: 'v'.repeat(20) }, /SMS_VENDOR_URL: is required with SMS_VENDOR_API_KEY/],
    [{ SMS_GATEWAY_URL: 'https://user:pw@sms.example.com', SMS_GATEWAY_API_KEY: 'k'.repeat(20) }, /must not contain a user name/],
    [{ SMS_GATEWAY_URL: 'ftp://sms.example.com', SMS_GATEWAY_API_KEY: 'k'.repeat(20) }, /SMS_GATEWAY_URL/],
    [{ SMS_GATEWAY_URL: 'https://sms.example.com', SMS_GATEWAY_API_KEY: 'short' }, /SMS_GATEWAY_API_KEY/],
  ])('refuses %o', (env, problem) => {
    expect(() => paymentsConfigFrom({ ...base, ...env })).toThrow(problem);
  });

  it('wants https in production', () => {
    expect(() =>
      paymentsConfigFrom({
        ...base,
        APP_ENV: 'production',
        SMS_VENDOR_URL: 'http://vendor.example.com',
        SMS_VENDOR_API_KEY: 'v'.repeat(20),
      }),
    ).toThrow(/SMS_VENDOR_URL: must use https in production/);
  });
});

import { type StandIn, type StandInAnswer, startStandIn } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_TEST_MESSAGE, chatNotifier, kycProvider } from '../../src/modules/integrations/adapters.js';
import { capturedLogger } from '../support/logs.js';

// The contract of each integration provider adapter, against a local stand-in of the provider:
// what is sent, and how every kind of answer is read.
let provider: StandIn;
let next: StandInAnswer = { status: 200, body: {} };
const { logger, lines } = capturedLogger();
const deps = { timeoutMs: 500, logger };

beforeAll(async () => {
  provider = await startStandIn(() => next);
});
afterAll(async () => provider?.stop());

const kyc = () => kycProvider(`${provider.url}/kyc/`, deps);
const chat = () => chatNotifier(`${provider.url}/chat`, deps);
const KYC_CONFIG = { apiKey: 'kyc_contract_key_123', environment: 'sandbox', levelName: 'basic-kyc' };
const CHAT_CONFIG = { webhookToken: 'T1/B2/contracttoken99' };

describe('kyc-provider adapter', () => {
  it('sends GET /v1/account with the key as a bearer token and passes a matching account', async () => {
    next = { status: 200, body: { environment: 'sandbox', levels: ['basic-kyc'] } };
    expect(await kyc().check(KYC_CONFIG)).toEqual({ outcome: 'passed' });
    const request = provider.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'GET', path: '/kyc/v1/account', body: '' });
    expect(request.headers).toMatchObject({ authorization: 'Bearer kyc_contract_key_123', accept: 'application/json' });
  });

  it('reads 401 and 403 as a refused key, and a mismatch as refused fields', async () => {
    for (const status of [401, 403]) {
      next = { status, body: { message: `echo ${KYC_CONFIG.apiKey}` } };
      expect(await kyc().check(KYC_CONFIG)).toEqual({
        outcome: 'refused',
        errors: [{ field: 'config.apiKey', reason: `was refused by the provider (HTTP ${status})` }],
      });
    }
    next = { status: 200, body: { environment: 'live', levels: [] } };
    const mismatch = await kyc().check(KYC_CONFIG);
    expect(mismatch).toMatchObject({ outcome: 'refused' });
    expect(mismatch.outcome === 'refused' && mismatch.errors.map((e) => e.field)).toEqual(['config.environment', 'config.levelName']);
  });

  it('reads errors, redirects, malformed, oversized and late answers as unreachable', async () => {
    const cases: [StandInAnswer, string][] = [
      [{ status: 500, body: {} }, 'the provider answered HTTP 500'],
      [{ status: 302, body: '' }, 'the provider answered HTTP 302'],
      [{ status: 200, body: 'not json' }, 'the provider answered something malformed'],
      [{ status: 200, body: { environment: 'sandbox' } }, 'the provider answered something malformed'],
      [{ status: 200, body: 'x'.repeat(300 * 1024) }, 'the provider answered with more than 256 KiB'],
      [{ status: 200, hang: true }, 'the provider did not answer within 500 ms'],
    ];
    for (const [answer, reason] of cases) {
      next = answer;
      expect(await kyc().check(KYC_CONFIG)).toEqual({ outcome: 'unreachable', reason });
    }
    const closed = kycProvider('http://127.0.0.1:9', deps);
    expect(await closed.check(KYC_CONFIG)).toEqual({ outcome: 'unreachable', reason: 'the provider could not be reached' });
  });
});

describe('chat-notifier adapter', () => {
  it('posts the test message to /services/{webhookToken} and passes a 2xx', async () => {
    next = { status: 200, body: 'ok' };
    expect(await chat().check({ ...CHAT_CONFIG, channel: '#ops', username: 'Holdfast' })).toEqual({ outcome: 'passed' });
    const request = provider.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', path: '/chat/services/T1/B2/contracttoken99' });
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.json).toEqual({ text: CHAT_TEST_MESSAGE, channel: '#ops', username: 'Holdfast' });
    next = { status: 204 };
    expect(await chat().check(CHAT_CONFIG)).toEqual({ outcome: 'passed' });
    expect(provider.requests.at(-1)!.json).toEqual({ text: CHAT_TEST_MESSAGE });
  });

  it('reads an unknown token, a refused channel and provider errors', async () => {
    for (const status of [401, 403, 404, 410]) {
      next = { status, body: 'no_service' };
      expect(await chat().check(CHAT_CONFIG)).toEqual({
        outcome: 'refused',
        errors: [{ field: 'config.webhookToken', reason: `was refused by the chat provider (HTTP ${status})` }],
      });
    }
    next = { status: 400, body: 'channel_not_found' };
    expect(await chat().check({ ...CHAT_CONFIG, channel: '#nope' })).toMatchObject({
      outcome: 'refused',
      errors: [{ field: 'config.channel' }],
    });
    expect(await chat().check(CHAT_CONFIG)).toMatchObject({ outcome: 'refused', errors: [{ field: 'config' }] });
    next = { status: 503, body: 'down' };
    expect(await chat().check(CHAT_CONFIG)).toEqual({ outcome: 'unreachable', reason: 'the provider answered HTTP 503' });
  });

  it('never logs the token, the key or the provider’s text', () => {
    const logs = lines.join('\n');
    expect(logs).toContain('integration provider check gave no usable answer');
    for (const secret of ['contracttoken99', KYC_CONFIG.apiKey, 'no_service', 'channel_not_found']) expect(logs).not.toContain(secret);
  });
});

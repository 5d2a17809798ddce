import { testLogger } from '@holdfast/test-fixtures';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpMailer, createLogMailer, MailerError } from '../../src/modules/mailer/adapter.js';
import { type MailVendor, startMailVendor } from '../support/mail-vendor.js';

// The HTTP mailer adapter against a local stand-in of the vendor's API.
let vendor: MailVendor;
beforeAll(async () => {
  vendor = await startMailVendor();
});
afterAll(async () => vendor?.close());
afterEach(() => vendor.respondWith(200));

const message = { to: 'ada@example.test', subject: 'Your code', text: 'Your code is 123456.', tag: 'verification_code' };

function mailer(overrides: { apiKey?: string; timeoutMs?: number } = {}) {
  return createHttpMailer({
    url: vendor.url,
    apiKey: overrides.apiKey ?? vendor.apiKey,
    from: 'Holdfast <no-reply@holdfast.test>',
    timeoutMs: overrides.timeoutMs,
    logger: testLogger('mailer'),
  });
}

describe('HTTP mailer', () => {
  it('posts the message with the key, an idempotency key and JSON, and returns the vendor id', async () => {
    const sent = await mailer().send(message);
    expect(sent.id).toMatch(/^[0-9a-f-]{36}$/);
    const [mail] = vendor.received.slice(-1);
    expect(mail?.body).toEqual({
      from: 'Holdfast <no-reply@holdfast.test>',
      to: ['ada@example.test'],
      subject: 'Your code',
      text: 'Your code is 123456.',
      tags: [{ name: 'category', value: 'verification_code' }],
    });
    expect(mail?.headers['content-type']).toBe('application/json');
    expect(mail?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports a refused key as a permanent failure', async () => {
    const error = await mailer({ apiKey: 'wrong-key-000000' })
      .send(message)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailerError);
    expect(error).toMatchObject({ retryable: false, status: 401 });
  });

  it.each([500, 502, 429])('reports %i as retryable', async (status) => {
    vendor.respondWith(status);
    const error = await mailer()
      .send(message)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ retryable: true, status });
  });

  it('reports an answer without a message id as retryable', async () => {
    vendor.respondWith('no-id');
    await expect(mailer().send(message)).rejects.toMatchObject({ retryable: true });
  });

  it('gives up after its timeout, and on an unreachable vendor', async () => {
    vendor.respondWith('hang');
    await expect(mailer({ timeoutMs: 200 }).send(message)).rejects.toMatchObject({ retryable: true });
    const unreachable = createHttpMailer({
      url: 'http://127.0.0.1:9/emails',
      apiKey: 'k'.repeat(16),
      from: 'x <x@y.z>',
      logger: testLogger('mailer'),
    });
    await expect(unreachable.send(message)).rejects.toMatchObject({ retryable: true });
  });
});

describe('log mailer', () => {
  it('sends nothing and answers an id', async () => {
    const sent = await createLogMailer({ from: 'x <x@y.z>', logger: testLogger('mailer') }).send(message);
    expect(sent.id).toMatch(/^log_/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, PASSWORD, startHarness, uniqueEmail } from '../support/harness.js';
import { type MailVendor, startMailVendor } from '../support/mail-vendor.js';

// APP_ENV=production: verification codes only by e-mail (through the vendor stand-in), and the
// unversioned /api/* routes past their sunset answer 410.
let h: Harness;
let vendor: MailVendor;

beforeAll(async () => {
  vendor = await startMailVendor();
  h = await startHarness({
    APP_ENV: 'production',
    INTERNAL_API_KEY: 'internal-key-0123456789',
    DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    MAILER_TRANSPORT: 'http',
    MAILER_HTTP_URL: vendor.url,
    MAILER_API_KEY: vendor.apiKey,
    MAILER_FROM: 'Holdfast <no-reply@holdfast.test>',
    SIWE_DOMAIN: 'pay.holdfast.test',
    // Production refuses to connect without a NATS user (the shared test NATS has no authorization).
    NATS_USER: 'workspace-service',
    NATS_PASSWORD: 'nats-test-password',
  });
});
afterAll(async () => {
  await h?.stop();
  await vendor?.close();
});

function codeOf(text: string): string {
  return /\b(\d{6})\b/.exec(text)?.[1] ?? '';
}

describe('sign-up in production', () => {
  it('e-mails the code and never returns it', async () => {
    const email = uniqueEmail('prod');
    const res = await h.call('POST', '/auth/signup', { body: { email, password: PASSWORD, firstName: 'Ada', lastName: 'L' } });
    expect(res.status).toBe(201);
    expect(res.body.data).not.toHaveProperty('verificationCode');
    const mail = vendor.received.find((m) => m.body.to[0] === email);
    expect(mail?.body.subject).toBe('Your Holdfast verification code');
    const code = codeOf(mail?.body.text ?? '');
    expect(code).toMatch(/^\d{6}$/);
    expect((await h.call('POST', '/auth/verify-code', { body: { email, code } })).status).toBe(200);
    expect((await h.call('POST', '/identity/login', { body: { email, password: PASSWORD } })).status).toBe(200);
  });

  it('creates nothing when the mail cannot be sent, so the sign-up can simply be repeated', async () => {
    const email = uniqueEmail('outage');
    vendor.respondWith(503);
    const failed = await h.call('POST', '/auth/signup', { body: { email, password: PASSWORD, firstName: 'Ada', lastName: 'L' } });
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(failed.headers['retry-after']).toBe('5');
    expect(await h.sql`select 1 from workspace.users where email = ${email}`).toHaveLength(0);
    vendor.respondWith(200);
    const retried = await h.call('POST', '/auth/signup', { body: { email, password: PASSWORD, firstName: 'Ada', lastName: 'L' } });
    expect(retried.status).toBe(201);
  });

  it('resend-code answers without the code', async () => {
    const email = uniqueEmail('prod-resend');
    const res = await h.call('POST', '/auth/resend-code', { body: { email } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(['message']);
  });
});

describe('the unversioned routes after their sunset', () => {
  it('answer 410 API_VERSION_SUNSET with the deprecation headers; /api/v1 keeps working', async () => {
    const old = await h.call('GET', '/api/workspaces');
    expect(old.status).toBe(410);
    expect(old.body.error).toMatchObject({ code: 'API_VERSION_SUNSET', details: { successor: '/api/v1' } });
    expect(old.headers).toMatchObject({
      deprecation: 'true',
      sunset: 'Mon, 01 Jun 2026 00:00:00 GMT',
      link: '</api/v1>; rel="successor-version"',
    });
    expect((await h.call('POST', '/api/auth/login', { body: { email: 'a@b.test', password: 'x' } })).status).toBe(410);
    const current = await h.call('GET', '/api/v1/workspaces');
    expect(current.status).toBe(401);
    expect(current.headers.deprecation).toBeUndefined();
  });
});

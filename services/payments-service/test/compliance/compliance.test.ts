import { createHmac, randomUUID } from 'node:crypto';
import { PAYMENTS_V2_OPERATIONS } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import { request } from 'undici';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, bearer, call, key, type Loose, newPlatform, startPaymentsEnv, tokenFor } from '../support/harness.js';
import { startIdentityProvider } from '../support/identity-provider.js';

// Compliance verifications: the four operations on v1 (the spec's doubled prefix, exactly) and v2,
// against a stand-in of the identity provider, with the provider's signed callback moving statuses.

const SECRET = 'test-identity-provider-secret-0123456789abcdef';
const BASE = { v1: '/api/v1/api/v1/compliance', v2: '/api/v2/compliance' } as const;
type Version = keyof typeof BASE;

/** Per version: platform A (read and write), platform B (the same), A with one scope only, and a wrong credential kind. */
let creds: Record<
  Version,
  { a: Record<string, string>; b: Record<string, string>; readOnly: Record<string, string>; writeOnly: Record<string, string> }
>;
let platformA: string;
let apiKeyA: string;

const provider = fileFixture(() => startIdentityProvider());
const e = fileFixture(() =>
  startPaymentsEnv({
    IDENTITY_PROVIDER_URL: provider.url,
    IDENTITY_PROVIDER_API_KEY: provider.apiKey,
    IDENTITY_PROVIDER_WEBHOOK_SECRET: SECRET,
  }),
);
beforeAll(async () => {
  const both = ['read:compliance', 'write:compliance'];
  const [a, b, readOnly, writeOnly] = await Promise.all([
    newPlatform(e, { name: 'compliance a', scopes: both, clientScopes: both }),
    newPlatform(e, { name: 'compliance b', scopes: both, clientScopes: both }),
    newPlatform(e, { scopes: ['read:compliance'] }),
    newPlatform(e, { scopes: ['write:compliance'] }),
  ]);
  platformA = a.platformId;
  apiKeyA = a.apiKey;
  const [tokenRead, tokenWrite] = await Promise.all([
    tokenFor(e.svc.url, a.client, 'read:compliance'),
    tokenFor(e.svc.url, a.client, 'write:compliance'),
  ]);
  creds = {
    v1: { a: key(a.apiKey), b: key(b.apiKey), readOnly: key(readOnly.apiKey), writeOnly: key(writeOnly.apiKey) },
    v2: { a: bearer(a.token), b: bearer(b.token), readOnly: bearer(tokenRead), writeOnly: bearer(tokenWrite) },
  };
});

afterEach(() => {
  provider.mode = 'ok';
});

const count = async (table: 'verifications' | 'identity_provider_events') =>
  Number((await e.sql`select count(*)::int as n from ${e.sql(table)}`)[0]?.n);
const rowOf = async (id: string) => (await e.sql`select * from verifications where id = ${id}`)[0];

async function create(v: Version, body: Record<string, unknown> = {}) {
  const res = await call(e.svc.url, 'POST', `${BASE[v]}/verifications`, {
    headers: creds[v].a,
    body: { userId: `user-${randomUUID()}`, type: 'identity', ...body },
  });
  expect(res.status).toBe(201);
  return res.body as Loose;
}

// The provider's signature, computed here independently of the service's code, as documented.
const sign = (raw: string, secret = SECRET, t = Math.floor(Date.now() / 1000)) =>
  `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex')}`;

async function callback(v: Version, raw: string, signature?: string): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== undefined) headers['x-identity-provider-signature'] = signature;
  const res = await request(`${e.svc.url}${BASE[v]}/webhooks/identity-provider`, { method: 'POST', headers, body: raw });
  const text = await res.body.text();
  const flat: Record<string, string> = {};
  for (const [k, value] of Object.entries(res.headers)) flat[k] = Array.isArray(value) ? value.join(', ') : String(value);
  return { status: res.statusCode, headers: flat, body: text ? JSON.parse(text) : undefined };
}

const report = (inquiryId: string, status: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ eventId: `evt_${randomUUID()}`, inquiryId, status, occurredAt: new Date().toISOString(), ...extra });

describe.each(['v1', 'v2'] as const)('%s', (v) => {
  describe(`POST ${BASE[v]}/verifications`, () => {
    it('opens an inquiry at the provider and stores the pending verification of the calling platform', async () => {
      const requestsBefore = provider.requests.length;
      const res = await call(e.svc.url, 'POST', `${BASE[v]}/verifications`, {
        headers: creds[v].a,
        body: { userId: 'user-42', type: 'document', metadata: { source: 'onboarding', attempt: 1 } },
      });
      expect(res.status).toBe(201);
      expect(res.headers['x-api-version']).toBe(v);
      expect(res.body).toMatchObject({
        platformId: platformA,
        userId: 'user-42',
        type: 'document',
        status: 'pending',
        level: null,
        riskRating: null,
        provider: 'identity-provider',
        metadata: { source: 'onboarding', attempt: 1 },
        rejectionReason: null,
        verifiedAt: null,
        expiresAt: null,
      });
      expect(res.body.externalInquiryId).toMatch(/^inq_/);
      expect(res.body.externalSessionToken).toMatch(/^ses_/);
      // The provider was asked once, with our id as reference.
      expect(provider.requests.length).toBe(requestsBefore + 1);
      expect(provider.requests.at(-1)?.json).toEqual({ referenceId: res.body.id, type: 'document' });
      expect(provider.inquiries.get(res.body.externalInquiryId)).toBe(res.body.id);
      const row = await rowOf(res.body.id);
      expect(row).toMatchObject({
        platform_id: platformA,
        user_id: 'user-42',
        type: 'document',
        status: 'pending',
        external_inquiry_id: res.body.externalInquiryId,
        metadata: { source: 'onboarding', attempt: 1 },
      });
      if (v === 'v1') {
        expect(res.headers.deprecation).toBe('true');
        expect(res.headers.link).toBe('</api/v2/compliance/verifications>; rel="successor-version"');
      }
    });

    it.each([
      ['no type', { userId: 'u1' }, 'type'],
      ['an unknown type', { userId: 'u1', type: 'passport' }, 'type'],
      ['an empty userId', { userId: '', type: 'email' }, 'userId'],
      ['a numeric userId', { userId: 42, type: 'email' }, 'userId'],
      ['an unknown field', { userId: 'u1', type: 'email', status: 'approved' }, 'status'],
      ['metadata that is not an object', { userId: 'u1', type: 'email', metadata: 'x' }, 'metadata'],
    ])('refuses %s (400) and changes nothing', async (_what, body, field) => {
      const [before, asked] = [await count('verifications'), provider.requests.length];
      const res = await call(e.svc.url, 'POST', `${BASE[v]}/verifications`, { headers: creds[v].a, body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
      expect(res.body.error.details.errors.map((e: Loose) => e.field)).toContain(field);
      expect(await count('verifications')).toBe(before);
      expect(provider.requests.length).toBe(asked);
    });

    it('refuses a missing credential (401) and a credential without write:compliance (403), storing nothing', async () => {
      const before = await count('verifications');
      const body = { userId: 'u-sec', type: 'identity' };
      const none = await call(e.svc.url, 'POST', `${BASE[v]}/verifications`, { body });
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('UNAUTHORIZED');
      const weak = await call(e.svc.url, 'POST', `${BASE[v]}/verifications`, { headers: creds[v].readOnly, body });
      expect(weak.status).toBe(403);
      expect(weak.body.error.code).toBe('INSUFFICIENT_SCOPE');
      expect(await count('verifications')).toBe(before);
    });

    it('answers 502 when the provider is down or refuses, saying whether to retry, and stores nothing', async () => {
      const before = await count('verifications');
      provider.mode = 503;
      const down = await call(e.svc.url, 'POST', `${BASE[v]}/verifications`, { headers: creds[v].a, body: { userId: 'u', type: 'email' } });
      expect(down.status).toBe(502);
      expect(down.body.error).toMatchObject({ code: 'INTEGRATION_PROVIDER_ERROR', details: { retryable: true } });
      provider.mode = 403;
      const refused = await call(e.svc.url, 'POST', `${BASE[v]}/verifications`, {
        headers: creds[v].a,
        body: { userId: 'u', type: 'email' },
      });
      expect(refused.status).toBe(502);
      expect(refused.body.error).toMatchObject({ code: 'INTEGRATION_PROVIDER_ERROR', details: { retryable: false } });
      expect(await count('verifications')).toBe(before);
    });
  });

  describe(`POST ${BASE[v]}/verifications/check`, () => {
    it("answers the platform's latest verification of the user and type, changing nothing", async () => {
      const userId = `user-${randomUUID()}`;
      await create(v, { userId, type: 'address' });
      const latest = await create(v, { userId, type: 'address' });
      await create(v, { userId, type: 'phone' });
      const before = await count('verifications');
      const res = await call(e.svc.url, 'POST', `${BASE[v]}/verifications/check`, {
        headers: creds[v].a,
        body: { userId, type: 'address' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(latest);
      expect(await count('verifications')).toBe(before);
    });

    it("answers 404 when the user has none of that type, and for another platform's user", async () => {
      const mine = await create(v, { type: 'email' });
      const other = await call(e.svc.url, 'POST', `${BASE[v]}/verifications/check`, {
        headers: creds[v].b,
        body: { userId: mine.userId, type: 'email' },
      });
      expect(other.status).toBe(404);
      expect(other.body.error.code).toBe('NOT_FOUND');
      const otherType = await call(e.svc.url, 'POST', `${BASE[v]}/verifications/check`, {
        headers: creds[v].a,
        body: { userId: mine.userId, type: 'phone' },
      });
      expect(otherType.status).toBe(404);
    });

    it('refuses bad input (400)', async () => {
      for (const body of [{ userId: 'u' }, { type: 'email' }, { userId: 'u', type: 'email', extra: 1 }, { userId: 'u', type: 'fax' }]) {
        const res = await call(e.svc.url, 'POST', `${BASE[v]}/verifications/check`, { headers: creds[v].a, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
      }
    });

    it('refuses a missing credential (401) and a credential without write:compliance (403)', async () => {
      const mine = await create(v);
      const body = { userId: mine.userId, type: mine.type };
      expect((await call(e.svc.url, 'POST', `${BASE[v]}/verifications/check`, { body })).status).toBe(401);
      const weak = await call(e.svc.url, 'POST', `${BASE[v]}/verifications/check`, { headers: creds[v].readOnly, body });
      expect(weak.status).toBe(403);
      expect(weak.body.error.code).toBe('INSUFFICIENT_SCOPE');
    });
  });

  describe(`GET ${BASE[v]}/verifications/{id}`, () => {
    it("answers the platform's verification", async () => {
      const made = await create(v, { type: 'phone' });
      const res = await call(e.svc.url, 'GET', `${BASE[v]}/verifications/${made.id}`, { headers: creds[v].a });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(made);
    });

    it("answers 404 for another platform's verification and for an unknown id, 400 for a malformed id", async () => {
      const made = await create(v);
      const other = await call(e.svc.url, 'GET', `${BASE[v]}/verifications/${made.id}`, { headers: creds[v].b });
      expect(other.status).toBe(404);
      expect(other.body.error.code).toBe('NOT_FOUND');
      expect((await call(e.svc.url, 'GET', `${BASE[v]}/verifications/${randomUUID()}`, { headers: creds[v].a })).status).toBe(404);
      const bad = await call(e.svc.url, 'GET', `${BASE[v]}/verifications/not-a-uuid`, { headers: creds[v].a });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('refuses a missing credential (401) and a credential without read:compliance (403)', async () => {
      const made = await create(v);
      expect((await call(e.svc.url, 'GET', `${BASE[v]}/verifications/${made.id}`)).status).toBe(401);
      const weak = await call(e.svc.url, 'GET', `${BASE[v]}/verifications/${made.id}`, { headers: creds[v].writeOnly });
      expect(weak.status).toBe(403);
      expect(weak.body.error.code).toBe('INSUFFICIENT_SCOPE');
    });
  });

  describe(`POST ${BASE[v]}/webhooks/identity-provider`, () => {
    it('takes a signed report without any credential and moves the verification (persisted)', async () => {
      const made = await create(v);
      const raw = report(made.externalInquiryId, 'approved', {
        level: 'basic',
        riskRating: 'low',
        verifiedAt: '2026-03-01T10:00:00.000Z',
        expiresAt: '2027-03-01T10:00:00.000Z',
        vendorField: 'ignored',
      });
      const res = await callback(v, raw, sign(raw));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        received: true,
        eventId: JSON.parse(raw).eventId,
        outcome: 'applied',
        verificationId: made.id,
        status: 'approved',
      });
      const row = await rowOf(made.id);
      expect(row).toMatchObject({ status: 'approved', level: 'basic', risk_rating: 'low', rejection_reason: null });
      expect(new Date(row?.verified_at).toISOString()).toBe('2026-03-01T10:00:00.000Z');
      expect(new Date(row?.expires_at).toISOString()).toBe('2027-03-01T10:00:00.000Z');
      const events = await e.sql`select * from identity_provider_events where event_id = ${JSON.parse(raw).eventId}`;
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ verification_id: made.id, outcome: 'applied' });
      const read = await call(e.svc.url, 'GET', `${BASE[v]}/verifications/${made.id}`, { headers: creds[v].a });
      expect(read.body).toMatchObject({ status: 'approved', level: 'basic', riskRating: 'low', verifiedAt: '2026-03-01T10:00:00.000Z' });
    });

    it('answers a replayed event again as duplicate and changes nothing', async () => {
      const made = await create(v);
      const raw = report(made.externalInquiryId, 'needs_review', { riskRating: 'medium' });
      expect((await callback(v, raw, sign(raw))).body.outcome).toBe('applied');
      const [row, events] = [await rowOf(made.id), await count('identity_provider_events')];
      const again = await callback(v, raw, sign(raw));
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ outcome: 'duplicate', status: 'needs_review', verificationId: made.id });
      expect(await rowOf(made.id)).toEqual(row);
      expect(await count('identity_provider_events')).toBe(events);
    });

    it('moves along the status rules: a move they refuse is recorded as ignored and changes nothing', async () => {
      const made = await create(v);
      const steps: [string, Record<string, unknown>, string, string][] = [
        ['needs_review', {}, 'applied', 'needs_review'],
        ['pending', {}, 'ignored', 'needs_review'],
        ['rejected', { rejectionReason: 'Document unreadable' }, 'applied', 'rejected'],
        ['approved', {}, 'ignored', 'rejected'],
        ['rejected', {}, 'unchanged', 'rejected'],
      ];
      for (const [status, extra, outcome, after] of steps) {
        const raw = report(made.externalInquiryId, status, extra);
        const res = await callback(v, raw, sign(raw));
        expect(res.status).toBe(200);
        expect(res.body, status).toMatchObject({ outcome, status: after });
        expect((await rowOf(made.id))?.status).toBe(after);
      }
      expect((await rowOf(made.id))?.rejection_reason).toBe('Document unreadable');
      const lapsed = await create(v);
      for (const status of ['approved', 'expired']) {
        const raw = report(lapsed.externalInquiryId, status);
        expect((await callback(v, raw, sign(raw))).body.outcome).toBe('applied');
      }
      const row = await rowOf(lapsed.id);
      expect(row?.status).toBe('expired');
      expect(row?.expires_at).not.toBeNull();
    });

    it('refuses a bad, missing, malformed or stale signature and a tampered body (401), changing nothing', async () => {
      const made = await create(v);
      const raw = report(made.externalInquiryId, 'approved');
      const before = [await rowOf(made.id), await count('identity_provider_events')];
      const old = Math.floor(Date.now() / 1000) - 600;
      const cases: [string, string | undefined, string][] = [
        ['missing', undefined, raw],
        ['empty', '', raw],
        ['wrong secret', sign(raw, 'another-secret-of-enough-length-0000000000'), raw],
        ['malformed', 'sha256=deadbeef', raw],
        ['stale', sign(raw, SECRET, old), raw],
        ['tampered', sign(raw), raw.replace('approved', 'rejected')],
      ];
      for (const [what, signature, body] of cases) {
        const res = await callback(v, body, signature);
        expect(res.status, what).toBe(401);
        expect(res.body.error.code, what).toBe('UNAUTHORIZED');
      }
      expect([await rowOf(made.id), await count('identity_provider_events')]).toEqual(before);
    });

    it('checks the signature before the body: unsigned garbage is 401, signed garbage 400', async () => {
      expect((await callback(v, 'not json', sign('other'))).status).toBe(401);
      const signedGarbage = await callback(v, 'not json', sign('not json'));
      expect(signedGarbage.status).toBe(400);
      expect(signedGarbage.body.error.code).toBe('INVALID_JSON');
      const made = await create(v);
      const before = await rowOf(made.id);
      const badStatus = report(made.externalInquiryId, 'done');
      const res = await callback(v, badStatus, sign(badStatus));
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(await rowOf(made.id)).toEqual(before);
    });

    it('answers 404 for an unknown inquiry and records nothing (the provider retries)', async () => {
      const events = await count('identity_provider_events');
      const raw = report('inq_unknown_000000000000', 'approved');
      const res = await callback(v, raw, sign(raw));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
      expect(await count('identity_provider_events')).toBe(events);
    });
  });
});

describe('OpenAPI', () => {
  it('serves each compliance operation of the contract on v2 and on its v1 path, with the tier and scopes of the contract', async () => {
    const doc = (await call(e.svc.url, 'GET', '/openapi.json')).body;
    for (const o of PAYMENTS_V2_OPERATIONS.filter((x) => x.area === 'compliance')) {
      for (const path of [o.path, ...o.v1]) {
        const served = doc.paths[path]?.[o.method.toLowerCase()];
        expect(served, `${o.method} ${path}`).toBeDefined();
        expect(served['x-rate-limit-tier'], path).toBe(o.tier);
        if (o.auth === 'none') expect(served.security, path).toEqual([]);
        else if (typeof o.auth === 'object' && 'scopes' in o.auth) expect(served.description, path).toContain(o.auth.scopes[0]);
      }
    }
  });
});

describe('credential kinds', () => {
  it('v1 takes API keys and tokens; v2 refuses an API key (401)', async () => {
    const made = await create('v1');
    const v1Token = await call(e.svc.url, 'GET', `${BASE.v1}/verifications/${made.id}`, { headers: creds.v2.a });
    expect(v1Token.status).toBe(200);
    const v2Key = await call(e.svc.url, 'GET', `${BASE.v2}/verifications/${made.id}`, { headers: key(apiKeyA) });
    expect(v2Key.status).toBe(401);
    expect(v2Key.body.error.code).toBe('UNAUTHORIZED');
  });

  it('serves only the spec paths: the v1 path without the doubled prefix does not exist', async () => {
    const res = await call(e.svc.url, 'POST', '/api/v1/compliance/verifications', {
      headers: creds.v1.a,
      body: { userId: 'u', type: 'email' },
    });
    expect(res.status).toBe(404);
  });
});

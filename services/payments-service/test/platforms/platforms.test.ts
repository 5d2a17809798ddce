import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DEFAULT_KEY_SCOPES, PAYMENTS_V2_OPERATIONS, SCOPES, V1_SCOPES } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { bearer, call, createClient, GENEROUS_LIMITS, key, startPayments, startPaymentsEnv, tokenFor } from '../support/harness.js';

// Platforms and API keys: the eight operations of the spec's table, the bootstrap platform, the
// scope catalogue and the v1/v2 credential rules, on one real instance.

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const randomKey = () => `hf_test_${randomBytes(32).toString('base64url')}`;

const e = fileFixture(() => startPaymentsEnv());

async function newPlatform(body: Record<string, unknown> = {}) {
  const res = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
    headers: key(e.admin),
    body: { name: `platform ${randomUUID().slice(0, 8)}`, ...body },
  });
  expect(res.status).toBe(201);
  return res.body as { apiKey: string; platformId: string; platformName: string; scopes: string[] };
}

const platformCount = async () => Number((await e.sql`select count(*) as n from platforms`)[0]?.n);

describe('bootstrap platform (PAYMENTS_BOOTSTRAP_API_KEY)', () => {
  it('holds the configured key with every scope, once, across restarts', async () => {
    const me = await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(e.admin) });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: 'bootstrap', isActive: true, workspaceId: null, sandbox: false });
    expect([...me.body.scopes].sort()).toEqual([...V1_SCOPES].sort());
    const second = await startPayments(e.db, e.nats, { PAYMENTS_BOOTSTRAP_API_KEY: e.admin, ...GENEROUS_LIMITS });
    await second.stop();
    expect((await e.sql`select count(*) as n from platforms where bootstrap`)[0]?.n).toBe('1');
    expect((await e.sql`select count(*) as n from api_keys where key_hash = ${sha256(e.admin)}`)[0]?.n).toBe('1');
  });
});

describe('POST /api/v1/auth/api-key', () => {
  it('creates a platform with read-only scopes by default and shows the key once, storing only its hash', async () => {
    const res = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', { headers: key(e.admin), body: { name: 'Acme Pay' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ platformName: 'Acme Pay', scopes: [...DEFAULT_KEY_SCOPES] });
    expect(res.body.apiKey).toMatch(/^hf_test_[0-9A-Za-z]{43}$/);
    expect(res.body.warning).toMatch(/shown only once/);
    const [stored] =
      await e.sql`select k.*, p.name from api_keys k join platforms p on p.id = k.platform_id where p.id = ${res.body.platformId}`;
    expect(stored?.key_hash).toBe(sha256(res.body.apiKey));
    expect(JSON.stringify(stored)).not.toContain(res.body.apiKey.slice(8));
    const me = await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(res.body.apiKey) });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: res.body.platformId,
      name: 'Acme Pay',
      apiKeyHint: `${res.body.apiKey.slice(0, 12)}…${res.body.apiKey.slice(-4)}`,
    });
  });

  it('takes scopes, a webhook URL, settings and a workspace', async () => {
    const workspaceId = randomUUID();
    const res = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
      headers: key(e.admin),
      body: {
        name: 'Scoped',
        scopes: ['read:transactions', 'write:transactions'],
        webhookUrl: 'https://example.com/hook',
        settings: { a: 1 },
        workspaceId,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.scopes).toEqual(['read:transactions', 'write:transactions']);
    const got = await call(e.svc.url, 'GET', `/api/v1/auth/platform/${res.body.platformId}`, { headers: key(e.admin) });
    expect(got.body).toMatchObject({ webhookUrl: 'https://example.com/hook', settings: { a: 1 }, workspaceId });
  });

  it('refuses bad input naming each field, and creates nothing', async () => {
    const before = await platformCount();
    const res = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
      headers: key(e.admin),
      body: { name: 'ab', scopes: ['read:everything'], webhookUrl: 'not a url', colour: 'red' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.details.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['colour', 'name', 'scopes.0', 'webhookUrl']);
    const operatorScope = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
      headers: key(e.admin),
      body: { name: 'Tenant admin', scopes: ['admin:platform'], workspaceId: randomUUID() },
    });
    expect(operatorScope.status).toBe(400);
    expect(operatorScope.body.error.details.errors).toEqual([
      { field: 'scopes', reason: "admin:platform cannot be given to a workspace's platform" },
    ]);
    expect(await platformCount()).toBe(before);
  });

  it('needs a valid, active key holding admin:platform', async () => {
    const readOnly = await newPlatform();
    const body = { name: 'Sneaky' };
    const none = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', { body });
    expect(none.status).toBe(401);
    expect(none.body.error.message).toMatch(/Missing credentials/);
    const wrong = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', { headers: key(randomKey()), body });
    expect(wrong.status).toBe(401);
    const live = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
      headers: key(`hf_live_${randomBytes(32).toString('base64url')}`),
      body,
    });
    expect(live.status).toBe(401);
    expect(live.body.error.message).toMatch(/takes hf_test_ keys only/);
    const scoped = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', { headers: key(readOnly.apiKey), body });
    expect(scoped.status).toBe(403);
    expect(scoped.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { required: ['admin:platform'] } });
    const deactivatedAdmin = await newPlatform({ scopes: ['admin:platform'] });
    expect(
      (await call(e.svc.url, 'DELETE', `/api/v1/auth/platform/${deactivatedAdmin.platformId}`, { headers: key(e.admin) })).status,
    ).toBe(204);
    const deactivated = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', { headers: key(deactivatedAdmin.apiKey), body });
    expect(deactivated.status).toBe(401);
    expect(deactivated.body.error.message).toMatch(/deactivated/);
    expect((await e.sql`select count(*) as n from platforms where name = 'Sneaky'`)[0]?.n).toBe('0');
  });
});

describe('POST /api/v1/auth/api-key/regenerate', () => {
  it('issues a new key and invalidates the old one at once', async () => {
    const p = await newPlatform();
    expect((await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(p.apiKey) })).status).toBe(200);
    const res = await call(e.svc.url, 'POST', '/api/v1/auth/api-key/regenerate', {
      headers: key(e.admin),
      body: { platformId: p.platformId },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ platformId: p.platformId, platformName: p.platformName, scopes: p.scopes });
    expect(res.body.apiKey).not.toBe(p.apiKey);
    const old = await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(p.apiKey) });
    expect(old.status).toBe(401);
    expect(old.body.error.message).toMatch(/revoked/);
    expect((await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(res.body.apiKey) })).status).toBe(200);
    expect((await e.sql`select count(*) as n from api_keys where platform_id = ${p.platformId} and revoked_at is null`)[0]?.n).toBe('1');
  });

  it("lets a platform regenerate its own key with manage:api-keys, not another platform's", async () => {
    const p = await newPlatform({ scopes: ['manage:api-keys'] });
    const other = await newPlatform();
    const foreign = await call(e.svc.url, 'POST', '/api/v1/auth/api-key/regenerate', {
      headers: key(p.apiKey),
      body: { platformId: other.platformId },
    });
    expect(foreign.status).toBe(404);
    const own = await call(e.svc.url, 'POST', '/api/v1/auth/api-key/regenerate', {
      headers: key(p.apiKey),
      body: { platformId: p.platformId },
    });
    expect(own.status).toBe(200);
    expect((await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(own.body.apiKey) })).status).toBe(200);
  });

  it('refuses bad input, unknown platforms and callers without the scope', async () => {
    expect(
      (await call(e.svc.url, 'POST', '/api/v1/auth/api-key/regenerate', { headers: key(e.admin), body: { platformId: 'nope' } })).status,
    ).toBe(400);
    expect((await call(e.svc.url, 'POST', '/api/v1/auth/api-key/regenerate', { headers: key(e.admin), body: {} })).status).toBe(400);
    expect(
      (await call(e.svc.url, 'POST', '/api/v1/auth/api-key/regenerate', { headers: key(e.admin), body: { platformId: randomUUID() } }))
        .status,
    ).toBe(404);
    const readOnly = await newPlatform();
    const refused = await call(e.svc.url, 'POST', '/api/v1/auth/api-key/regenerate', {
      headers: key(readOnly.apiKey),
      body: { platformId: readOnly.platformId },
    });
    expect(refused.status).toBe(403);
    expect((await call(e.svc.url, 'POST', '/api/v1/auth/api-key/regenerate', { body: { platformId: readOnly.platformId } })).status).toBe(
      401,
    );
    expect((await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(readOnly.apiKey) })).status).toBe(200);
  });
});

describe('GET /api/{v1,v2}/auth/platform/me', () => {
  it('answers the calling platform for a key on v1 and a token on v1 and v2', async () => {
    const p = await newPlatform();
    const client = await createClient(e.svc.url, e.admin, { name: 'me client', scopes: ['read:platform'], platformId: p.platformId });
    const token = await tokenFor(e.svc.url, client);
    for (const [path, headers] of [
      ['/api/v1/auth/platform/me', key(p.apiKey)],
      ['/api/v1/auth/platform/me', bearer(token)],
      ['/api/v2/auth/platform/me', bearer(token)],
    ] as const) {
      const res = await call(e.svc.url, 'GET', path, { headers });
      expect(res.status, path).toBe(200);
      expect(res.body.id).toBe(p.platformId);
    }
  });

  it('refuses API keys on v2 with a message saying so, and missing or wrong credentials', async () => {
    const p = await newPlatform();
    const v2key = await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: key(p.apiKey) });
    expect(v2key.status).toBe(401);
    expect(v2key.body.error.message).toMatch(/API keys are not accepted on \/api\/v2/);
    const none = await call(e.svc.url, 'GET', '/api/v2/auth/platform/me');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="holdfast"');
    const wrong = await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(`hf_at_${'x'.repeat(43)}`) });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    const basic = await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: { authorization: 'Basic Zm9vOmJhcg==' } });
    expect(basic.status).toBe(401);
    const both = await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: { ...key(p.apiKey), ...bearer('x') } });
    expect(both.status).toBe(401);
    expect(both.body.error.message).toMatch(/not both/);
  });
});

describe('GET /api/{v1,v2}/auth/platform/{id}', () => {
  it('shows a platform to itself (read:platform) and to admins, 404 to others', async () => {
    const a = await newPlatform();
    const b = await newPlatform();
    expect((await call(e.svc.url, 'GET', `/api/v1/auth/platform/${a.platformId}`, { headers: key(a.apiKey) })).status).toBe(200);
    expect((await call(e.svc.url, 'GET', `/api/v1/auth/platform/${b.platformId}`, { headers: key(a.apiKey) })).status).toBe(404);
    const asAdmin = await call(e.svc.url, 'GET', `/api/v1/auth/platform/${b.platformId}`, { headers: key(e.admin) });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body).toMatchObject({ id: b.platformId, isActive: true, sandbox: false });
    expect(JSON.stringify(asAdmin.body)).not.toContain(b.apiKey);
  });

  it('refuses a bad id, an unknown id, no credential and a key without read:platform', async () => {
    expect((await call(e.svc.url, 'GET', '/api/v1/auth/platform/not-a-uuid', { headers: key(e.admin) })).status).toBe(400);
    expect((await call(e.svc.url, 'GET', `/api/v1/auth/platform/${randomUUID()}`, { headers: key(e.admin) })).status).toBe(404);
    const p = await newPlatform({ scopes: ['read:transactions'] });
    expect((await call(e.svc.url, 'GET', `/api/v1/auth/platform/${p.platformId}`)).status).toBe(401);
    const refused = await call(e.svc.url, 'GET', `/api/v1/auth/platform/${p.platformId}`, { headers: key(p.apiKey) });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toMatchObject({ required: ['read:platform', 'admin:platform'], anyOf: true });
  });
});

describe('PUT /api/{v1,v2}/auth/platform/{id}', () => {
  it('lets a platform rename itself with write:platform and an admin change its scopes, effective at once', async () => {
    const p = await newPlatform({ scopes: ['read:platform', 'write:platform'] });
    const renamed = await call(e.svc.url, 'PUT', `/api/v1/auth/platform/${p.platformId}`, {
      headers: key(p.apiKey),
      body: { name: 'Renamed', webhookUrl: 'https://example.com/h', settings: { tz: 'UTC' } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', webhookUrl: 'https://example.com/h', settings: { tz: 'UTC' } });
    const escalate = await call(e.svc.url, 'PUT', `/api/v1/auth/platform/${p.platformId}`, {
      headers: key(p.apiKey),
      body: { scopes: [...V1_SCOPES] },
    });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error.code).toBe('INSUFFICIENT_SCOPE');
    const narrowed = await call(e.svc.url, 'PUT', `/api/v1/auth/platform/${p.platformId}`, {
      headers: key(e.admin),
      body: { scopes: ['write:platform'] },
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.scopes).toEqual(['write:platform']);
    expect((await call(e.svc.url, 'GET', `/api/v1/auth/platform/${p.platformId}`, { headers: key(p.apiKey) })).status).toBe(403);
  });

  it('refuses bad input, unknown and foreign platforms, and keys without the scope', async () => {
    const p = await newPlatform();
    const other = await newPlatform({ scopes: ['write:platform'] });
    expect((await call(e.svc.url, 'PUT', `/api/v1/auth/platform/${p.platformId}`, { headers: key(e.admin), body: {} })).status).toBe(400);
    expect(
      (await call(e.svc.url, 'PUT', `/api/v1/auth/platform/${p.platformId}`, { headers: key(e.admin), body: { name: 'x'.repeat(101) } }))
        .status,
    ).toBe(400);
    expect(
      (await call(e.svc.url, 'PUT', `/api/v1/auth/platform/${randomUUID()}`, { headers: key(e.admin), body: { name: 'Ghost' } })).status,
    ).toBe(404);
    expect(
      (await call(e.svc.url, 'PUT', `/api/v1/auth/platform/${p.platformId}`, { headers: key(other.apiKey), body: { name: 'Hijack' } }))
        .status,
    ).toBe(404);
    expect(
      (await call(e.svc.url, 'PUT', `/api/v1/auth/platform/${p.platformId}`, { headers: key(p.apiKey), body: { name: 'Self' } })).status,
    ).toBe(403);
    expect((await call(e.svc.url, 'GET', `/api/v1/auth/platform/${p.platformId}`, { headers: key(e.admin) })).body.name).toBe(
      p.platformName,
    );
  });
});

describe('DELETE /api/{v1,v2}/auth/platform/{id}', () => {
  it('deactivates softly: the key and the tokens stop at once, PUT isActive brings the key back', async () => {
    const p = await newPlatform();
    const client = await createClient(e.svc.url, e.admin, { name: 'c', scopes: ['read:platform'], platformId: p.platformId });
    const token = await tokenFor(e.svc.url, client);
    expect((await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(200);
    const res = await call(e.svc.url, 'DELETE', `/api/v1/auth/platform/${p.platformId}`, { headers: key(e.admin) });
    expect(res.status).toBe(204);
    expect((await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(p.apiKey) })).status).toBe(401);
    expect((await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(401);
    expect((await e.sql`select revoked_at from oauth_tokens where client_pk = ${client.id}`)[0]?.revoked_at).not.toBeNull();
    const shown = await call(e.svc.url, 'GET', `/api/v1/auth/platform/${p.platformId}`, { headers: key(e.admin) });
    expect(shown.body.isActive).toBe(false);
    expect((await call(e.svc.url, 'DELETE', `/api/v2/auth/platform/${p.platformId}`, { headers: bearer(await adminToken()) })).status).toBe(
      204,
    );
    expect(
      (await call(e.svc.url, 'PUT', `/api/v1/auth/platform/${p.platformId}`, { headers: key(e.admin), body: { isActive: true } })).status,
    ).toBe(200);
    expect((await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(p.apiKey) })).status).toBe(200);
    expect((await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(401);
  });

  it('refuses unknown platforms, bad ids and callers without admin:platform', async () => {
    const p = await newPlatform({ scopes: ['write:platform', 'read:platform'] });
    expect((await call(e.svc.url, 'DELETE', `/api/v1/auth/platform/${randomUUID()}`, { headers: key(e.admin) })).status).toBe(404);
    expect((await call(e.svc.url, 'DELETE', '/api/v1/auth/platform/123', { headers: key(e.admin) })).status).toBe(400);
    expect((await call(e.svc.url, 'DELETE', `/api/v1/auth/platform/${p.platformId}`, { headers: key(p.apiKey) })).status).toBe(403);
    expect((await call(e.svc.url, 'DELETE', `/api/v1/auth/platform/${p.platformId}`)).status).toBe(401);
    expect((await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(p.apiKey) })).status).toBe(200);
  });
});

async function adminToken(): Promise<string> {
  const client = await createClient(e.svc.url, e.admin, { name: 'operator', scopes: ['admin:platform'] });
  return tokenFor(e.svc.url, client);
}

describe('GET /api/{v1,v2}/auth/platforms', () => {
  it('lists every platform to an admin, by workspace on request', async () => {
    const workspaceId = randomUUID();
    const mine = await newPlatform({ workspaceId });
    const all = await call(e.svc.url, 'GET', '/api/v1/auth/platforms', { headers: key(e.admin) });
    expect(all.status).toBe(200);
    expect(all.body.length).toBe(await platformCount());
    const one = await call(e.svc.url, 'GET', `/api/v2/auth/platforms?workspaceId=${workspaceId}`, { headers: bearer(await adminToken()) });
    expect(one.body.map((p: { id: string }) => p.id)).toEqual([mine.platformId]);
  });

  it('refuses non-admins, no credential and a bad filter', async () => {
    const p = await newPlatform({ scopes: [...V1_SCOPES.filter((s) => s !== 'admin:platform')] });
    expect((await call(e.svc.url, 'GET', '/api/v1/auth/platforms', { headers: key(p.apiKey) })).status).toBe(403);
    expect((await call(e.svc.url, 'GET', '/api/v1/auth/platforms')).status).toBe(401);
    expect((await call(e.svc.url, 'GET', '/api/v1/auth/platforms?workspaceId=zzz', { headers: key(e.admin) })).status).toBe(400);
  });
});

describe('POST /api/v1/auth/verify', () => {
  it('answers valid for the current key of an active platform, and says why not otherwise', async () => {
    const p = await newPlatform();
    expect((await call(e.svc.url, 'POST', '/api/v1/auth/verify', { headers: key(p.apiKey) })).body).toEqual({
      valid: true,
      platformId: p.platformId,
      platformName: p.platformName,
      isActive: true,
    });
    await call(e.svc.url, 'DELETE', `/api/v1/auth/platform/${p.platformId}`, { headers: key(e.admin) });
    expect((await call(e.svc.url, 'POST', '/api/v1/auth/verify', { headers: key(p.apiKey) })).body).toEqual({
      valid: false,
      platformId: p.platformId,
      platformName: p.platformName,
      isActive: false,
    });
    const unknown = await call(e.svc.url, 'POST', '/api/v1/auth/verify', { headers: key(randomKey()) });
    expect(unknown.body).toEqual({ valid: false, platformId: null, platformName: null, isActive: false });
    expect((await call(e.svc.url, 'POST', '/api/v1/auth/verify', { headers: key('garbage') })).body.valid).toBe(false);
    const none = await call(e.svc.url, 'POST', '/api/v1/auth/verify');
    expect(none.status).toBe(401);
  });
});

describe('GET /api/{v1,v2}/auth/scopes', () => {
  it('lists the 21 scopes with their workspace form, without a credential', async () => {
    const res = await call(e.svc.url, 'GET', '/api/v2/auth/scopes');
    expect(res.status).toBe(200);
    expect(res.body.map((s: { scope: string }) => s.scope)).toEqual([...SCOPES]);
    expect(res.body.find((s: { scope: string }) => s.scope === 'read:transactions')).toMatchObject({
      workspaceForm: 'transactions:read',
      apiKeys: true,
      v2: true,
    });
    expect(res.body.find((s: { scope: string }) => s.scope === 'move:transactions')).toMatchObject({ apiKeys: false, v2: true });
    expect(res.body.find((s: { scope: string }) => s.scope === 'cancel:transactions')).toMatchObject({ apiKeys: true, v2: false });
  });
});

describe('versioning headers', () => {
  it('sends X-API-Version everywhere and the deprecation headers on every v1 answer, with the real v2 successor', async () => {
    const id = randomUUID();
    const cases: [string, string][] = [
      ['/api/v1/auth/platform/me', '/api/v2/auth/platform/me'],
      [`/api/v1/auth/platform/${id}`, `/api/v2/auth/platform/${id}`],
      [`/api/v1/transactions/${id}/submit-hash`, `/api/v2/transactions/${id}/hash`],
      [`/api/v1/transactions/${id}/submit-escrow-hash`, `/api/v2/transactions/${id}/escrow-hash`],
      [`/api/v1/transactions/${id}/authorize-release`, `/api/v2/transactions/${id}/release/attest`],
      [`/api/v1/transactions/${id}/release-early/authorize`, `/api/v2/transactions/${id}/release-early/attest`],
      ['/api/v1/transactions/batch?page=2', '/api/v2/transactions/batches'],
      ['/api/v1/transactions/at-risk', '/api/v2/transactions/at-risk'],
      ['/api/v1/controls/verify-vendor-sms', '/api/v2/controls/vendor-sms/verify'],
      ['/api/v1/api/v1/compliance/verifications', '/api/v2/compliance/verifications'],
      ['/api/v1/webhooks', '/api/v2'],
      ['/api/v1/auth/api-key', '/api/v2'],
    ];
    for (const [v1, v2] of cases) {
      const res = await call(e.svc.url, 'GET', v1, { headers: key(e.admin) });
      expect(res.headers, v1).toMatchObject({
        'x-api-version': 'v1',
        deprecation: 'true',
        sunset: 'Sun, 01 Nov 2026 00:00:00 GMT',
        link: `<${v2}>; rel="successor-version"`,
      });
    }
    const ok = await call(e.svc.url, 'GET', '/api/v1/auth/platform/me', { headers: key(e.admin) });
    expect(ok.status).toBe(200);
    expect(ok.headers.deprecation).toBe('true');
    const refused = await call(e.svc.url, 'GET', '/api/v1/auth/platform/me');
    expect(refused.status).toBe(401);
    expect(refused.headers.deprecation).toBe('true');
    const v2 = await call(e.svc.url, 'GET', '/api/v2/auth/scopes');
    expect(v2.headers['x-api-version']).toBe('v2');
    expect(v2.headers.deprecation).toBeUndefined();
  });

  it('answers 410 API_VERSION_SUNSET with the same headers when the sunset is enforced', async () => {
    const sunset = await startPayments(e.db, e.nats, { PAYMENTS_V1_SUNSET_ENFORCED: 'true', ...GENEROUS_LIMITS });
    try {
      for (const path of ['/api/v1/auth/platform/me', '/api/v1/transactions/abc/submit-hash']) {
        const res = await call(sunset.url, 'GET', path, { headers: key(e.admin) });
        expect(res.status).toBe(410);
        expect(res.body.error.code).toBe('API_VERSION_SUNSET');
        expect(res.headers).toMatchObject({ deprecation: 'true', sunset: 'Sun, 01 Nov 2026 00:00:00 GMT', 'x-api-version': 'v1' });
        expect(res.headers.link).toMatch(/^<\/api\/v2/);
        expect(res.headers['x-ratelimit-limit']).toBeDefined();
      }
      expect((await call(sunset.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(await adminToken()) })).status).toBe(200);
    } finally {
      await sunset.stop();
    }
  });
});

describe('OpenAPI', () => {
  it('gives every operation a tier, an id, tags, and its security and scopes; lists the 38 v2 operations', async () => {
    const doc = (await call(e.svc.url, 'GET', '/openapi.json')).body as {
      info: { description: string };
      paths: Record<
        string,
        Record<
          string,
          {
            operationId?: string;
            tags?: string[];
            'x-rate-limit-tier'?: string;
            security?: unknown[];
            description?: string;
            responses: Record<string, unknown>;
          }
        >
      >;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op })),
    );
    for (const { path, method, op } of operations.filter((o) => !o.path.startsWith('/health') && o.path !== '/metrics')) {
      expect(op['x-rate-limit-tier'], `${method} ${path}`).toMatch(/^(public|standard|high|admin)$/);
      expect(op.operationId, `${method} ${path}`).toBeTruthy();
      expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
    }
    const me = doc.paths['/api/v2/auth/platform/me']?.get;
    expect(me?.security).toEqual([{ bearer: [] }]);
    expect(me?.responses['401']).toBeDefined();
    expect(doc.paths['/api/v1/auth/api-key']?.post?.description).toMatch(/Scopes: `admin:platform`/);
    expect(me?.description?.match(/Authentication:/g)).toHaveLength(1);
    expect(doc.paths['/api/v1/auth/api-key']?.post?.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect(doc.info.description).toContain('| 38 | POST | `/api/v2/disputes/{id}/resolve`');
    for (const o of PAYMENTS_V2_OPERATIONS.filter((x) => x.area === 'access')) {
      const served = doc.paths[o.path]?.[o.method.toLowerCase()];
      expect(served, `${o.method} ${o.path}`).toBeDefined();
      expect(served?.['x-rate-limit-tier'], `${o.method} ${o.path}`).toBe(o.tier);
    }
    expect(doc.info.description).toContain('`/api/v2/transactions/{id}/hash` | `/api/v1/transactions/{id}/submit-hash`');
  });
});

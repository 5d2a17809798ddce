import { createHash, randomBytes } from 'node:crypto';
import { SCOPES, V1_SCOPES } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, createClient, key, startPaymentsEnv, tokenFor } from '../support/harness.js';

// Every authenticated access operation against every way a credential can be wrong, generated
// from one table. Each refused request must change nothing.

let target: { platformId: string; platformName: string };
let client: { id: string; clientId: string; clientSecret: string };
const credentials: Record<string, Record<string, string>> = {};

const e = fileFixture(() => startPaymentsEnv());
beforeAll(async () => {
  const made = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', { headers: key(e.admin), body: { name: 'Target platform' } });
  target = made.body;
  client = await createClient(e.svc.url, e.admin, { name: 'target client', scopes: ['read:platform'], platformId: target.platformId });

  // A key and a client on one platform with every scope, then deactivated.
  const doomed = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
    headers: key(e.admin),
    body: { name: 'Doomed', scopes: [...V1_SCOPES] },
  });
  const doomedClient = await createClient(e.svc.url, e.admin, { name: 'doomed', scopes: [...SCOPES], platformId: doomed.body.platformId });
  const doomedToken = await tokenFor(e.svc.url, doomedClient);
  await call(e.svc.url, 'DELETE', `/api/v1/auth/platform/${doomed.body.platformId}`, { headers: key(e.admin) });

  const operator = await createClient(e.svc.url, e.admin, { name: 'operator', scopes: [...SCOPES] });
  const revoked = await tokenFor(e.svc.url, operator);
  await call(e.svc.url, 'POST', '/api/v2/oauth/revoke', {
    body: { token: revoked, client_id: operator.clientId, client_secret: operator.clientSecret },
  });
  const expired = await tokenFor(e.svc.url, operator);
  await e.sql`update oauth_tokens set expires_at = now() - interval '1 second' where token_hash = ${createHash('sha256').update(expired).digest('hex')}`;

  const weak = await call(e.svc.url, 'POST', '/api/v1/auth/api-key', {
    headers: key(e.admin),
    body: { name: 'Weak', scopes: ['read:customers'] },
  });
  const weakClient = await createClient(e.svc.url, e.admin, { name: 'weak', scopes: ['read:customers', 'write:transactions'] });

  credentials.none = {};
  credentials['wrong key'] = key(`hf_test_${randomBytes(32).toString('base64url')}`);
  credentials['wrong token'] = bearer(`hf_at_${'Q'.repeat(43)}`);
  credentials['deactivated key'] = key(doomed.body.apiKey);
  credentials['token of a deactivated platform'] = bearer(doomedToken);
  credentials['revoked token'] = bearer(revoked);
  credentials['expired token'] = bearer(expired);
  credentials['key missing the scope'] = key(weak.body.apiKey);
  credentials['token missing the scope'] = bearer(await tokenFor(e.svc.url, weakClient));
});

interface Operation {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: () => string;
  body?: () => unknown;
  /** Operations any valid credential may call have no "missing the scope" case. */
  anyScope?: boolean;
}

const ops: Operation[] = [];
for (const v of ['v1', 'v2']) {
  ops.push(
    { name: `GET /api/${v}/auth/platform/me`, method: 'GET', path: () => `/api/${v}/auth/platform/me`, anyScope: true },
    { name: `GET /api/${v}/auth/platforms`, method: 'GET', path: () => `/api/${v}/auth/platforms` },
    { name: `GET /api/${v}/auth/platform/{id}`, method: 'GET', path: () => `/api/${v}/auth/platform/${target.platformId}` },
    {
      name: `PUT /api/${v}/auth/platform/{id}`,
      method: 'PUT',
      path: () => `/api/${v}/auth/platform/${target.platformId}`,
      body: () => ({ name: 'Hijacked', isActive: false }),
    },
    { name: `DELETE /api/${v}/auth/platform/{id}`, method: 'DELETE', path: () => `/api/${v}/auth/platform/${target.platformId}` },
  );
}
ops.push(
  { name: 'POST /api/v1/auth/api-key', method: 'POST', path: () => '/api/v1/auth/api-key', body: () => ({ name: 'Intruder' }) },
  {
    name: 'POST /api/v1/auth/api-key/regenerate',
    method: 'POST',
    path: () => '/api/v1/auth/api-key/regenerate',
    body: () => ({ platformId: target.platformId }),
  },
  {
    name: 'POST /api/v1/oauth/clients',
    method: 'POST',
    path: () => '/api/v1/oauth/clients',
    body: () => ({ name: 'Intruder', scopes: ['admin:platform'] }),
  },
  {
    name: 'POST /api/v1/oauth/clients/{clientId}/revoke-all-tokens',
    method: 'POST',
    path: () => `/api/v1/oauth/clients/${client.clientId}/revoke-all-tokens`,
  },
);

const CASES: [string, number, string][] = [
  ['none', 401, 'UNAUTHORIZED'],
  ['wrong key', 401, 'UNAUTHORIZED'],
  ['wrong token', 401, 'UNAUTHORIZED'],
  ['deactivated key', 401, 'UNAUTHORIZED'],
  ['token of a deactivated platform', 401, 'UNAUTHORIZED'],
  ['revoked token', 401, 'UNAUTHORIZED'],
  ['expired token', 401, 'TOKEN_EXPIRED'],
  ['key missing the scope', 403, 'INSUFFICIENT_SCOPE'],
  ['token missing the scope', 403, 'INSUFFICIENT_SCOPE'],
];

describe('every authenticated access operation refuses every bad credential and changes nothing', () => {
  it.each(ops.map((o) => [o.name, o] as const))('%s', async (_name, op) => {
    const snapshot = async () => ({
      platforms: (await e.sql`select count(*) as n from platforms`)[0]?.n,
      clients: (await e.sql`select count(*) as n from oauth_clients`)[0]?.n,
      target: await e.sql`select name, is_active from platforms where id = ${target.platformId}`,
      keys: await e.sql`select id from api_keys where platform_id = ${target.platformId} and revoked_at is null`,
    });
    const before = await snapshot();
    const token = await tokenFor(e.svc.url, client);
    for (const [name, status, code] of CASES) {
      const v2 = op.path().startsWith('/api/v2');
      if (op.anyScope && status === 403) continue;
      // On v2 an API key is refused for being an API key (401), whatever its state.
      const expected = v2 && name === 'key missing the scope' ? [401, 'UNAUTHORIZED'] : [status, code];
      const res = await call(e.svc.url, op.method, op.path(), { headers: credentials[name], body: op.body?.() });
      expect([res.status, res.body?.error?.code], `${name}`).toEqual(expected);
    }
    expect(await snapshot()).toEqual(before);
    expect((await call(e.svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(200);
  });
});

import { createHash, randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentsConfigFrom } from '../../src/index.js';
import {
  bearer,
  call,
  createClient,
  key,
  newPlatform,
  type PaymentsEnv,
  type Running,
  startPaymentsEnv,
  type TestSql,
  tokenFor,
} from '../support/harness.js';

// OAuth 2.0 client credentials: clients, the token endpoint in both encodings, revocation,
// revoke-all, introspection, expiry, the v2 scope rules, and a standard client library.

let e: PaymentsEnv;
let svc: Running;
let sql: TestSql;
let admin: string;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });

beforeAll(async () => {
  // Probe routes with the scopes of the money-movement operations (the real ones need real
  // transactions), to exercise the auth layer's v2 rules alone.
  e = await startPaymentsEnv({}, (app) => {
    const ok = async () => ({ ok: true });
    app.post('/api/v2/probes/:id/rescind', { config: { access: { scopes: ['reverse:transactions'] } } }, ok);
    app.post('/api/v2/probes/transactions', { config: { access: { scopes: ['move:transactions'] } } }, ok);
    app.post('/api/v1/probes/:id/rescind', { config: { access: { scopes: ['rescind:transactions'] } } }, ok);
  });
  ({ svc, sql, admin } = e);
});

afterAll(async () => e?.stop());

const platform = (scopes: string[] = ['read:platform']) => newPlatform(e, { scopes });

async function expire(token: string) {
  await sql`update oauth_tokens set expires_at = now() - interval '1 second' where token_hash = ${sha256(token)}`;
}

describe('POST /api/v1/oauth/clients', () => {
  it('creates a client on the calling platform or a named one, showing the secret once and storing its hash', async () => {
    const res = await call(svc.url, 'POST', '/api/v1/oauth/clients', {
      headers: key(admin),
      body: {
        name: 'Backend',
        scopes: ['read:transactions', 'move:transactions'],
        description: 'server',
        redirectUris: ['https://example.com/cb'],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Backend',
      scopes: ['read:transactions', 'move:transactions'],
      grantTypes: ['client_credentials'],
      isActive: true,
      workspaceId: null,
    });
    expect(res.body.clientId).toMatch(/^hf_client_[0-9A-Za-z]{24}$/);
    expect(res.body.clientSecret).toMatch(/^hf_secret_[0-9A-Za-z]{43}$/);
    const [row] = await sql`select * from oauth_clients where id = ${res.body.id}`;
    expect(row?.secret_hash).toBe(sha256(res.body.clientSecret));
    expect(JSON.stringify(row)).not.toContain(res.body.clientSecret.slice(10));
    const p = await platform();
    const other = await call(svc.url, 'POST', '/api/v1/oauth/clients', {
      headers: key(admin),
      body: { name: 'Theirs', scopes: ['read:platform'], platformId: p.platformId },
    });
    expect(other.body.platformId).toBe(p.platformId);
  });

  it('refuses bad input, an unknown platform and a deactivated one', async () => {
    const before = (await sql`select count(*) as n from oauth_clients`)[0]?.n;
    for (const body of [
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['read:everything'] },
      { name: 'x', scopes: ['read:platform'], grantTypes: ['password'] },
      { name: '', scopes: ['read:platform'] },
      { name: 'x', scopes: ['read:platform'], secret: 'mine' },
    ]) {
      const res = await call(svc.url, 'POST', '/api/v1/oauth/clients', { headers: key(admin), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect(
      (
        await call(svc.url, 'POST', '/api/v1/oauth/clients', {
          headers: key(admin),
          body: { name: 'x', scopes: ['read:platform'], platformId: randomUUID() },
        })
      ).status,
    ).toBe(404);
    const p = await platform();
    await call(svc.url, 'DELETE', `/api/v1/auth/platform/${p.platformId}`, { headers: key(admin) });
    expect(
      (
        await call(svc.url, 'POST', '/api/v1/oauth/clients', {
          headers: key(admin),
          body: { name: 'x', scopes: ['read:platform'], platformId: p.platformId },
        })
      ).status,
    ).toBe(409);
    expect((await sql`select count(*) as n from oauth_clients`)[0]?.n).toBe(before);
  });

  it('needs admin:platform from a valid, active, unrevoked, unexpired credential', async () => {
    const body = { name: 'x', scopes: ['read:platform'] };
    const p = await platform();
    expect((await call(svc.url, 'POST', '/api/v1/oauth/clients', { body })).status).toBe(401);
    expect((await call(svc.url, 'POST', '/api/v1/oauth/clients', { headers: key(`hf_test_${'a'.repeat(43)}`), body })).status).toBe(401);
    expect((await call(svc.url, 'POST', '/api/v1/oauth/clients', { headers: key(p.apiKey), body })).status).toBe(403);
    const operator = await createClient(svc.url, admin, { name: 'op', scopes: ['admin:platform'] });
    const token = await tokenFor(svc.url, operator, undefined, 'v1');
    expect((await call(svc.url, 'POST', '/api/v1/oauth/clients', { headers: bearer(token), body })).status).toBe(201);
    await call(svc.url, 'POST', '/api/v2/oauth/revoke', {
      body: { token, client_id: operator.clientId, client_secret: operator.clientSecret },
    });
    expect((await call(svc.url, 'POST', '/api/v1/oauth/clients', { headers: bearer(token), body })).status).toBe(401);
    const fresh = await tokenFor(svc.url, operator);
    await expire(fresh);
    const expired = await call(svc.url, 'POST', '/api/v1/oauth/clients', { headers: bearer(fresh), body });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('TOKEN_EXPIRED');
    const deactivated = await platform(['admin:platform']);
    await call(svc.url, 'DELETE', `/api/v1/auth/platform/${deactivated.platformId}`, { headers: key(admin) });
    expect((await call(svc.url, 'POST', '/api/v1/oauth/clients', { headers: key(deactivated.apiKey), body })).status).toBe(401);
  });
});

describe('POST /api/{v1,v2}/oauth/token, JSON (the spec)', () => {
  it('answers the envelope with a 3600 s bearer token holding every scope of the client, or the subset asked', async () => {
    const client = await createClient(svc.url, admin, { name: 't', scopes: ['read:platform', 'read:transactions'] });
    const res = await call(svc.url, 'POST', '/api/v2/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
    });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      success: true,
      data: { token_type: 'Bearer', expires_in: 3600, scope: 'read:platform read:transactions' },
    });
    expect(res.body.data.access_token).toMatch(/^hf_at_[0-9A-Za-z]{43}$/);
    expect(res.body.meta.requestId).toBeTruthy();
    const [row] =
      await sql`select scopes, extract(epoch from expires_at - issued_at) as life from oauth_tokens where token_hash = ${sha256(res.body.data.access_token)}`;
    expect(row).toMatchObject({ scopes: ['read:platform', 'read:transactions'], life: '3600.000000' });
    const subset = await call(svc.url, 'POST', '/api/v1/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        scope: 'read:transactions',
      },
    });
    expect(subset.body.data.scope).toBe('read:transactions');
  });

  it('refuses bad requests with the error envelope naming the OAuth error', async () => {
    const client = await createClient(svc.url, admin, { name: 't', scopes: ['read:platform'] });
    const good = { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret };
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ ...good, scope: 'read:platform write:platform' }, 400, 'VALIDATION_ERROR', 'invalid_scope'],
      [{ ...good, scope: 'read:everything' }, 400, 'VALIDATION_ERROR', 'invalid_scope'],
      [{ ...good, grant_type: 'password' }, 400, 'VALIDATION_ERROR', 'unsupported_grant_type'],
      [{ ...good, client_secret: 'hf_secret_wrong' }, 401, 'UNAUTHORIZED', 'invalid_client'],
      [{ ...good, client_id: 'hf_client_unknown0000000000000' }, 401, 'UNAUTHORIZED', 'invalid_client'],
      [{ grant_type: 'client_credentials' }, 401, 'UNAUTHORIZED', 'invalid_client'],
    ];
    for (const [body, status, code, oauthError] of cases) {
      const res = await call(svc.url, 'POST', '/api/v2/oauth/token', { body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error).toMatchObject({ code, details: { oauthError } });
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const password = await call(svc.url, 'POST', '/api/v2/oauth/token', { body: { ...good, grant_type: 'password' } });
    expect(password.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'grant_type password is not supported; use client_credentials',
      statusCode: 400,
      details: {
        oauthError: 'unsupported_grant_type',
        errors: [{ field: 'grant_type', reason: 'grant_type password is not supported; use client_credentials' }],
      },
    });
    const missing = await call(svc.url, 'POST', '/api/v2/oauth/token', { body: { client_id: client.clientId } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.errors[0].field).toBe('grant_type');
    const noGrant = await createClient(svc.url, admin, {
      name: 'code only',
      scopes: ['read:platform'],
      grantTypes: ['authorization_code'],
      redirectUris: ['https://example.com/cb'],
    });
    const unauthorized = await call(svc.url, 'POST', '/api/v2/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: noGrant.clientId, client_secret: noGrant.clientSecret },
    });
    expect(unauthorized.status).toBe(403);
    expect(unauthorized.body.error.details.oauthError).toBe('unauthorized_client');
    expect((await sql`select count(*) as n from oauth_tokens where client_pk = ${client.id}`)[0]?.n).toBe('0');
  });
});

describe('POST /api/v2/oauth/token, form-encoded (RFC 6749)', () => {
  it('authenticates by HTTP Basic or body fields and answers the bare token response', async () => {
    const client = await createClient(svc.url, admin, { name: 'rfc', scopes: ['read:platform', 'read:disputes'] });
    const viaBasic = await call(svc.url, 'POST', '/api/v2/oauth/token', {
      headers: basic(client.clientId, client.clientSecret),
      form: { grant_type: 'client_credentials', scope: 'read:disputes' },
    });
    expect(viaBasic.status).toBe(200);
    expect(viaBasic.headers).toMatchObject({ 'cache-control': 'no-store', pragma: 'no-cache' });
    expect(Object.keys(viaBasic.body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(viaBasic.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read:disputes' });
    const viaPost = await call(svc.url, 'POST', '/api/v2/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret, extension: 'ignored' },
    });
    expect(viaPost.status).toBe(200);
    expect(viaPost.body.scope).toBe('read:platform read:disputes');
  });

  it('answers RFC 6749 §5.2 errors', async () => {
    const client = await createClient(svc.url, admin, { name: 'rfc', scopes: ['read:platform'] });
    const badSecret = await call(svc.url, 'POST', '/api/v2/oauth/token', {
      headers: basic(client.clientId, 'hf_secret_nope'),
      form: { grant_type: 'client_credentials' },
    });
    expect(badSecret.status).toBe(401);
    expect(badSecret.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed' });
    expect(badSecret.headers['www-authenticate']).toBe('Basic realm="holdfast"');
    expect(badSecret.headers['cache-control']).toBe('no-store');
    const post = { client_id: client.clientId, client_secret: client.clientSecret };
    const scope = await call(svc.url, 'POST', '/api/v2/oauth/token', {
      form: { grant_type: 'client_credentials', scope: 'admin:platform', ...post },
    });
    expect(scope.status).toBe(400);
    expect(scope.body.error).toBe('invalid_scope');
    const grant = await call(svc.url, 'POST', '/api/v2/oauth/token', { form: { grant_type: 'authorization_code', ...post } });
    expect(grant.body.error).toBe('unsupported_grant_type');
    const missing = await call(svc.url, 'POST', '/api/v2/oauth/token', { form: { ...post } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
    const repeated = await request(
      `grant_type=client_credentials&grant_type=client_credentials&client_id=${client.clientId}&client_secret=${client.clientSecret}`,
    );
    expect(repeated.status).toBe(400);
    expect(repeated.body.error).toBe('invalid_request');
    const twoMethods = await call(svc.url, 'POST', '/api/v2/oauth/token', {
      headers: basic(client.clientId, client.clientSecret),
      form: { grant_type: 'client_credentials', ...post },
    });
    expect(twoMethods.body.error).toBe('invalid_request');
  });
});

async function request(formBody: string) {
  const { request: send } = await import('undici');
  const res = await send(`${svc.url}/api/v2/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: formBody,
  });
  return { status: res.statusCode, body: (await res.body.json()) as { error: string } };
}

describe('a standard OAuth 2.0 client library (oauth4webapi)', () => {
  it('discovers the server, obtains a token, uses it, introspects it and revokes it', async () => {
    const client = await createClient(svc.url, admin, { name: 'library', scopes: ['read:platform', 'read:transactions'] });
    const issuer = new URL(svc.url);
    const options = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }));
    expect(as.token_endpoint).toBe(`${svc.url}/api/v2/oauth/token`);
    const c: oauth.Client = { client_id: client.clientId };
    const auth = oauth.ClientSecretBasic(client.clientSecret);
    const response = await oauth.clientCredentialsGrantRequest(as, c, auth, new URLSearchParams({ scope: 'read:platform' }), options);
    const token = await oauth.processClientCredentialsResponse(as, c, response);
    expect(token).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'read:platform' });
    const me = await call(svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token.access_token) });
    expect(me.status).toBe(200);
    const introspected = await oauth.processIntrospectionResponse(
      as,
      c,
      await oauth.introspectionRequest(as, c, oauth.ClientSecretPost(client.clientSecret), token.access_token, options),
    );
    expect(introspected).toMatchObject({
      active: true,
      client_id: client.clientId,
      scope: 'read:platform',
      sub: client.platformId,
      token_type: 'Bearer',
    });
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, c, auth, token.access_token, options));
    expect((await call(svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token.access_token) })).status).toBe(401);
  });
});

describe('POST /api/{v1,v2}/oauth/revoke (RFC 7009)', () => {
  it("revokes the client's own token at once; unknown and foreign tokens answer 200 and change nothing", async () => {
    const a = await createClient(svc.url, admin, { name: 'a', scopes: ['read:platform'] });
    const b = await createClient(svc.url, admin, { name: 'b', scopes: ['read:platform'] });
    const tokenA = await tokenFor(svc.url, a);
    const tokenB = await tokenFor(svc.url, b);
    expect((await call(svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(tokenA) })).status).toBe(200);
    const foreign = await call(svc.url, 'POST', '/api/v2/oauth/revoke', {
      body: { token: tokenB, client_id: a.clientId, client_secret: a.clientSecret },
    });
    expect(foreign.status).toBe(200);
    expect((await call(svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(tokenB) })).status).toBe(200);
    const unknown = await call(svc.url, 'POST', '/api/v2/oauth/revoke', {
      headers: basic(a.clientId, a.clientSecret),
      form: { token: 'hf_at_nothing' },
    });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({});
    const own = await call(svc.url, 'POST', '/api/v1/oauth/revoke', {
      body: { token: tokenA, token_type_hint: 'access_token', client_id: a.clientId, client_secret: a.clientSecret },
    });
    expect(own.status).toBe(200);
    expect(own.body.success).toBe(true);
    const refused = await call(svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(tokenA) });
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/revoked/);
    expect((await sql`select revoked_at from oauth_tokens where token_hash = ${sha256(tokenA)}`)[0]?.revoked_at).not.toBeNull();
  });

  it('refuses a missing token and a wrong client', async () => {
    const a = await createClient(svc.url, admin, { name: 'a', scopes: ['read:platform'] });
    const token = await tokenFor(svc.url, a);
    expect(
      (await call(svc.url, 'POST', '/api/v2/oauth/revoke', { body: { client_id: a.clientId, client_secret: a.clientSecret } })).status,
    ).toBe(400);
    const wrong = await call(svc.url, 'POST', '/api/v2/oauth/revoke', { headers: basic(a.clientId, 'hf_secret_bad'), form: { token } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    expect((await call(svc.url, 'POST', '/api/v2/oauth/revoke', { body: { token } })).status).toBe(401);
    expect((await call(svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(200);
  });
});

describe('POST /api/v1/oauth/clients/{clientId}/revoke-all-tokens', () => {
  it('revokes every live token of the client and counts them', async () => {
    const c = await createClient(svc.url, admin, { name: 'many', scopes: ['read:platform'] });
    const tokens = [await tokenFor(svc.url, c), await tokenFor(svc.url, c), await tokenFor(svc.url, c)];
    expect((await call(svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(tokens[0] as string) })).status).toBe(200);
    const res = await call(svc.url, 'POST', `/api/v1/oauth/clients/${c.clientId}/revoke-all-tokens`, { headers: key(admin) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ clientId: c.clientId, count: 3 });
    for (const t of tokens) expect((await call(svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(t) })).status).toBe(401);
    expect((await call(svc.url, 'POST', `/api/v1/oauth/clients/${c.id}/revoke-all-tokens`, { headers: key(admin) })).body.count).toBe(0);
    expect((await call(svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(await tokenFor(svc.url, c)) })).status).toBe(200);
  });

  it('refuses unknown clients and callers without admin:platform', async () => {
    const c = await createClient(svc.url, admin, { name: 'x', scopes: ['read:platform'] });
    const token = await tokenFor(svc.url, c);
    expect(
      (await call(svc.url, 'POST', '/api/v1/oauth/clients/hf_client_000000000000000000000000/revoke-all-tokens', { headers: key(admin) }))
        .status,
    ).toBe(404);
    expect((await call(svc.url, 'POST', '/api/v1/oauth/clients/garbage/revoke-all-tokens', { headers: key(admin) })).status).toBe(404);
    expect((await call(svc.url, 'POST', `/api/v1/oauth/clients/${c.clientId}/revoke-all-tokens`, { headers: bearer(token) })).status).toBe(
      403,
    );
    expect((await call(svc.url, 'POST', `/api/v1/oauth/clients/${c.clientId}/revoke-all-tokens`)).status).toBe(401);
    expect((await call(svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(200);
  });
});

describe('POST /api/{v1,v2}/oauth/introspect (RFC 7662)', () => {
  it("describes live tokens of the caller's platform and answers inactive for anything else", async () => {
    const p = await platform(['read:platform', 'read:disputes']);
    const resourceServer = await createClient(svc.url, admin, { name: 'rs', scopes: ['read:platform'], platformId: p.platformId });
    const app = await createClient(svc.url, admin, { name: 'app', scopes: ['read:platform', 'read:disputes'], platformId: p.platformId });
    const stranger = await createClient(svc.url, admin, { name: 'stranger', scopes: ['read:platform'] });
    const token = await tokenFor(svc.url, app);
    const auth = { client_id: resourceServer.clientId, client_secret: resourceServer.clientSecret };
    const live = await call(svc.url, 'POST', '/api/v2/oauth/introspect', { body: { token, ...auth } });
    expect(live.status).toBe(200);
    expect(live.body.data).toMatchObject({
      active: true,
      client_id: app.clientId,
      scope: 'read:platform read:disputes',
      sub: p.platformId,
      platform_id: p.platformId,
      workspace_id: null,
      iss: svc.url,
    });
    expect(live.body.data.exp - live.body.data.iat).toBe(3600);
    const foreign = await call(svc.url, 'POST', '/api/v2/oauth/introspect', {
      body: { token, client_id: stranger.clientId, client_secret: stranger.clientSecret },
    });
    expect(foreign.body.data).toEqual({ active: false });
    const other = await tokenFor(svc.url, app);
    await expire(other);
    expect((await call(svc.url, 'POST', '/api/v1/oauth/introspect', { form: { token: other, ...auth } })).body).toEqual({ active: false });
    await call(svc.url, 'POST', '/api/v2/oauth/revoke', { body: { token, client_id: app.clientId, client_secret: app.clientSecret } });
    expect((await call(svc.url, 'POST', '/api/v2/oauth/introspect', { form: { token, ...auth } })).body).toEqual({ active: false });
    expect((await call(svc.url, 'POST', '/api/v2/oauth/introspect', { form: { token: 'whatever', ...auth } })).body).toEqual({
      active: false,
    });
  });

  it('requires client authentication and a token', async () => {
    const c = await createClient(svc.url, admin, { name: 'rs', scopes: ['read:platform'] });
    const token = await tokenFor(svc.url, c);
    expect((await call(svc.url, 'POST', '/api/v2/oauth/introspect', { form: { token } })).status).toBe(401);
    expect(
      (await call(svc.url, 'POST', '/api/v2/oauth/introspect', { headers: basic(c.clientId, c.clientSecret), form: {} })).body.error,
    ).toBe('invalid_request');
  });
});

describe('access tokens on the API', () => {
  it('refuse an expired token with TOKEN_EXPIRED and a fresh challenge', async () => {
    const c = await createClient(svc.url, admin, { name: 'e', scopes: ['read:platform'] });
    const token = await tokenFor(svc.url, c);
    await expire(token);
    const res = await call(svc.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('TOKEN_EXPIRED');
    expect(res.headers['www-authenticate']).toMatch(/invalid_token/);
  });

  it('gate v2 money movement on move:transactions and reversals on reverse:transactions, refusing the v1 scopes', async () => {
    const v1Scoped = await createClient(svc.url, admin, {
      name: 'v1',
      scopes: ['write:transactions', 'cancel:transactions', 'rescind:transactions'],
    });
    const v2Scoped = await createClient(svc.url, admin, { name: 'v2', scopes: ['move:transactions', 'reverse:transactions'] });
    const oldToken = await tokenFor(svc.url, v1Scoped);
    const newToken = await tokenFor(svc.url, v2Scoped);
    const id = randomUUID();
    const reversal = await call(svc.url, 'POST', `/api/v2/probes/${id}/rescind`, { headers: bearer(oldToken) });
    expect(reversal.status).toBe(403);
    expect(reversal.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { required: ['reverse:transactions'] } });
    expect(reversal.body.error.message).toMatch(/cancel:transactions and rescind:transactions are v1 scopes/);
    expect(reversal.headers['www-authenticate']).toMatch(/insufficient_scope/);
    const movement = await call(svc.url, 'POST', '/api/v2/probes/transactions', { headers: bearer(oldToken) });
    expect(movement.status).toBe(403);
    expect(movement.body.error.message).toMatch(/write:transactions is a v1 scope/);
    expect((await call(svc.url, 'POST', `/api/v2/probes/${id}/rescind`, { headers: bearer(newToken) })).status).toBe(200);
    expect((await call(svc.url, 'POST', '/api/v2/probes/transactions', { headers: bearer(newToken) })).status).toBe(200);
    expect((await call(svc.url, 'POST', `/api/v1/probes/${id}/rescind`, { headers: bearer(oldToken) })).status).toBe(200);
    expect((await call(svc.url, 'POST', `/api/v1/probes/${id}/rescind`, { headers: bearer(newToken) })).status).toBe(403);
  });
});

describe('security: a token never outgrows its platform (issue 28 item 6)', () => {
  const cutBack = (platformId: string, scopes: string[]) =>
    call(svc.url, 'PUT', `/api/v1/auth/platform/${platformId}`, { headers: key(admin), body: { scopes } });
  const tokenRows = (clientId: string) =>
    sql<{ scopes: string[] }[]>`select t.scopes from oauth_tokens t join oauth_clients c on c.id = t.client_pk
                                 where c.client_id = ${clientId} order by t.issued_at`;

  it('a platform cut back to read:transactions mints no move:transactions token, and its earlier tokens lose it at once', async () => {
    const p = await platform(['read:transactions', 'write:transactions', 'cancel:transactions', 'rescind:transactions']);
    const client = await createClient(svc.url, admin, {
      name: 'mover',
      scopes: ['read:transactions', 'move:transactions', 'reverse:transactions'],
      platformId: p.platformId,
    });
    const before = await tokenFor(svc.url, client);
    expect((await call(svc.url, 'POST', '/api/v2/probes/transactions', { headers: bearer(before) })).status).toBe(200);

    // Only rescind taken away: reverse:transactions (rescind and refund) goes, move stays.
    expect((await cutBack(p.platformId, ['read:transactions', 'write:transactions', 'cancel:transactions'])).status).toBe(200);
    const id = randomUUID();
    const reversal = await call(svc.url, 'POST', `/api/v2/probes/${id}/rescind`, { headers: bearer(before) });
    expect(reversal.status).toBe(403);
    expect(reversal.body.error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      details: { granted: ['read:transactions', 'move:transactions'] },
    });
    expect((await call(svc.url, 'POST', '/api/v2/probes/transactions', { headers: bearer(before) })).status).toBe(200);

    expect((await cutBack(p.platformId, ['read:transactions'])).status).toBe(200);
    // The attack: ask for move:transactions after the cut-back (was 201/200 with the scope).
    const asked = await call(svc.url, 'POST', '/api/v2/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        scope: 'move:transactions',
      },
    });
    expect(asked.status).toBe(400);
    expect(asked.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { oauthError: 'invalid_scope' } });
    expect(asked.body.error.details.errors[0]).toMatchObject({ field: 'scope' });
    expect(asked.body.error.details.errors[0].reason).toMatch(/move:transactions beyond the platform's scopes/);
    // Asking for nothing gets only what the platform still covers.
    const plain = await call(svc.url, 'POST', '/api/v2/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
    });
    expect(plain.status).toBe(200);
    expect(plain.body.data.scope).toBe('read:transactions');
    expect((await tokenRows(client.clientId)).map((r) => r.scopes)).toEqual([
      ['read:transactions', 'move:transactions', 'reverse:transactions'],
      ['read:transactions'],
    ]);
    // The token minted before the cut-back is checked at use: it cannot move money any more.
    for (const token of [before, plain.body.data.access_token as string]) {
      const moved = await call(svc.url, 'POST', '/api/v2/probes/transactions', { headers: bearer(token) });
      expect(moved.status).toBe(403);
      expect(moved.body.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', details: { granted: ['read:transactions'] } });
    }
    const introspected = await call(svc.url, 'POST', '/api/v2/oauth/introspect', {
      body: { token: before, client_id: client.clientId, client_secret: client.clientSecret },
    });
    expect(introspected.body.data).toMatchObject({ active: true, scope: 'read:transactions' });

    // Widened again, the client's own scopes come back (the client row was never changed).
    expect((await cutBack(p.platformId, ['read:transactions', 'write:transactions'])).status).toBe(200);
    expect((await call(svc.url, 'POST', '/api/v2/probes/transactions', { headers: bearer(before) })).status).toBe(200);
  });

  it('a client with scopes its platform does not cover is refused (403), none is stored', async () => {
    const p = await platform(['read:transactions', 'write:transactions', 'cancel:transactions']);
    const res = await call(svc.url, 'POST', '/api/v1/oauth/clients', {
      headers: key(admin),
      body: { name: 'too wide', scopes: ['move:transactions', 'reverse:transactions', 'read:disputes'], platformId: p.platformId },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      code: 'FORBIDDEN',
      details: { reason: 'beyond_platform_scopes', refused: ['reverse:transactions', 'read:disputes'] },
    });
    expect(await sql`select 1 from oauth_clients where platform_id = ${p.platformId}`).toHaveLength(0);
  });
});

describe('security: a forged Host cannot rewrite the OAuth issuer (issue 28 item 9)', () => {
  const STAGING = {
    APP_ENV: 'staging',
    INTERNAL_API_KEY: 'k'.repeat(32),
    DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    IDENTITY_PROVIDER_URL: 'https://idp.example.com/',
    IDENTITY_PROVIDER_API_KEY: 'i'.repeat(24),
    IDENTITY_PROVIDER_WEBHOOK_SECRET: 's'.repeat(32),
  };
  const metadata = (base: string, host: string) => call(base, 'GET', '/.well-known/oauth-authorization-server', { headers: { host } });

  it('in local, without PAYMENTS_PUBLIC_URL, the issuer follows the Host: the reason it is required elsewhere', async () => {
    const forged = await metadata(svc.url, 'evil.example');
    expect(forged.status).toBe(200);
    // RFC 8414: the metadata is answered bare, not in the envelope.
    expect(forged.body.issuer).toBe('http://evil.example');
  });

  it('outside local PAYMENTS_PUBLIC_URL is required, and the issuer is it whatever Host a request names', async () => {
    expect(() => paymentsConfigFrom(STAGING)).toThrow(/PAYMENTS_PUBLIC_URL: is required when APP_ENV is staging \(missing\)/);
    const staging = await startPaymentsEnv({ ...STAGING, PAYMENTS_PUBLIC_URL: 'https://payments.example.com/' });
    try {
      for (const host of ['evil.example', new URL(staging.svc.url).host]) {
        const res = await metadata(staging.svc.url, host);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          issuer: 'https://payments.example.com',
          token_endpoint: 'https://payments.example.com/api/v2/oauth/token',
          introspection_endpoint: 'https://payments.example.com/api/v2/oauth/introspect',
        });
      }
    } finally {
      await staging.stop();
    }
  });
});

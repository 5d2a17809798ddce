import { describe, expect, it } from 'vitest';
import { tokenFor } from '../support/fixtures.js';
import { auditEntries, expiredTokenFor, PASSWORD, SUPER_EMAIL, signJwt, uniqueEmail, worldPerFile } from '../support/harness.js';

const { h, world } = worldPerFile();

async function signup(email = uniqueEmail('signup'), extra: Record<string, unknown> = {}) {
  return h.call('POST', '/auth/signup', { body: { email, password: PASSWORD, firstName: 'Grace', lastName: 'Hopper', ...extra } });
}

async function verifiedAccount() {
  const email = uniqueEmail('verified');
  const created = await signup(email);
  await h.call('POST', '/auth/verify-code', { body: { email, code: created.body.data.verificationCode } });
  return { email, id: created.body.data.user.id as string };
}

describe('POST /auth/signup', () => {
  it('creates an unverified ADMIN without a workspace and returns the code outside production', async () => {
    const email = uniqueEmail('Mixed.Case');
    const res = await signup(email.toUpperCase(), { companyName: 'Acme', intendedUseCase: 'payouts', waitlistReason: 'launch' });
    expect(res.status).toBe(201);
    expect(res.body.data.user).toMatchObject({
      email: email.toLowerCase(),
      role: 'ADMIN',
      workspaceId: null,
      emailVerified: false,
      status: 'active',
    });
    expect(res.body.data.verificationCode).toMatch(/^\d{6}$/);
    expect(Date.parse(res.body.data.verificationExpiresAt)).toBeGreaterThan(Date.now());
    expect(res.body.data.user).not.toHaveProperty('passwordHash');
    const [row] = await h.sql`select password_hash, signup_details from workspace.users where email = ${email.toLowerCase()}`;
    expect(row?.password_hash).toMatch(/^\$argon2id\$/);
    expect(row?.signup_details).toEqual({ companyName: 'Acme', intendedUseCase: 'payouts', waitlistReason: 'launch' });
    const [code] = await h.sql`select code_hash from workspace.verification_codes where user_id = ${res.body.data.user.id}`;
    expect(code?.code_hash).not.toContain(res.body.data.verificationCode);
  });

  it('refuses a password outside the policy, naming what is missing, and creates nothing', async () => {
    const email = uniqueEmail('weak');
    const res = await h.call('POST', '/auth/signup', { body: { email, password: 'alllowercase', firstName: 'A', lastName: 'B' } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.errors).toEqual([
      { field: 'password', reason: 'must contain an upper-case letter, a number, a special character' },
    ]);
    const short = await h.call('POST', '/auth/signup', { body: { email, password: 'Aa1!', firstName: 'A', lastName: 'B' } });
    expect(short.body.error.details.errors[0].reason).toContain('at least 12 characters');
    expect(await h.sql`select 1 from workspace.users where email = ${email}`).toHaveLength(0);
  });

  it('refuses missing and unknown fields, naming each', async () => {
    const res = await h.call('POST', '/auth/signup', { body: { email: 'not-an-email', password: PASSWORD, role: 'admin' } });
    expect(res.status).toBe(400);
    const fields = res.body.error.details.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['email', 'firstName', 'lastName', 'role']);
  });

  it('answers 409 for an e-mail that exists, whatever its case', async () => {
    const email = uniqueEmail('dup');
    expect((await signup(email)).status).toBe(201);
    const again = await signup(email.toUpperCase());
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { field: 'email' } });
  });
});

describe('POST /auth/verify-code', () => {
  it('verifies once; a repeat is idempotent', async () => {
    const email = uniqueEmail('verify');
    const created = await signup(email);
    const res = await h.call('POST', '/auth/verify-code', {
      body: { email: email.toUpperCase(), code: created.body.data.verificationCode },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ email, emailVerified: true });
    const [row] = await h.sql`select email_verified from workspace.users where email = ${email}`;
    expect(row?.email_verified).toBe(true);
    expect(await h.sql`select 1 from workspace.verification_codes where user_id = ${created.body.data.user.id}`).toHaveLength(0);
    const again = await h.call('POST', '/auth/verify-code', { body: { email, code: created.body.data.verificationCode } });
    expect(again.status).toBe(200);
  });

  it('counts wrong codes and gives up after five attempts, keeping the account unverified', async () => {
    const email = uniqueEmail('attempts');
    const created = await signup(email);
    const code = created.body.data.verificationCode as string;
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i += 1) {
      const res = await h.call('POST', '/auth/verify-code', { body: { email, code: wrong } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_CODE');
    }
    const right = await h.call('POST', '/auth/verify-code', { body: { email, code } });
    expect(right.status).toBe(400);
    expect(right.body.error.code).toBe('INVALID_CODE');
    const failures = await auditEntries(h, { action: 'auth.verify_email', userId: created.body.data.user.id });
    expect(failures).toHaveLength(6);
    expect(failures.every((f) => !f.success)).toBe(true);
  });

  it('refuses an expired code and an unknown address alike', async () => {
    const email = uniqueEmail('expired');
    const created = await signup(email);
    await h.sql`update workspace.verification_codes set expires_at = now() - interval '1 second' where user_id = ${created.body.data.user.id}`;
    const res = await h.call('POST', '/auth/verify-code', { body: { email, code: created.body.data.verificationCode } });
    expect(res.body.error.code).toBe('INVALID_CODE');
    const unknown = await h.call('POST', '/auth/verify-code', { body: { email: uniqueEmail('ghost'), code: '123456' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('INVALID_CODE');
    const malformed = await h.call('POST', '/auth/verify-code', { body: { email, code: '12ab' } });
    expect(malformed.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('POST /auth/resend-code', () => {
  it('replaces the code once a minute has passed, and answers the same for unknown addresses', async () => {
    const email = uniqueEmail('resend');
    const created = await signup(email);
    const tooSoon = await h.call('POST', '/auth/resend-code', { body: { email } });
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.headers['retry-after']).toBeDefined();
    await h.sql`update workspace.verification_codes set created_at = now() - interval '2 minutes' where user_id = ${created.body.data.user.id}`;
    const res = await h.call('POST', '/auth/resend-code', { body: { email } });
    expect(res.status).toBe(200);
    const fresh = res.body.data.verificationCode as string;
    expect(fresh).toMatch(/^\d{6}$/);
    if (fresh !== created.body.data.verificationCode) {
      const old = await h.call('POST', '/auth/verify-code', { body: { email, code: created.body.data.verificationCode } });
      expect(old.body.error.code).toBe('INVALID_CODE');
    }
    expect((await h.call('POST', '/auth/verify-code', { body: { email, code: fresh } })).status).toBe(200);
    const unknown = await h.call('POST', '/auth/resend-code', { body: { email: uniqueEmail('nobody') } });
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual({ message: res.body.data.message });
  });
});

describe('POST /identity/login', () => {
  it('logs in with the e-mail in any case and answers both tokens', async () => {
    const { email } = await verifiedAccount();
    const res = await h.call('POST', '/identity/login', { body: { email: email.toUpperCase(), password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600, environment: 'sandbox', user: { email } });
    const [, payload] = (res.body.data.accessToken as string).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims).toMatchObject({ typ: 'access', iss: 'holdfast-workspace', aud: 'holdfast:workspace-user' });
    expect(res.body.data.refreshToken).toMatch(/^hfr_/);
    const stored = await h.sql`select token_hash from workspace.refresh_tokens`;
    expect(stored.map((r) => r.token_hash)).not.toContain(res.body.data.refreshToken);
    const me = await h.call('GET', '/identity/me', { token: res.body.data.accessToken });
    expect(me.body.data.email).toBe(email);
  });

  it('answers 401 INVALID_CREDENTIALS for a wrong password or an unknown e-mail, and records both', async () => {
    const wrong = await h.call('POST', '/identity/login', { body: { email: world.clientW1.email, password: 'Wrong!Passw0rd' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
    const unknown = await h.call('POST', '/identity/login', { body: { email: uniqueEmail('ghost'), password: PASSWORD } });
    expect(unknown.body.error).toMatchObject({ code: 'INVALID_CREDENTIALS', message: wrong.body.error.message });
    const [entry] = await auditEntries(h, { action: 'auth.login', userId: world.clientW1.id });
    expect(entry).toMatchObject({ success: false, error_message: 'Invalid e-mail or password' });
  });

  it('refuses an unverified account (after the password check)', async () => {
    const email = uniqueEmail('unverified');
    await signup(email);
    const res = await h.call('POST', '/identity/login', { body: { email, password: PASSWORD } });
    expect(res.status).toBe(401);
    expect(res.body.error.details).toEqual({ reason: 'email_not_verified' });
  });

  it('backs off an account from one address after 5 failed logins in 15 minutes, even with the right password', async () => {
    const { email } = await verifiedAccount();
    for (let i = 0; i < 5; i += 1) {
      expect((await h.call('POST', '/identity/login', { body: { email, password: 'Wrong!Passw0rd' } })).status).toBe(401);
    }
    const locked = await h.call('POST', '/identity/login', { body: { email, password: PASSWORD } });
    expect(locked.status).toBe(429);
    expect(locked.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('refuses bad input', async () => {
    const res = await h.call('POST', '/identity/login', { body: { email: 'x@y.test', password: PASSWORD, environment: 'moon' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toEqual([{ field: 'environment', reason: 'must be one of: sandbox, production' }]);
    expect(
      (await h.call('POST', '/identity/login', { body: 'not json', headers: { 'content-type': 'application/json' } })).body.error.code,
    ).toBe('INVALID_JSON');
  });
});

describe('refresh tokens', () => {
  it('rotate: each refresh answers a new pair and retires the old refresh token', async () => {
    const first = await h.login(world.clientW1.email);
    const second = await h.call('POST', '/identity/refresh', { body: { refreshToken: first.refreshToken, environment: 'production' } });
    expect(second.status).toBe(200);
    expect(second.body.data.refreshToken).not.toBe(first.refreshToken);
    expect(second.body.data.environment).toBe('production');
    const third = await h.call('POST', '/api/v1/auth/refresh', { body: { refreshToken: second.body.data.refreshToken } });
    expect(third.status).toBe(200);
    expect(third.body.data.environment).toBe('production');
  });

  it('reused after rotation, revoke the whole family: the newest token stops working too', async () => {
    const first = await h.login(world.clientW1.email);
    const second = await h.call('POST', '/identity/refresh', { body: { refreshToken: first.refreshToken } });
    const third = await h.call('POST', '/identity/refresh', { body: { refreshToken: second.body.data.refreshToken } });
    expect(third.status).toBe(200);

    const replay = await h.call('POST', '/identity/refresh', { body: { refreshToken: first.refreshToken } });
    expect(replay.status).toBe(401);
    expect(replay.body.error.details).toEqual({ reason: 'refresh_token_reuse' });

    const newest = await h.call('POST', '/identity/refresh', { body: { refreshToken: third.body.data.refreshToken } });
    expect(newest.status).toBe(401);
    const [session] = await h.sql`
      select s.revoked_at, s.revoked_reason from workspace.sessions s
      join workspace.refresh_tokens t on t.session_id = s.id
      where t.token_hash = encode(sha256(${first.refreshToken}::bytea), 'hex')`;
    expect(session?.revoked_reason).toBe('refresh_token_reuse');
    const [entry] = await auditEntries(h, { action: 'auth.refresh', userId: world.clientW1.id });
    expect(entry).toMatchObject({ success: false });

    // Another login of the same user is a different family and keeps working.
    const other = await h.login(world.clientW1.email);
    expect((await h.call('POST', '/identity/refresh', { body: { refreshToken: other.refreshToken } })).status).toBe(200);
  });

  it('expire', async () => {
    const session = await h.login(world.clientW1.email);
    await h.sql`update workspace.refresh_tokens set expires_at = now() - interval '1 second'
      where token_hash = encode(sha256(${session.refreshToken}::bytea), 'hex')`;
    const res = await h.call('POST', '/identity/refresh', { body: { refreshToken: session.refreshToken } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('TOKEN_EXPIRED');
  });

  it('are refused when unknown, and when the account is suspended', async () => {
    expect((await h.call('POST', '/identity/refresh', { body: { refreshToken: 'hfr_unknown' } })).status).toBe(401);
    const { email, id } = await verifiedAccount();
    const session = await h.login(email);
    await h.call('PUT', `/api/v1/users/${id}`, { token: world.superAdmin.token, body: { status: 'suspended' } });
    expect((await h.call('POST', '/identity/refresh', { body: { refreshToken: session.refreshToken } })).status).toBe(401);
    const me = await h.call('GET', '/identity/me', { token: session.accessToken });
    expect(me.status).toBe(401);
  });
});

describe('logout', () => {
  it('kills the refresh token at once; the access token lives until it expires', async () => {
    const session = await h.login(world.adminW1.email);
    const out = await h.call('POST', '/identity/logout', { body: { refreshToken: session.refreshToken } });
    expect(out.status).toBe(200);
    expect((await h.call('POST', '/identity/refresh', { body: { refreshToken: session.refreshToken } })).status).toBe(401);
    expect((await h.call('GET', '/identity/me', { token: session.accessToken })).status).toBe(200);
    // Idempotent, also for unknown tokens.
    expect((await h.call('POST', '/api/v1/auth/logout', { body: { refreshToken: session.refreshToken } })).status).toBe(200);
    expect((await h.call('POST', '/identity/logout', { body: {} })).status).toBe(400);
  });
});

describe('access tokens', () => {
  it('are refused when expired (TOKEN_EXPIRED), forged, of another audience, or of a deleted user', async () => {
    const expired = await h.call('GET', '/identity/me', { token: expiredTokenFor(world.clientW1.id) });
    expect(expired.body.error.code).toBe('TOKEN_EXPIRED');
    const forged = signJwt(
      { sub: world.clientW1.id, sid: world.clientW1.id, typ: 'access', exp: Math.floor(Date.now() / 1000) + 60 },
      'another-secret-of-32-characters-at-least',
    );
    expect((await h.call('GET', '/identity/me', { token: forged })).body.error.code).toBe('UNAUTHORIZED');
    const now = Math.floor(Date.now() / 1000);
    const customerToken = signJwt({
      sub: world.clientW1.id,
      sid: world.clientW1.id,
      typ: 'access',
      env: 'sandbox',
      iss: 'holdfast-workspace',
      aud: 'holdfast:customer',
      iat: now,
      exp: now + 60,
    });
    expect((await h.call('GET', '/identity/me', { token: customerToken })).status).toBe(401);
    expect((await h.call('GET', '/identity/me', { token: 'not-a-jwt' })).status).toBe(401);
    expect((await h.call('GET', '/identity/me', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
    const ghost = tokenFor('00000000-0000-4000-8000-000000000000', '00000000-0000-4000-8000-000000000001');
    expect((await h.call('GET', '/identity/me', { token: ghost })).status).toBe(401);
  });

  it('follow role changes at once (authorization reads the stored user, not the token)', async () => {
    const { email, id } = await verifiedAccount();
    const session = await h.login(email);
    // A signed-up ADMIN without a workspace may list workspaces (none of its own).
    const before = await h.call('GET', '/api/v1/workspaces', { token: session.accessToken });
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual([]);
    await h.call('PUT', `/api/v1/users/${id}`, { token: world.superAdmin.token, body: { role: 'client' } });
    expect((await h.call('GET', '/api/v1/workspaces', { token: session.accessToken })).status).toBe(403);
  });
});

describe('the bootstrap SUPER_ADMIN', () => {
  it('exists, verified, and its creation is in the audit trail', async () => {
    const [row] = await h.sql`select id, role, email_verified from workspace.users where email = ${SUPER_EMAIL}`;
    expect(row).toMatchObject({ role: 'SUPER_ADMIN', email_verified: true });
    const [entry] = await auditEntries(h, { action: 'user.bootstrap_super_admin' });
    expect(entry).toMatchObject({ success: true, resource_id: row?.id });
  });
});

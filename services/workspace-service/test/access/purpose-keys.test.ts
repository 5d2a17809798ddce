import { codeHash } from '@holdfast/secrets';
import { describe, expect, it } from 'vitest';
import { workspaceKeys } from '../../src/modules/access/tokens.js';
import { accessClaims, PASSWORD, sessionIdOf, signJwt, TEST_JWT_SECRET, uniqueEmail, worldPerFile } from '../support/harness.js';

// Issue 28 item 9: a key per purpose. JWT_SECRET keyed both the access tokens' signatures and the
// verification codes' MAC; now it is only the root both keys are derived from (HKDF-SHA256), so
// neither use holds the other's key and the secret itself keys nothing.

const { h, world } = worldPerFile();

describe('workspace keys (security)', () => {
  it('MACs a verification code under its own derived key, not under JWT_SECRET', async () => {
    const email = uniqueEmail('keyed');
    const res = await h.call('POST', '/auth/signup', { body: { email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' } });
    expect(res.status).toBe(201);
    const { user, verificationCode } = res.body.data as { user: { id: string }; verificationCode: string };
    const [row] = await h.sql`select code_hash from workspace.verification_codes where user_id = ${user.id}`;
    const keys = workspaceKeys(TEST_JWT_SECRET);
    expect(row?.code_hash).toBe(codeHash(keys.verificationCodes, 'verification-codes', user.id, verificationCode));
    // Before: keyed by JWT_SECRET, the access tokens' signing secret.
    expect(row?.code_hash).not.toBe(codeHash(TEST_JWT_SECRET, 'verification-codes', user.id, verificationCode));
    expect(keys.verificationCodes.equals(keys.accessTokens)).toBe(false);
    expect((await h.call('POST', '/auth/verify-code', { body: { email, code: verificationCode } })).status).toBe(200);
  });

  it('signs access tokens with their own derived key: one signed with JWT_SECRET itself is refused', async () => {
    const sid = sessionIdOf(world.adminW1.token);
    const claims = accessClaims(world.adminW1.id, sid, Math.floor(Date.now() / 1000), 3600);
    const raw = await h.call('GET', '/identity/me', { headers: { authorization: `Bearer ${signJwt(claims, TEST_JWT_SECRET)}` } });
    expect(raw.status).toBe(401);
    expect(raw.body.error.code).toBe('UNAUTHORIZED');
    const derived = await h.call('GET', '/identity/me', {
      headers: { authorization: `Bearer ${signJwt(claims, workspaceKeys(TEST_JWT_SECRET).accessTokens)}` },
    });
    expect(derived.status).toBe(200);
    expect(derived.body.data).toMatchObject({ id: world.adminW1.id });
  });
});

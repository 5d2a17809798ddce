import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { customerJwt, registerCustomer } from '../support/customers.js';
import { tokenFor } from '../support/fixtures.js';
import { PASSWORD, sessionIdOf, worldPerFile } from '../support/harness.js';
import { createMember, expectEnded } from '../support/session-ends.js';

// Issue 13 item 6 (docs/workspace-sessions-and-roles.md#when-access-tokens-stop-working): a stolen
// session ends. Each trigger below is the attack: someone holds a copied access token, the owner
// (or an admin, or the reuse detector) ends the session, and the copied token must stop working on
// the very next request. Logout keeps the spec's rule (the access token lives until it expires).

const { h, world } = worldPerFile();

const member = () => createMember(h.call, world.adminW1.token);

const me = (token: string) => h.call('GET', '/identity/me', { token });

const refusedAsEnded = async (token: string, reason: string) => expectEnded(await me(token), reason);

describe('user access tokens', () => {
  it('refresh-token reuse: every access token of the session stops at once', async () => {
    const { email } = await member();
    const stolen = await h.login(email);
    const rotated = await h.call('POST', '/identity/refresh', { body: { refreshToken: stolen.refreshToken } });
    expect(rotated.status).toBe(200);
    expect((await me(stolen.accessToken)).status).toBe(200);

    // The thief replays the refresh token it copied: reuse detected, the session is revoked.
    expect((await h.call('POST', '/identity/refresh', { body: { refreshToken: stolen.refreshToken } })).status).toBe(401);
    await refusedAsEnded(stolen.accessToken, 'refresh_token_reuse');
    await refusedAsEnded(rotated.body.data.accessToken, 'refresh_token_reuse');
    // A login of its own is another session and works.
    expect((await me((await h.login(email)).accessToken)).status).toBe(200);
  });

  it('password change: the other sessions stop at once, the one that changed it goes on', async () => {
    const { email } = await member();
    const stolen = await h.login(email);
    const owner = await h.login(email);
    const changed = await h.call('PATCH', '/api/v1/users/me/password', {
      token: owner.accessToken,
      body: { currentPassword: PASSWORD, newPassword: 'An0ther!Password' },
    });
    expect(changed.status, changed.text).toBe(200);
    await refusedAsEnded(stolen.accessToken, 'password_changed');
    expect((await me(owner.accessToken)).status).toBe(200);
  });

  it('an admin resets the password or suspends the user: every session stops at once', async () => {
    const reset = await member();
    const stolen = await h.login(reset.email);
    const put = await h.call('PUT', `/api/v1/users/${reset.id}`, { token: world.adminW1.token, body: { password: 'Reset!Passw0rd' } });
    expect(put.status, put.text).toBe(200);
    await refusedAsEnded(stolen.accessToken, 'password_reset');

    const suspended = await member();
    const token = (await h.login(suspended.email)).accessToken;
    await h.call('PUT', `/api/v1/users/${suspended.id}`, { token: world.adminW1.token, body: { status: 'suspended' } });
    expect((await me(token)).status).toBe(401);
  });

  it('the user is removed: its tokens stop at once', async () => {
    const removed = await member();
    const token = (await h.login(removed.email)).accessToken;
    const deleted = await h.call('DELETE', `/api/v1/users/${removed.id}`, { token: world.superAdmin.token });
    expect(deleted.status, deleted.text).toBeLessThan(300);
    expect((await me(token)).status).toBe(401);
  });

  it('a token whose session does not exist is refused: made up, of another user, or deleted', async () => {
    // The attack: whoever learns the signing secret (or a token of another user) mints tokens that
    // name no real session of the user. The signature alone must not be enough.
    const { email, id } = await member();
    await refusedAsEnded(tokenFor(id, randomUUID()), 'does not exist');
    await refusedAsEnded(tokenFor(id, sessionIdOf(world.clientW1.token)), 'does not exist');
    const session = await h.login(email);
    expect((await me(session.accessToken)).status).toBe(200);
    await h.sql`delete from workspace.sessions where id = ${sessionIdOf(session.accessToken)}`;
    await refusedAsEnded(session.accessToken, 'does not exist');
  });

  it('logout keeps the spec rule: the refresh token dies, the access token lives until it expires', async () => {
    const { email } = await member();
    const session = await h.login(email);
    expect((await h.call('POST', '/identity/logout', { body: { refreshToken: session.refreshToken } })).status).toBe(200);
    expect((await h.call('POST', '/identity/refresh', { body: { refreshToken: session.refreshToken } })).status).toBe(401);
    expect((await me(session.accessToken)).status).toBe(200);
  });
});

describe('customer access tokens', () => {
  const base = () => `/api/v1/workspaces/${world.w1.slug}/customers/auth`;
  const customerMe = (token: string) => h.call('GET', `${base()}/me`, { token });

  it('refresh-token reuse ends the customer session at once; logout keeps the spec rule', async () => {
    const stolen = await registerCustomer(h, world.w1.slug);
    const rotated = await h.call('POST', `${base()}/refresh`, { body: { refreshToken: stolen.refreshToken } });
    expect(rotated.status, rotated.text).toBe(200);
    expect((await customerMe(stolen.token)).status).toBe(200);
    expect((await h.call('POST', `${base()}/refresh`, { body: { refreshToken: stolen.refreshToken } })).status).toBe(401);
    for (const token of [stolen.token, rotated.body.data.accessToken]) {
      const res = await customerMe(token);
      expect(res.status, res.text).toBe(401);
      expect(res.body.error.message).toContain('refresh_token_reuse');
    }

    const other = await registerCustomer(h, world.w1.slug);
    expect((await h.call('POST', `${base()}/logout`, { body: { refreshToken: other.refreshToken } })).status).toBe(200);
    expect((await customerMe(other.token)).status).toBe(200);
  });

  it('a customer token whose session does not exist is refused: made up, of another customer, or deleted', async () => {
    const customer = await registerCustomer(h, world.w1.slug);
    const neighbour = await registerCustomer(h, world.w1.slug);
    for (const token of [
      customerJwt(customer.id, world.w1.id, randomUUID()),
      customerJwt(customer.id, world.w1.id, sessionIdOf(neighbour.token)),
    ]) {
      const res = await customerMe(token);
      expect(res.status, res.text).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'UNAUTHORIZED' });
      expect(res.body.error.message).toContain('does not exist');
    }
    expect((await customerMe(customer.token)).status).toBe(200);
    await h.sql`delete from workspace.customer_sessions where id = ${sessionIdOf(customer.token)}`;
    const deleted = await customerMe(customer.token);
    expect(deleted.status, deleted.text).toBe(401);
    expect(deleted.body.error.message).toContain('does not exist');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerCustomer } from '../support/customers.js';
import { type Answer, buildWorld, type Harness, PASSWORD, startHarness, startInstance, type World } from '../support/harness.js';
import { createMember, expectEnded } from '../support/session-ends.js';

// docs/adr/0030-workspace-principal-cache.md: each instance keeps the user (or customer) and session
// behind an access token between requests. Two instances share the database: a change made through
// A is refused at once on A, and on B as soon as B hears A's PostgreSQL NOTIFY. Both run with a
// principal-cache TTL of 10 minutes, so only the notification can explain B's refusal (B is asked
// again for a few seconds, the time a notification may take on a busy machine).

let a: Harness;
let b: Awaited<ReturnType<typeof startInstance>>;
let world: World;
const TTL = { WORKSPACE_PRINCIPAL_CACHE_TTL: '10m' };

beforeAll(async () => {
  a = await startHarness(TTL);
  world = await buildWorld(a);
  b = await startInstance(a, TTL);
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const member = () => createMember(a.call, world.adminW1.token);

const ME = '/identity/me';

/** Both instances answer 200 for the token (and keep its principal). */
async function servedByBoth(token: string, path = ME) {
  for (const call of [a.call, b.call]) {
    const res = await call('GET', path, { token });
    expect(res.status, res.text).toBe(200);
  }
}

/** Instance B's answer once it stops answering 200 (asked for at most 5 s). */
async function onceRefusedByB(token: string, path = ME): Promise<Answer> {
  let res = await b.call('GET', path, { token });
  for (let i = 0; i < 50 && res.status === 200; i++) {
    await new Promise((r) => setTimeout(r, 100));
    res = await b.call('GET', path, { token });
  }
  return res;
}

describe('a change made through instance A ends access on instance B too', () => {
  it('refresh-token reuse', async () => {
    const { email } = await member();
    const stolen = await a.login(email);
    await servedByBoth(stolen.accessToken);
    const rotated = await b.call('POST', '/identity/refresh', { body: { refreshToken: stolen.refreshToken } });
    expect(rotated.status, rotated.text).toBe(200);

    expect((await a.call('POST', '/identity/refresh', { body: { refreshToken: stolen.refreshToken } })).status).toBe(401);
    expectEnded(await a.call('GET', ME, { token: stolen.accessToken }), 'refresh_token_reuse');
    expectEnded(await onceRefusedByB(stolen.accessToken), 'refresh_token_reuse');
    expectEnded(await onceRefusedByB(rotated.body.data.accessToken), 'refresh_token_reuse');
  });

  it('password change: the other sessions end on both, the one that changed it goes on', async () => {
    const { email } = await member();
    const stolen = await a.login(email);
    const owner = await a.login(email);
    await servedByBoth(stolen.accessToken);
    await servedByBoth(owner.accessToken);
    const changed = await a.call('PATCH', '/api/v1/users/me/password', {
      token: owner.accessToken,
      body: { currentPassword: PASSWORD, newPassword: 'An0ther!Password' },
    });
    expect(changed.status, changed.text).toBe(200);
    expectEnded(await a.call('GET', ME, { token: stolen.accessToken }), 'password_changed');
    expectEnded(await onceRefusedByB(stolen.accessToken), 'password_changed');
    await servedByBoth(owner.accessToken);
  });

  it('suspension by an admin, and a role change', async () => {
    const suspended = await member();
    const token = (await a.login(suspended.email)).accessToken;
    await servedByBoth(token);
    const put = await a.call('PUT', `/api/v1/users/${suspended.id}`, { token: world.adminW1.token, body: { status: 'suspended' } });
    expect(put.status, put.text).toBe(200);
    expect((await a.call('GET', ME, { token })).status).toBe(401);
    expect((await onceRefusedByB(token)).status).toBe(401);

    // Roles are read from the cached user too: a demoted ADMIN loses its admin routes on B.
    const promoted = await member();
    const promotedToken = (await a.login(promoted.email)).accessToken;
    expect((await a.call('PUT', `/api/v1/users/${promoted.id}`, { token: world.adminW1.token, body: { role: 'admin' } })).status).toBe(200);
    const adminRoute = `/api/v1/workspaces/${world.w1.id}/customers`;
    await servedByBoth(promotedToken, adminRoute);
    expect((await a.call('PUT', `/api/v1/users/${promoted.id}`, { token: world.adminW1.token, body: { role: 'client' } })).status).toBe(
      200,
    );
    expect((await a.call('GET', adminRoute, { token: promotedToken })).status).toBe(403);
    expect((await onceRefusedByB(promotedToken, adminRoute)).status).toBe(403);
  });

  it('logout: the refresh token is dead on both; the access token lives until it expires (the spec rule), on both', async () => {
    const { email } = await member();
    const session = await a.login(email);
    await servedByBoth(session.accessToken);
    expect((await a.call('POST', '/identity/logout', { body: { refreshToken: session.refreshToken } })).status).toBe(200);
    expect((await b.call('POST', '/identity/refresh', { body: { refreshToken: session.refreshToken } })).status).toBe(401);
    await servedByBoth(session.accessToken);
  });

  it('a customer suspended through A is refused on B', async () => {
    const customer = await registerCustomer(a, world.w1.slug);
    const customerMe = `/api/v1/workspaces/${world.w1.slug}/customers/auth/me`;
    await servedByBoth(customer.token, customerMe);
    const suspend = await a.call('PUT', `/api/v1/customers/${customer.id}`, { token: world.adminW1.token, body: { status: 'suspended' } });
    expect(suspend.status, suspend.text).toBe(200);
    expect((await a.call('GET', customerMe, { token: customer.token })).status).toBe(401);
    expect((await onceRefusedByB(customer.token, customerMe)).status).toBe(401);
  });
});

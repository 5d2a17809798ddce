import { describe, expect, it } from 'vitest';
import { imageForm, insertUser } from '../support/fixtures.js';
import { auditEntries, createUser, PASSWORD, uniqueEmail, worldPerFile } from '../support/harness.js';

const { h, world } = worldPerFile();

const ids = (list: { id: string }[]) => list.map((u) => u.id);

describe('GET /api/v1/users', () => {
  it('lists every user for a SUPER_ADMIN, with filters, search and paging', async () => {
    const all = await h.call('GET', '/api/v1/users?limit=100', { token: world.superAdmin.token });
    expect(ids(all.body.data)).toEqual(
      expect.arrayContaining([world.adminW1.id, world.clientW1.id, world.adminW2.id, world.superAdmin.id]),
    );
    const clientsOfW1 = await h.call('GET', `/api/v1/users?workspaceId=${world.w1.id}&role=client`, { token: world.superAdmin.token });
    expect(ids(clientsOfW1.body.data)).toEqual([world.clientW1.id]);
    const search = await h.call('GET', `/api/v1/users?search=${encodeURIComponent(world.adminW2.email.slice(0, 12))}`, {
      token: world.superAdmin.token,
    });
    expect(ids(search.body.data)).toContain(world.adminW2.id);
    const page = await h.call('GET', '/api/v1/users?limit=1&page=2', { token: world.superAdmin.token });
    expect(page.body.data).toHaveLength(1);
    expect(page.body.meta.pagination).toMatchObject({ page: 2, limit: 1 });
  });

  it("scopes an ADMIN to its workspace's users; another workspace is 403", async () => {
    const mine = await h.call('GET', '/api/v1/users', { token: world.adminW1.token });
    expect(new Set(mine.body.data.map((u: { workspaceId: string }) => u.workspaceId))).toEqual(new Set([world.w1.id]));
    expect((await h.call('GET', `/api/v1/users?workspaceId=${world.w2.id}`, { token: world.adminW1.token })).status).toBe(403);
  });

  it('refuses bad filters', async () => {
    const res = await h.call('GET', '/api/v1/users?role=super_admin&status=gone', { token: world.superAdmin.token });
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['role', 'status']);
  });
});

describe('POST /api/v1/users', () => {
  it('creates a verified user in the ADMIN’s workspace by default, with the role upper-cased', async () => {
    const email = uniqueEmail('New.Client');
    const res = await h.call('POST', '/api/v1/users', {
      token: world.adminW1.token,
      body: { email: email.toUpperCase(), password: PASSWORD, role: 'client', firstName: 'New' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      email: email.toLowerCase(),
      role: 'CLIENT',
      workspaceId: world.w1.id,
      emailVerified: true,
      lastName: null,
    });
    const [entry] = await auditEntries(h, { action: 'user.create', resourceId: res.body.data.id });
    expect(entry?.changes).toMatchObject({ password: { from: null, to: '[redacted]' }, role: { to: 'CLIENT' } });
    expect(JSON.stringify(entry)).not.toContain(PASSWORD);
    expect((await h.login(email)).user.id).toBe(res.body.data.id);
  });

  it('answers 409 for an existing e-mail and 400 for a weak password or unknown role', async () => {
    const dup = await h.call('POST', '/api/v1/users', {
      token: world.superAdmin.token,
      body: { email: world.clientW1.email.toUpperCase(), password: PASSWORD, role: 'client' },
    });
    expect(dup.status).toBe(409);
    const weak = await h.call('POST', '/api/v1/users', {
      token: world.superAdmin.token,
      body: { email: uniqueEmail(), password: 'short', role: 'superadmin' },
    });
    expect(weak.status).toBe(400);
    expect(weak.body.error.details.errors.map((e: { field: string }) => e.field)).toEqual(['role']);
    const policy = await h.call('POST', '/api/v1/users', {
      token: world.superAdmin.token,
      body: { email: uniqueEmail(), password: 'nouppercase1!x', role: 'client' },
    });
    expect(policy.body.error.details.errors).toEqual([{ field: 'password', reason: 'must contain an upper-case letter' }]);
  });

  it('keeps an ADMIN inside its workspace, and needs an existing workspace', async () => {
    const other = await h.call('POST', '/api/v1/users', {
      token: world.adminW1.token,
      body: { email: uniqueEmail(), password: PASSWORD, role: 'admin', workspaceId: world.w2.id },
    });
    expect(other.status).toBe(403);
    const none = await h.call('POST', '/api/v1/users', {
      token: world.adminW1.token,
      body: { email: uniqueEmail(), password: PASSWORD, role: 'admin', workspaceId: null },
    });
    expect(none.status).toBe(403);
    const lone = await insertUser(h, { role: 'ADMIN', workspaceId: null, passwordHashOf: world.clientW1.id });
    const lonely = await h.call('POST', '/api/v1/users', {
      token: lone.token,
      body: { email: uniqueEmail(), password: PASSWORD, role: 'client' },
    });
    expect(lonely.body.error.code).toBe('USER_HAS_NO_WORKSPACE');
    const ghost = await h.call('POST', '/api/v1/users', {
      token: world.superAdmin.token,
      body: { email: uniqueEmail(), password: PASSWORD, role: 'client', workspaceId: '00000000-0000-4000-8000-000000000000' },
    });
    expect(ghost.status).toBe(400);
    expect(ghost.body.error.details.errors).toEqual([{ field: 'workspaceId', reason: 'is not an existing workspace' }]);
  });
});

describe('GET /api/v1/users/{id}', () => {
  it("answers 404 for another tenant's user and for a SUPER_ADMIN seen by an ADMIN", async () => {
    expect((await h.call('GET', `/api/v1/users/${world.adminW2.id}`, { token: world.adminW1.token })).status).toBe(404);
    expect((await h.call('GET', `/api/v1/users/${world.superAdmin.id}`, { token: world.adminW1.token })).status).toBe(404);
    expect((await h.call('GET', `/api/v1/users/${world.adminW2.id}`, { token: world.superAdmin.token })).body.data.email).toBe(
      world.adminW2.email,
    );
  });
});

describe('PUT /api/v1/users/{id}', () => {
  it('changes role, name and e-mail, and records each change', async () => {
    const user = await createUser(h, world.adminW1.token, 'client', world.w1.id);
    const email = uniqueEmail('renamed');
    const res = await h.call('PUT', `/api/v1/users/${user.id}`, {
      token: world.adminW1.token,
      body: { role: 'admin', firstName: 'Promoted', email },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ role: 'ADMIN', firstName: 'Promoted', email });
    const [entry] = await auditEntries(h, { action: 'user.update', resourceId: user.id });
    expect(entry?.changes).toMatchObject({ role: { from: 'CLIENT', to: 'ADMIN' }, firstName: { from: 'client', to: 'Promoted' } });
    const taken = await h.call('PUT', `/api/v1/users/${user.id}`, { token: world.adminW1.token, body: { email: world.clientW1.email } });
    expect(taken.status).toBe(409);
  });

  it('ends the sessions of a suspended user at once, and of a user whose password was reset', async () => {
    const user = await createUser(h, world.superAdmin.token, 'client', world.w1.id);
    const session = await h.login(user.email);
    const reset = await h.call('PUT', `/api/v1/users/${user.id}`, { token: world.adminW1.token, body: { password: 'Reset!Passw0rd1' } });
    expect(reset.status).toBe(200);
    expect((await h.call('POST', '/identity/refresh', { body: { refreshToken: session.refreshToken } })).status).toBe(401);
    const [entry] = await auditEntries(h, { action: 'user.update', resourceId: user.id });
    expect(entry?.changes).toEqual({ password: { from: '[redacted]', to: '[redacted]' } });
    const again = await h.login(user.email, 'Reset!Passw0rd1');
    await h.call('PUT', `/api/v1/users/${user.id}`, { token: world.adminW1.token, body: { status: 'suspended' } });
    expect((await h.call('GET', '/identity/me', { token: again.accessToken })).status).toBe(401);
    const login = await h.call('POST', '/identity/login', { body: { email: user.email, password: 'Reset!Passw0rd1' } });
    expect(login.status).toBe(401);
    expect(login.body.error.details).toEqual({ reason: 'account_suspended' });
  });

  it('refuses changes to your own role, status, workspace or password, and moves to another tenant', async () => {
    for (const body of [{ role: 'client' }, { status: 'inactive' }, { workspaceId: null }, { password: 'N3w!Password-x' }]) {
      expect((await h.call('PUT', `/api/v1/users/${world.adminW1.id}`, { token: world.adminW1.token, body })).status).toBe(403);
    }
    const user = await createUser(h, world.adminW1.token, 'client', world.w1.id);
    expect(
      (await h.call('PUT', `/api/v1/users/${user.id}`, { token: world.adminW1.token, body: { workspaceId: world.w2.id } })).status,
    ).toBe(403);
    const removed = await h.call('PUT', `/api/v1/users/${user.id}`, { token: world.adminW1.token, body: { workspaceId: null } });
    expect(removed.body.data.workspaceId).toBeNull();
    // No longer in W1: out of the ADMIN's reach.
    expect((await h.call('GET', `/api/v1/users/${user.id}`, { token: world.adminW1.token })).status).toBe(404);
    expect(
      (await h.call('PUT', `/api/v1/users/${world.superAdmin.id}`, { token: world.adminW1.token, body: { firstName: 'x' } })).status,
    ).toBe(404);
    expect((await h.call('PUT', `/api/v1/users/${user.id}`, { token: world.superAdmin.token, body: {} })).status).toBe(400);
  });
});

describe('DELETE /api/v1/users/{id}', () => {
  it('deletes the user, whose tokens stop working; keeps its audit entries', async () => {
    const user = await createUser(h, world.adminW1.token, 'client', world.w1.id);
    const session = await h.login(user.email);
    await h.call('PUT', '/api/v1/users/me', { token: session.accessToken, body: { firstName: 'Leaving' } });
    const res = await h.call('DELETE', `/api/v1/users/${user.id}`, { token: world.adminW1.token });
    expect(res.status).toBe(200);
    expect(res.body.data.message).toContain(user.email);
    expect((await h.call('GET', '/identity/me', { token: session.accessToken })).status).toBe(401);
    expect(await h.sql`select 1 from workspace.sessions where user_id = ${user.id}`).toHaveLength(0);
    expect((await auditEntries(h, { userId: user.id })).length).toBeGreaterThan(0);
    expect((await h.call('DELETE', `/api/v1/users/${user.id}`, { token: world.adminW1.token })).status).toBe(404);
    const trail = await h.call('GET', `/api/v1/users/${user.id}/audit-logs`, { token: world.superAdmin.token });
    expect(trail.body.data.map((e: { action: string }) => e.action)).toContain('user.profile_update');
  });

  it('refuses to delete yourself', async () => {
    const res = await h.call('DELETE', `/api/v1/users/${world.superAdmin.id}`, { token: world.superAdmin.token });
    expect(res.status).toBe(403);
  });
});

describe('/api/v1/users/me', () => {
  it('shows and updates your own name only', async () => {
    const me = await h.call('GET', '/api/v1/users/me', { token: world.clientW1.token });
    expect(me.body.data.id).toBe(world.clientW1.id);
    const res = await h.call('PUT', '/api/v1/users/me', { token: world.clientW1.token, body: { firstName: 'Clara', lastName: null } });
    expect(res.body.data).toMatchObject({ firstName: 'Clara', lastName: null });
    const role = await h.call('PUT', '/api/v1/users/me', { token: world.clientW1.token, body: { role: 'admin' } });
    expect(role.status).toBe(400);
    expect(role.body.error.details.errors).toEqual([{ field: 'role', reason: 'is not a known parameter' }]);
  });

  it('changes the password with the current one, ending the other sessions but not this one', async () => {
    const user = await createUser(h, world.adminW1.token, 'client', world.w1.id);
    const [a, b] = [await h.login(user.email), await h.login(user.email)];
    const wrong = await h.call('PATCH', '/api/v1/users/me/password', {
      token: a.accessToken,
      body: { currentPassword: 'Wrong!Passw0rd', newPassword: 'N3w!Password-x' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.errors[0].field).toBe('currentPassword');
    const same = await h.call('PATCH', '/api/v1/users/me/password', {
      token: a.accessToken,
      body: { currentPassword: PASSWORD, newPassword: PASSWORD },
    });
    expect(same.body.error.details.errors).toEqual([{ field: 'newPassword', reason: 'must differ from the current password' }]);
    const res = await h.call('PATCH', '/api/v1/users/me/password', {
      token: a.accessToken,
      body: { currentPassword: PASSWORD, newPassword: 'N3w!Password-x' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ message: 'Password changed', otherSessionsRevoked: 1 });
    expect((await h.call('POST', '/identity/refresh', { body: { refreshToken: b.refreshToken } })).status).toBe(401);
    expect((await h.call('POST', '/identity/refresh', { body: { refreshToken: a.refreshToken } })).status).toBe(200);
    expect((await h.call('POST', '/identity/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(401);
    const [entry] = await auditEntries(h, { action: 'user.password_change', userId: user.id });
    expect(entry?.changes).toEqual({ password: { from: '[redacted]', to: '[redacted]' } });
    expect(JSON.stringify(entry)).not.toContain('N3w!Password-x');
  });

  it('uploads and removes your avatar', async () => {
    const up = await h.call('POST', '/api/v1/users/me/avatar', { token: world.adminW1.token, form: imageForm() });
    expect(up.status).toBe(200);
    expect((await h.call('GET', up.body.data.avatarPath)).status).toBe(200);
    const down = await h.call('DELETE', '/api/v1/users/me/avatar', { token: world.adminW1.token });
    expect(down.status).toBe(204);
    expect((await h.call('GET', up.body.data.avatarPath)).status).toBe(404);
    expect((await h.call('GET', '/api/v1/users/me', { token: world.adminW1.token })).body.data.avatarPath).toBeNull();
  });
});

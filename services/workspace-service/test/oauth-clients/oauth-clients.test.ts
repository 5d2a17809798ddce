import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { auditEntries, type Json, worldPerFile } from '../support/harness.js';
import { bearer, callPayments, newTenant, paymentsToken } from '../support/integrations.js';

// A workspace's OAuth clients against a real payments-service: `resource:action` scopes mapped to
// payments scopes, the secret shown once, tokens that work and stop working.

const { h, world } = worldPerFile({}, { peers: true });

/** A tenant with sandbox credentials (the platform its clients belong to by default). */
async function tenantWithSandbox() {
  const t = await newTenant(h, world);
  const res = await h.call('POST', `${t.base}/sandbox-credentials`, { token: t.admin.token });
  if (res.status !== 201) throw new Error(`sandbox: ${res.status} ${res.text}`);
  return { ...t, sandbox: res.body.data as Json };
}

describe('POST /workspaces/{id}/oauth/clients', () => {
  it('needs a platform: without sandbox credentials it answers 409 and creates nothing', async () => {
    const t = await newTenant(h, world);
    const res = await h.call('POST', `${t.base}/oauth/clients`, {
      token: t.admin.token,
      body: { name: 'Backend', scopes: ['transactions:read'] },
    });
    expect([res.status, res.body.error.code]).toEqual([409, 'CONFLICT']);
    expect((await h.sql`select count(*)::int as n from payments.oauth_clients where workspace_id = ${t.workspace.id}`)[0]?.n).toBe(0);
  });

  it('creates a client with payments scopes for the resource:action ones, the secret shown once, and its tokens work', async () => {
    const t = await tenantWithSandbox();
    const res = await h.call('POST', `${t.base}/oauth/clients`, {
      token: t.admin.token,
      body: { name: 'Payouts backend', description: 'moves money', scopes: ['transactions:read', 'transactions:move', 'disputes:read'] },
    });
    expect(res.status).toBe(201);
    const client = res.body.data;
    expect(client).toMatchObject({
      name: 'Payouts backend',
      description: 'moves money',
      platformId: t.sandbox.platformId,
      workspaceId: t.workspace.id,
      scopes: ['transactions:read', 'transactions:move', 'disputes:read'],
      grantTypes: ['client_credentials'],
      isActive: true,
      warning: expect.any(String),
    });
    expect(client.clientId).toMatch(/^hf_client_/);
    expect(client.clientSecret).toMatch(/^hf_secret_/);
    const [row] = await h.sql`select scopes from payments.oauth_clients where client_id = ${client.clientId}`;
    expect(row?.scopes).toEqual(['read:transactions', 'move:transactions', 'read:disputes']);

    const token = await paymentsToken(h, client);
    const me = await callPayments(h, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) });
    expect(me.body).toMatchObject({ id: t.sandbox.platformId, workspaceId: t.workspace.id });

    const [entry] = await auditEntries(h, { action: 'oauth_client.create', resourceId: client.clientId });
    expect(entry).toMatchObject({ success: true, user_id: t.admin.id, workspace_id: t.workspace.id });
    expect(entry?.changes).toMatchObject({ scopes: { from: null, to: ['transactions:read', 'transactions:move', 'disputes:read'] } });
    expect(JSON.stringify(entry)).not.toContain(client.clientSecret);
  });

  it('refuses scopes outside the offered list (payments form, operator scopes, unknown) and bad fields', async () => {
    const t = await tenantWithSandbox();
    for (const body of [
      { name: 'x', scopes: ['read:transactions'] },
      { name: 'x', scopes: ['platform:admin'] },
      { name: 'x', scopes: ['api-keys:manage'] },
      { name: 'x', scopes: [] },
      { name: '', scopes: ['transactions:read'] },
      { name: 'x', scopes: ['transactions:read'], grantTypes: ['password'] },
      { name: 'x', scopes: ['transactions:read'], platformId: 'nope' },
    ]) {
      const res = await h.call('POST', `${t.base}/oauth/clients`, { token: t.admin.token, body });
      expect([res.status, res.body.error.code], JSON.stringify(body)).toEqual([400, 'VALIDATION_ERROR']);
    }
    // Another workspace's platform is not this workspace's.
    const other = await tenantWithSandbox();
    const foreign = await h.call('POST', `${t.base}/oauth/clients`, {
      token: t.admin.token,
      body: { name: 'x', scopes: ['transactions:read'], platformId: other.sandbox.platformId },
    });
    expect(foreign.status).toBe(404);
    // Only the sandbox client exists.
    expect((await h.sql`select count(*)::int as n from payments.oauth_clients where workspace_id = ${t.workspace.id}`)[0]?.n).toBe(1);
  });
});

describe('a credential a member mints can do no more than the member', () => {
  it('a CLIENT mints no client that moves money, grants no such scope to one, and changes none that has one', async () => {
    const t = await tenantWithSandbox();
    const count = async () =>
      (await h.sql`select count(*)::int as n from payments.oauth_clients where workspace_id = ${t.workspace.id}`)[0]?.n as number;
    const before = await count();
    for (const scopes of [['transactions:move'], ['transactions:read', 'transactions:write'], ['transactions:read', 'disputes:write']]) {
      const res = await h.call('POST', `${t.base}/oauth/clients`, { token: t.client.token, body: { name: 'Escalate', scopes } });
      expect([res.status, res.body.error?.code], JSON.stringify(scopes)).toEqual([403, 'FORBIDDEN']);
      expect(res.body.error.details.scopes).toEqual(scopes.filter((s) => s !== 'transactions:read'));
    }
    expect(await count()).toBe(before);

    // What it may do itself: read transactions, manage webhooks, read the platform.
    const own = await h.call('POST', `${t.base}/oauth/clients`, {
      token: t.client.token,
      body: { name: 'Reader', scopes: ['transactions:read', 'webhooks:write', 'platform:read'] },
    });
    expect(own.status, own.text).toBe(201);
    const widened = await h.call('PATCH', `${t.base}/oauth/clients/${own.body.data.clientId}`, {
      token: t.client.token,
      body: { scopes: ['transactions:read', 'transactions:move'] },
    });
    expect([widened.status, widened.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    const [row] = await h.sql`select scopes from payments.oauth_clients where client_id = ${own.body.data.clientId}`;
    expect(row?.scopes).toEqual(['read:transactions', 'write:webhooks', 'read:platform']);

    // The sandbox client moves money: a CLIENT may not change it (its name, its state)...
    const sandboxPath = `${t.base}/oauth/clients/${t.sandbox.oauthClient.clientId}`;
    const touched = await h.call('PATCH', sandboxPath, { token: t.client.token, body: { name: 'mine now' } });
    expect([touched.status, touched.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    // ...nor delete it, revoke its tokens or read its usage (issue 28 item 6: a CLIENT deleted an ADMIN's money-moving client)...
    for (const [method, path] of [
      ['DELETE', sandboxPath],
      ['POST', `${sandboxPath}/revoke-tokens`],
      ['GET', `${sandboxPath}/stats`],
    ] as const) {
      const res = await h.call(method, path, { token: t.client.token });
      expect([res.status, res.body.error?.code], `${method} ${path}`).toEqual([403, 'FORBIDDEN']);
    }
    const [still] =
      await h.sql`select deleted_at, is_active from payments.oauth_clients where client_id = ${t.sandbox.oauthClient.clientId}`;
    expect(still).toEqual({ deleted_at: null, is_active: true });
    // ...an ADMIN may.
    expect((await h.call('PATCH', sandboxPath, { token: t.admin.token, body: { description: 'sandbox' } })).status).toBe(200);
  });
});

describe('the other OAuth client operations', () => {
  it('list, read, change, revoke tokens, count them and delete', async () => {
    const t = await tenantWithSandbox();
    const created = (
      await h.call('POST', `${t.base}/oauth/clients`, { token: t.admin.token, body: { name: 'Reporting', scopes: ['transactions:read'] } })
    ).body.data;
    const path = `${t.base}/oauth/clients/${created.clientId}`;

    const list = await h.call('GET', `${t.base}/oauth/clients`, { token: t.client.token });
    expect(list.status).toBe(200);
    expect(list.body.data.clients.map((c: { clientId: string }) => c.clientId).sort()).toEqual(
      [created.clientId, t.sandbox.oauthClient.clientId].sort(),
    );
    expect(list.text).not.toContain(created.clientSecret);
    expect(list.text).not.toMatch(/clientSecret/);
    // The sandbox client's scopes read resource first too.
    const sandboxClient = list.body.data.clients.find((c: { clientId: string }) => c.clientId === t.sandbox.oauthClient.clientId);
    expect(sandboxClient.scopes).toContain('transactions:move');

    expect((await h.call('GET', path, { token: t.client.token })).body.data).toMatchObject({ id: created.id, name: 'Reporting' });
    expect((await h.call('GET', `${t.base}/oauth/clients/${created.id}`, { token: t.client.token })).body.data.clientId).toBe(
      created.clientId,
    );

    const token = await paymentsToken(h, created);
    const stats = await h.call('GET', `${path}/stats`, { token: t.client.token });
    expect(stats.body.data).toEqual({ totalTokens: 1, activeTokens: 1, revokedTokens: 0 });

    const renamed = await h.call('PATCH', path, {
      token: t.admin.token,
      body: { name: 'Reporting v2', scopes: ['transactions:read', 'disputes:read'] },
    });
    expect(renamed.body.data).toMatchObject({ name: 'Reporting v2', scopes: ['transactions:read', 'disputes:read'] });
    const [update] = await auditEntries(h, { action: 'oauth_client.update', resourceId: created.clientId });
    expect(update?.changes).toEqual({
      name: { from: 'Reporting', to: 'Reporting v2' },
      scopes: { from: ['transactions:read'], to: ['transactions:read', 'disputes:read'] },
    });

    const revoked = await h.call('POST', `${path}/revoke-tokens`, { token: t.admin.token });
    expect(revoked.body.data).toEqual({ count: 1 });
    expect((await callPayments(h, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(401);
    expect((await h.call('GET', `${path}/stats`, { token: t.admin.token })).body.data).toEqual({
      totalTokens: 1,
      activeTokens: 0,
      revokedTokens: 1,
    });

    // Deactivated: no new tokens.
    expect((await h.call('PATCH', path, { token: t.admin.token, body: { isActive: false } })).body.data.isActive).toBe(false);
    const refused = await callPayments(h, 'POST', '/api/v2/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: created.clientId, client_secret: created.clientSecret },
    });
    expect(refused.status).toBe(401);

    const deleted = await h.call('DELETE', path, { token: t.admin.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await h.call('GET', path, { token: t.admin.token })).status).toBe(404);
    const actions = (await auditEntries(h, { resourceId: created.clientId })).map((e) => e.action).reverse();
    expect(actions).toEqual([
      'oauth_client.create',
      'oauth_client.update',
      'oauth_client.revoke_tokens',
      'oauth_client.update',
      'oauth_client.delete',
    ]);
  });

  it("keeps a workspace away from another's clients (404) and from another workspace (403)", async () => {
    const mine = await tenantWithSandbox();
    const theirs = await tenantWithSandbox();
    const foreign = theirs.sandbox.oauthClient.clientId;
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { isActive: false }],
      ['DELETE', '', undefined],
      ['POST', '/revoke-tokens', undefined],
      ['GET', '/stats', undefined],
    ] as const) {
      const res = await h.call(method, `${mine.base}/oauth/clients/${foreign}${suffix}`, { token: mine.admin.token, body });
      expect([res.status, res.body.error.code], `${method} ${suffix}`).toEqual([404, 'NOT_FOUND']);
    }
    const [row] = await h.sql`select is_active, deleted_at from payments.oauth_clients where client_id = ${foreign}`;
    expect(row).toEqual({ is_active: true, deleted_at: null });
    expect((await h.call('GET', `${theirs.base}/oauth/clients`, { token: mine.admin.token })).status).toBe(403);
    expect((await h.call('GET', `/api/v1/workspaces/${randomUUID()}/oauth/clients`, { token: world.superAdmin.token })).status).toBe(404);
  });

  it('answers 503 while payments does not answer', async () => {
    const t = await tenantWithSandbox();
    await h.peers!.payments.stop();
    try {
      const res = await h.call('GET', `${t.base}/oauth/clients`, { token: t.admin.token });
      expect([res.status, res.body.error.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    } finally {
      await h.peers!.payments.start();
    }
  });
});

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WorkspaceBilling } from '@holdfast/contracts';
import { describe, expect, it } from 'vitest';
import { imageForm, insertUser, JPEG, PNG } from '../support/fixtures.js';
import { auditEntries, createWorkspace, worldPerFile } from '../support/harness.js';

const { h, world } = worldPerFile();

/** A signed-up ADMIN without a workspace yet (inserted, token minted). */
async function loneAdmin() {
  return insertUser(h, { role: 'ADMIN', workspaceId: null, passwordHashOf: world.clientW1.id });
}

describe('POST /api/v1/workspaces', () => {
  it('creates a pending workspace with a slug from the name, and makes a lone ADMIN its first member', async () => {
    const admin = await loneAdmin();
    const res = await h.call('POST', '/api/v1/workspaces', {
      token: admin.token,
      body: { name: 'Café Øresund & Co.', email: 'Ops@Cafe.test', metadata: { tier: 1 } },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Café Øresund & Co.',
      slug: 'cafe-resund-co',
      email: 'ops@cafe.test',
      status: 'pending',
      metadata: { tier: 1 },
      billingEnabled: false,
    });
    const [user] = await h.sql`select workspace_id from workspace.users where id = ${admin.id}`;
    expect(user?.workspace_id).toBe(res.body.data.id);
    const me = await h.call('GET', '/api/v1/workspaces/me', { token: admin.token });
    expect(me.body.data.id).toBe(res.body.data.id);
    const [entry] = await auditEntries(h, { action: 'workspace.create', resourceId: res.body.data.id });
    expect(entry).toMatchObject({ success: true, user_id: admin.id, workspace_id: res.body.data.id });
    expect(entry?.changes).toMatchObject({ slug: { from: null, to: 'cafe-resund-co' }, status: { from: null, to: 'pending' } });
  });

  it('adds a random suffix when the generated slug is taken, and answers 409 for a taken explicit slug', async () => {
    const first = await createWorkspace(h, world.superAdmin.token, 'Same Name');
    const second = await createWorkspace(h, world.superAdmin.token, 'Same Name');
    expect(first.slug).toBe('same-name');
    expect(second.slug).toMatch(/^same-name-[0-9a-f]{6}$/);
    const dup = await h.call('POST', '/api/v1/workspaces', {
      token: world.superAdmin.token,
      body: { name: 'X', email: 'x@x.test', slug: 'same-name' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'CONFLICT', details: { field: 'slug' } });
  });

  it('refuses a slug outside the pattern, a name too long, and unknown fields', async () => {
    const res = await h.call('POST', '/api/v1/workspaces', {
      token: world.superAdmin.token,
      body: { name: 'n'.repeat(256), email: 'x@x.test', slug: 'Bad_Slug', color: 'red' },
    });
    expect(res.status).toBe(400);
    const fields = res.body.error.details.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['color', 'name', 'slug']);
  });

  it('lets only a SUPER_ADMIN choose the status', async () => {
    const admin = await loneAdmin();
    const refused = await h.call('POST', '/api/v1/workspaces', {
      token: admin.token,
      body: { name: 'Eager', email: 'e@e.test', status: 'active' },
    });
    expect(refused.status).toBe(403);
    const [user] = await h.sql`select workspace_id from workspace.users where id = ${admin.id}`;
    expect(user?.workspace_id).toBeNull();
    const ok = await h.call('POST', '/api/v1/workspaces', {
      token: world.superAdmin.token,
      body: { name: 'Active One', email: 'a@a.test', status: 'active' },
    });
    expect(ok.body.data.status).toBe('active');
  });

  it('answers 409 to an ADMIN that already belongs to a workspace', async () => {
    const res = await h.call('POST', '/api/v1/workspaces', { token: world.adminW1.token, body: { name: 'Second', email: 's@s.test' } });
    expect(res.status).toBe(409);
    expect(res.body.error.details).toEqual({ workspaceId: world.w1.id });
  });
});

describe('GET /api/v1/workspaces', () => {
  it('pages all workspaces for a SUPER_ADMIN and only its own for an ADMIN', async () => {
    const all = await h.call('GET', '/api/v1/workspaces?limit=2&page=1', { token: world.superAdmin.token });
    expect(all.body.data).toHaveLength(2);
    expect(all.body.meta.pagination).toMatchObject({ page: 1, limit: 2 });
    expect(all.body.meta.pagination.total).toBeGreaterThanOrEqual(2);
    const mine = await h.call('GET', '/api/v1/workspaces', { token: world.adminW2.token });
    expect(mine.body.data.map((w: { id: string }) => w.id)).toEqual([world.w2.id]);
    const filtered = await h.call('GET', `/api/v1/workspaces?search=${world.w1.slug}`, { token: world.superAdmin.token });
    expect(filtered.body.data.map((w: { id: string }) => w.id)).toContain(world.w1.id);
    expect((await h.call('GET', '/api/v1/workspaces?limit=101', { token: world.superAdmin.token })).status).toBe(400);
    expect((await h.call('GET', '/api/v1/workspaces?sort=name', { token: world.superAdmin.token })).status).toBe(400);
  });
});

describe('GET and PUT /api/v1/workspaces/me and /{id}', () => {
  it('answers 400 USER_HAS_NO_WORKSPACE to a user without one', async () => {
    const admin = await loneAdmin();
    const res = await h.call('GET', '/api/v1/workspaces/me', { token: admin.token });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('USER_HAS_NO_WORKSPACE');
  });

  it('lets an ADMIN update its workspace but not its status, refuses a CLIENT; records the change', async () => {
    // Issue 28 item 6: a CLIENT changed the workspace's name, e-mail, webhookUrl and walletProvider here.
    const before = (await h.call('GET', '/api/v1/workspaces/me', { token: world.adminW1.token })).body.data;
    const byClient = await h.call('PUT', '/api/v1/workspaces/me', {
      token: world.clientW1.token,
      body: { name: 'Renamed By A Client', webhookUrl: 'https://attacker.test/hook', walletProvider: 'PLATFORM' },
    });
    expect(byClient.status).toBe(403);
    expect(byClient.body.error.code).toBe('FORBIDDEN');
    expect((await h.call('GET', '/api/v1/workspaces/me', { token: world.adminW1.token })).body.data).toEqual(before);
    const res = await h.call('PUT', '/api/v1/workspaces/me', {
      token: world.adminW1.token,
      body: { name: 'Tenant One Renamed', webhookUrl: 'https://one.test/hook' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'Tenant One Renamed', webhookUrl: 'https://one.test/hook', slug: world.w1.slug });
    const status = await h.call('PUT', '/api/v1/workspaces/me', { token: world.adminW1.token, body: { status: 'suspended' } });
    expect(status.status).toBe(403);
    const [entry] = await auditEntries(h, { action: 'workspace.update', resourceId: world.w1.id });
    expect(entry?.success).toBe(false);
    const [ok] = (await auditEntries(h, { action: 'workspace.update', resourceId: world.w1.id })).filter((e) => e.success);
    expect(ok?.changes).toMatchObject({ name: { from: 'Tenant One', to: 'Tenant One Renamed' } });
  });

  it('lets a SUPER_ADMIN activate a workspace', async () => {
    const pending = await createWorkspace(h, world.superAdmin.token, 'Awaiting Approval', { approve: false });
    const res = await h.call('PUT', `/api/v1/workspaces/${pending.id}`, { token: world.superAdmin.token, body: { status: 'active' } });
    expect(res.body.data.status).toBe('active');
  });

  it('refuses an empty update, a bad URL, an avatar path that is not ours, and oversized metadata', async () => {
    const path = `/api/v1/workspaces/${world.w1.id}`;
    expect((await h.call('PUT', path, { token: world.adminW1.token, body: {} })).status).toBe(400);
    const bad = await h.call('PUT', path, {
      token: world.adminW1.token,
      body: { webhookUrl: 'ftp://x.test', avatarPath: '/avatars/someone-elses.png', metadata: { blob: 'x'.repeat(17_000) } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors.map((e: { field: string }) => e.field).sort()).toEqual(['avatarPath', 'metadata', 'webhookUrl']);
  });

  it('answers 404 for an unknown workspace to a SUPER_ADMIN and 403 to anyone else', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await h.call('GET', `/api/v1/workspaces/${unknown}`, { token: world.superAdmin.token })).status).toBe(404);
    expect((await h.call('GET', `/api/v1/workspaces/${unknown}`, { token: world.adminW1.token })).status).toBe(403);
    expect((await h.call('GET', '/api/v1/workspaces/not-a-uuid', { token: world.superAdmin.token })).status).toBe(400);
  });
});

describe('avatars', () => {
  it('stores a PNG, serves it with safe headers, and removes the replaced file', async () => {
    const first = await h.call('POST', `/api/v1/workspaces/${world.w1.id}/avatar`, { token: world.adminW1.token, form: imageForm() });
    expect(first.status).toBe(200);
    const path = first.body.data.avatarPath as string;
    expect(path).toMatch(/^\/avatars\/[0-9a-f-]{36}\.png$/);
    const file = await h.call('GET', path);
    expect(file.status).toBe(200);
    expect(file.headers).toMatchObject({
      'content-type': 'image/png',
      'x-content-type-options': 'nosniff',
      'cache-control': 'public, max-age=31536000, immutable',
    });
    const second = await h.call('POST', `/api/v1/workspaces/${world.w1.id}/avatar`, {
      token: world.adminW1.token,
      form: imageForm(JPEG, 'image/jpeg', 'file', 'a.jpg'),
    });
    expect(second.body.data.avatarPath).toMatch(/\.jpg$/);
    expect(existsSync(join(h.storageDir, path.slice(1)))).toBe(false);
    expect((await h.call('GET', path)).status).toBe(404);
  });

  it('checks the bytes against the declared type, refuses other types and oversized files', async () => {
    const url = `/api/v1/users/me/avatar`;
    const lie = await h.call('POST', url, { token: world.clientW1.token, form: imageForm(Buffer.from('<svg onload="x"/>'), 'image/png') });
    expect(lie.status).toBe(400);
    expect(lie.body.error.details.errors[0].field).toBe('file');
    const svg = await h.call('POST', url, {
      token: world.clientW1.token,
      form: imageForm(Buffer.from('<svg/>'), 'image/svg+xml', 'file', 'a.svg'),
    });
    expect(svg.status).toBe(415);
    const big = await h.call('POST', url, {
      token: world.clientW1.token,
      form: imageForm(Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]), 'image/png'),
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const json = await h.call('POST', url, { token: world.clientW1.token, body: { file: 'x' } });
    expect(json.status).toBe(415);
    const wrongField = await h.call('POST', url, { token: world.clientW1.token, form: imageForm(PNG, 'image/png', 'image') });
    expect(wrongField.status).toBe(400);
    const [user] = await h.sql`select avatar_path from workspace.users where id = ${world.clientW1.id}`;
    expect(user?.avatar_path).toBeNull();
  });

  it('answers 404 for unknown or malformed files', async () => {
    expect((await h.call('GET', '/avatars/00000000-0000-4000-8000-000000000000.png')).status).toBe(404);
    expect((await h.call('GET', '/avatars/..%2F..%2Fetc%2Fpasswd')).status).toBe(400);
  });
});

describe('billing', () => {
  it('starts at the defaults; an ADMIN sets contact fields, only a SUPER_ADMIN enables billing or changes the plan', async () => {
    const path = `/api/v1/workspaces/${world.w2.id}/billing`;
    const initial = await h.call('GET', path, { token: world.adminW2.token });
    // The defaults are what the API documents as the example of a workspace's billing.
    const [documented] = WorkspaceBilling.examples as WorkspaceBilling[];
    expect(initial.body.data).toEqual({ ...documented, workspaceId: world.w2.id });
    const contact = await h.call('PATCH', path, {
      token: world.adminW2.token,
      body: { billingEmail: 'AP@Two.test', companyName: 'Two Ltd', taxId: 'GB123' },
    });
    expect(contact.body.data).toMatchObject({ billingEmail: 'ap@two.test', companyName: 'Two Ltd', taxId: 'GB123', plan: 'sandbox' });
    expect((await h.call('PATCH', path, { token: world.adminW2.token, body: { billingEnabled: true } })).status).toBe(403);
    expect((await h.call('PATCH', path, { token: world.adminW2.token, body: { plan: 'enterprise' } })).status).toBe(403);
    const operator = await h.call('PATCH', path, { token: world.superAdmin.token, body: { billingEnabled: true, plan: 'standard' } });
    expect(operator.body.data).toMatchObject({ billingEnabled: true, plan: 'standard', companyName: 'Two Ltd' });
    const workspace = await h.call('GET', `/api/v1/workspaces/${world.w2.id}`, { token: world.adminW2.token });
    expect(workspace.body.data.billingEnabled).toBe(true);
    expect((await h.call('PATCH', path, { token: world.adminW2.token, body: { plan: 'gold' } })).status).toBe(400);
  });
});

describe('wallet settings', () => {
  it('updates provider fields on the workspace and the rest in the settings; checks the default network', async () => {
    const path = `/api/v1/workspaces/${world.w2.id}/wallet-settings`;
    const initial = await h.call('GET', path, { token: world.adminW2.token });
    expect(initial.body.data).toMatchObject({
      walletProvider: null,
      enabledNetworks: [],
      autoCreateCustomerWallets: false,
      updatedAt: null,
    });
    const res = await h.call('PATCH', path, {
      token: world.adminW2.token,
      body: {
        walletProvider: 'CUSTODY_A',
        walletId: 'ws-1',
        enabledNetworks: ['base-sepolia', 'ethereum-sepolia'],
        defaultNetwork: 'base-sepolia',
        defaultCurrency: 'USDC',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      walletProvider: 'CUSTODY_A',
      walletId: 'ws-1',
      defaultNetwork: 'base-sepolia',
      defaultCurrency: 'USDC',
    });
    const workspace = await h.call('GET', `/api/v1/workspaces/${world.w2.id}`, { token: world.adminW2.token });
    expect(workspace.body.data).toMatchObject({ walletProvider: 'CUSTODY_A', walletId: 'ws-1' });
    const outside = await h.call('PATCH', path, { token: world.adminW2.token, body: { defaultNetwork: 'base' } });
    expect(outside.status).toBe(400);
    expect(outside.body.error.details.errors).toEqual([{ field: 'defaultNetwork', reason: 'must be one of enabledNetworks' }]);
    const bad = await h.call('PATCH', path, { token: world.adminW2.token, body: { enabledNetworks: ['mars'], walletProvider: 'BANK' } });
    expect(bad.status).toBe(400);
    expect((await h.call('PATCH', path, { token: world.clientW1.token, body: { autoCreateCustomerWallets: true } })).status).toBe(403);
    const [entry] = (await auditEntries(h, { action: 'workspace.wallet_settings_update', resourceId: world.w2.id })).filter(
      (e) => e.success,
    );
    expect(entry?.changes).toMatchObject({ walletProvider: { from: null, to: 'CUSTODY_A' } });
  });

  it('PUT replaces the whole record (a field left out is reset), PATCH merges', async () => {
    const path = `/api/v1/workspaces/${world.w2.id}/wallet-settings`;
    const full = await h.call('PUT', path, {
      token: world.adminW2.token,
      body: {
        walletProvider: 'CUSTODY_B',
        walletId: 'ws-9',
        enabledNetworks: ['base-sepolia'],
        defaultNetwork: 'base-sepolia',
        defaultCurrency: 'USDC',
        autoCreateCustomerWallets: true,
      },
    });
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    const merged = await h.call('PATCH', path, { token: world.adminW2.token, body: { defaultCurrency: 'USDT' } });
    expect(merged.body.data).toMatchObject({
      walletProvider: 'CUSTODY_B',
      walletId: 'ws-9',
      defaultCurrency: 'USDT',
      autoCreateCustomerWallets: true,
    });

    const replaced = await h.call('PUT', path, { token: world.adminW2.token, body: { enabledNetworks: ['ethereum-sepolia'] } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({
      walletProvider: null,
      walletId: null,
      custodyCOrganizationId: null,
      defaultNetwork: null,
      enabledNetworks: ['ethereum-sepolia'],
      defaultCurrency: null,
      autoCreateCustomerWallets: false,
    });
    const read = await h.call('GET', path, { token: world.adminW2.token });
    expect(read.body.data).toEqual(replaced.body.data);
    const workspace = await h.call('GET', `/api/v1/workspaces/${world.w2.id}`, { token: world.adminW2.token });
    expect(workspace.body.data.walletProvider ?? null).toBeNull();

    // Bad input changes nothing: the default network outside the replacement's networks, an unknown field.
    const outside = await h.call('PUT', path, {
      token: world.adminW2.token,
      body: { enabledNetworks: ['base-sepolia'], defaultNetwork: 'base' },
    });
    expect(outside.status).toBe(400);
    expect((await h.call('PUT', path, { token: world.adminW2.token, body: { plan: 'gold' } })).status).toBe(400);
    expect((await h.call('PUT', path, { token: world.clientW1.token, body: {} })).status).toBe(403);
    expect((await h.call('GET', path, { token: world.adminW2.token })).body.data).toEqual(replaced.body.data);
    const entries = await auditEntries(h, { action: 'workspace.wallet_settings_update', resourceId: world.w2.id });
    expect(entries.some((e) => e.success && (e.changes as { walletProvider?: { to: unknown } } | null)?.walletProvider?.to === null)).toBe(
      true,
    );
  });
});

describe('platform mappings', () => {
  it('lists the workspace links to payments platforms, newest first, filterable', async () => {
    const older = '6f9619ff-8b86-4d01-b42d-00cf4fc964f1';
    const newer = '6f9619ff-8b86-4d01-b42d-00cf4fc964f2';
    await h.sql`insert into workspace.platform_mappings (id, workspace_id, platform_id, kind, name, status, created_at, revoked_at)
      values (gen_random_uuid(), ${world.w2.id}, ${older}, 'sandbox', 'sandbox 1', 'revoked', now() - interval '1 hour', now()),
             (gen_random_uuid(), ${world.w2.id}, ${newer}, 'sandbox', 'sandbox 2', 'active', now(), null)`;
    const all = await h.call('GET', `/api/v1/workspaces/${world.w2.id}/platform-mappings`, { token: world.adminW2.token });
    expect(all.body.data.map((m: { platformId: string }) => m.platformId)).toEqual([newer, older]);
    const active = await h.call('GET', `/api/v1/workspaces/${world.w2.id}/platform-mappings?status=active`, { token: world.adminW2.token });
    expect(active.body.data).toHaveLength(1);
    expect(active.body.data[0]).toMatchObject({ platformId: newer, kind: 'sandbox', status: 'active', revokedAt: null });
    expect(
      (await h.call('GET', `/api/v1/workspaces/${world.w2.id}/platform-mappings?kind=live`, { token: world.adminW2.token })).status,
    ).toBe(400);
    const none = await h.call('GET', `/api/v1/workspaces/${world.w1.id}/platform-mappings`, { token: world.adminW1.token });
    expect(none.body.data).toEqual([]);
  });
});

describe('catalogs', () => {
  it('lists OAuth scopes as resource:action with the Payments scope each grants, and webhook event types', async () => {
    const scopes = await h.call('GET', `/api/v1/workspaces/${world.w1.id}/oauth/scopes`, { token: world.clientW1.token });
    expect(scopes.body.data).toContainEqual(expect.objectContaining({ scope: 'transactions:read', paymentsScope: 'read:transactions' }));
    expect(scopes.body.data.every((s: { scope: string }) => /^[a-z-]+:[a-z]+$/.test(s.scope))).toBe(true);
    expect(scopes.body.data.map((s: { paymentsScope: string }) => s.paymentsScope)).not.toContain('admin:platform');
    const events = await h.call('GET', `/api/v1/workspaces/${world.w1.id}/webhooks/events/types`, { token: world.clientW1.token });
    expect(events.body.data.map((e: { type: string }) => e.type)).toContain('transaction.escrowed');
    expect(
      (await h.call('GET', '/api/v1/workspaces/00000000-0000-4000-8000-000000000000/oauth/scopes', { token: world.superAdmin.token }))
        .status,
    ).toBe(404);
  });
});

describe('DELETE /api/v1/workspaces/{id}', () => {
  it("removes the workspace's data, detaches its members, keeps the audit trail", async () => {
    const workspace = await createWorkspace(h, world.superAdmin.token, 'Doomed');
    const admin = await insertUser(h, { role: 'ADMIN', workspaceId: workspace.id, passwordHashOf: world.clientW1.id });
    await h.call('PATCH', `/api/v1/workspaces/${workspace.id}/billing`, { token: admin.token, body: { companyName: 'Doomed Ltd' } });
    await h.call('PATCH', `/api/v1/workspaces/${workspace.id}/wallet-settings`, {
      token: admin.token,
      body: { autoCreateCustomerWallets: true },
    });
    const avatar = await h.call('POST', `/api/v1/workspaces/${workspace.id}/avatar`, { token: admin.token, form: imageForm() });
    const platformId = '6f9619ff-8b86-4d01-b42d-00cf4fc964aa';
    await h.sql`insert into workspace.platform_mappings (id, workspace_id, platform_id, kind, name)
      values (gen_random_uuid(), ${workspace.id}, ${platformId}, 'sandbox', 'sandbox 1')`;

    const res = await h.call('DELETE', `/api/v1/workspaces/${workspace.id}`, { token: admin.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    for (const table of ['workspaces', 'workspace_billing', 'workspace_wallet_settings', 'platform_mappings']) {
      const column = table === 'workspaces' ? 'id' : 'workspace_id';
      expect(await h.sql`select 1 from ${h.sql(`workspace.${table}`)} where ${h.sql(column)} = ${workspace.id}`, table).toHaveLength(0);
    }
    const [user] = await h.sql`select workspace_id from workspace.users where id = ${admin.id}`;
    expect(user?.workspace_id).toBeNull();
    expect(existsSync(join(h.storageDir, String(avatar.body.data.avatarPath).slice(1)))).toBe(false);
    const [entry] = await auditEntries(h, { action: 'workspace.delete', resourceId: workspace.id });
    expect(entry).toMatchObject({ success: true, user_id: admin.id, workspace_id: workspace.id });
    expect(entry?.metadata).toMatchObject({ detachedUserIds: [admin.id], platformIds: [platformId] });
    expect((await auditEntries(h, { resourceId: workspace.id })).length).toBeGreaterThan(3);
    expect((await h.call('DELETE', `/api/v1/workspaces/${workspace.id}`, { token: world.superAdmin.token })).status).toBe(404);
  });
});

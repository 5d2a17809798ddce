import { createKeyring, createSecretBox } from '@holdfast/secrets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEntries, buildWorld, type Harness, startHarness, type World } from '../support/harness.js';
import { capturedLogger } from '../support/logs.js';

// Workspace settings (/settings: one workspace's) and global settings (/global-settings).
const SECRET_VALUE = 'sk_live_settings_51Hx9Q2e4T7b';
const GLOBAL_SECRET = 'global_sealed_value_8c2f1d0e';

let h: Harness;
let world: World;
let lines: string[];
const answers: string[] = [];

async function call(method: string, path: string, token: string | undefined, body?: unknown) {
  const answer = await h.call(method, path, { token, body });
  answers.push(answer.text);
  return answer;
}

const settingsOf = (workspaceId: string | null) =>
  workspaceId === null
    ? h.sql`select * from workspace.settings where workspace_id is null order by key`
    : h.sql`select * from workspace.settings where workspace_id = ${workspaceId} order by key`;

beforeAll(async () => {
  const captured = capturedLogger();
  lines = captured.lines;
  h = await startHarness({}, { logger: captured.logger });
  world = await buildWorld(h);
});
afterAll(async () => h?.stop());

describe('POST /settings (create or update)', () => {
  it("creates a key in the ADMIN's workspace, then updates it (201 both), keeping fields left out", async () => {
    const created = await call('POST', '/api/v1/settings', world.adminW1.token, {
      key: 'payouts.reviewThreshold',
      value: '5000.00',
      category: 'payouts',
      description: 'Second approval above this',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({
      workspaceId: world.w1.id,
      key: 'payouts.reviewThreshold',
      value: '5000.00',
      category: 'payouts',
      description: 'Second approval above this',
      isEncrypted: false,
    });
    const updated = await call('POST', '/api/v1/settings', world.adminW1.token, { key: 'payouts.reviewThreshold', value: '7500.00' });
    expect(updated.status).toBe(201);
    expect(updated.body.data).toMatchObject({
      id: created.body.data.id,
      value: '7500.00',
      category: 'payouts',
      description: 'Second approval above this',
    });
    const defaults = await call('POST', '/api/v1/settings', world.adminW1.token, { key: 'branding.color', value: '#0a84ff' });
    expect(defaults.body.data).toMatchObject({ category: 'general', description: null, isEncrypted: false });

    const [entry] = await auditEntries(h, { action: 'setting.upsert', resourceId: created.body.data.id });
    expect(entry).toMatchObject({ success: true, workspace_id: world.w1.id, details: 'Updated setting payouts.reviewThreshold' });
    expect(entry?.changes).toEqual({ value: { from: '5000.00', to: '7500.00' } });
  });

  it('seals an encrypted value and answers an empty string for it, everywhere', async () => {
    const created = await call('POST', '/api/v1/settings', world.adminW1.token, {
      key: 'erp.apiKey',
      value: SECRET_VALUE,
      category: 'erp',
      isEncrypted: true,
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ key: 'erp.apiKey', value: '', isEncrypted: true });
    expect((await call('GET', '/api/v1/settings/erp.apiKey', world.adminW1.token)).body.data.value).toBe('');
    const listed = await call('GET', '/api/v1/settings?category=erp', world.adminW1.token);
    expect(listed.body.data.settings).toEqual([expect.objectContaining({ key: 'erp.apiKey', value: '' })]);

    const [row] = await h.sql`select * from workspace.settings where id = ${created.body.data.id}`;
    expect(row?.value).not.toContain(SECRET_VALUE);
    const box = createSecretBox(createKeyring({ key: undefined, appEnv: 'local' }));
    expect(box.open(row!.value, `settings.value:${row!.id}`)).toBe(SECRET_VALUE);

    // Updating it keeps it encrypted unless told otherwise; the trail never shows the value.
    const rotated = await call('PUT', '/api/v1/settings/erp.apiKey', world.adminW1.token, { value: `${SECRET_VALUE}-2` });
    expect(rotated.body.data).toMatchObject({ value: '', isEncrypted: true });
    const [entry] = await auditEntries(h, { action: 'setting.update', resourceId: created.body.data.id });
    expect(entry?.changes).toEqual({ value: { from: '[redacted]', to: '[redacted]' } });
    const plain = await call('PUT', '/api/v1/settings/erp.apiKey', world.adminW1.token, { value: 'now-public', isEncrypted: false });
    expect(plain.body.data).toMatchObject({ value: 'now-public', isEncrypted: false });
  });

  it('refuses bad input naming each field, and changes nothing', async () => {
    const before = await settingsOf(world.w1.id);
    const bad = await call('POST', '/api/v1/settings', world.adminW1.token, {
      key: '../etc',
      value: { nested: true },
      category: 'Not Allowed',
      isEncrypted: 'yes',
      extra: true,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'category',
      'extra',
      'isEncrypted',
      'key',
      'value',
    ]);
    expect((await call('POST', '/api/v1/settings', world.adminW1.token, { key: 'big', value: 'x'.repeat(16_385) })).status).toBe(400);
    expect((await call('POST', '/api/v1/settings', world.adminW1.token, { value: 'no key' })).status).toBe(400);
    expect(await settingsOf(world.w1.id)).toEqual(before);
  });
});

describe('GET /settings, GET and PUT /settings/{key}', () => {
  it('lists by category with pagination in data {settings, meta}', async () => {
    for (const n of [1, 2, 3]) {
      await call('POST', '/api/v1/settings', world.adminW1.token, { key: `limits.k${n}`, value: String(n), category: 'limits' });
    }
    const page = await call('GET', '/api/v1/settings?category=limits&limit=2&page=2', world.adminW1.token);
    expect(page.status).toBe(200);
    expect(page.body.data.settings.map((s: { key: string }) => s.key)).toEqual(['limits.k3']);
    expect(page.body.data.meta).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    expect(page.body.meta.pagination).toEqual(page.body.data.meta);
    const all = await call('GET', '/api/v1/settings?limit=100', world.adminW1.token);
    const categories = all.body.data.settings.map((s: { category: string }) => s.category);
    expect(categories).toEqual([...categories].sort());
    expect((await call('GET', '/api/v1/settings?category=BAD&page=0', world.adminW1.token)).body.error.details.errors).toHaveLength(2);
  });

  it('gets and puts an existing key; an unknown key answers 404 and PUT creates nothing', async () => {
    expect((await call('GET', '/api/v1/settings/limits.k1', world.adminW1.token)).body.data.value).toBe('1');
    const put = await call('PUT', '/api/v1/settings/limits.k1', world.adminW1.token, { value: '10', description: 'ten' });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toMatchObject({ value: '10', description: 'ten', category: 'limits' });
    expect((await call('GET', '/api/v1/settings/nope', world.adminW1.token)).status).toBe(404);
    const missing = await call('PUT', '/api/v1/settings/nope', world.adminW1.token, { value: 'x' });
    expect(missing.status).toBe(404);
    expect(await h.sql`select id from workspace.settings where key = 'nope'`).toEqual([]);
    expect((await call('PUT', '/api/v1/settings/limits.k1', world.adminW1.token, { category: 'limits' })).status).toBe(400);
    expect((await call('GET', '/api/v1/settings/bad%20key', world.adminW1.token)).status).toBe(400);
  });
});

describe('scoping: tenants never see each other’s settings', () => {
  it('keeps the same key apart per workspace, and ADMINs to their own', async () => {
    await call('POST', '/api/v1/settings', world.adminW2.token, { key: 'payouts.reviewThreshold', value: '1.00', category: 'payouts' });
    const mine = await call('GET', '/api/v1/settings/payouts.reviewThreshold', world.adminW1.token);
    const theirs = await call('GET', '/api/v1/settings/payouts.reviewThreshold', world.adminW2.token);
    expect(mine.body.data).toMatchObject({ workspaceId: world.w1.id, value: '7500.00' });
    expect(theirs.body.data).toMatchObject({ workspaceId: world.w2.id, value: '1.00' });
    const w2List = await call('GET', '/api/v1/settings?limit=100', world.adminW2.token);
    expect(w2List.body.data.settings.every((s: { workspaceId: string }) => s.workspaceId === world.w2.id)).toBe(true);
    expect(w2List.text).not.toContain(world.w1.id);

    const before = await settingsOf(world.w1.id);
    const reach = `?workspaceId=${world.w1.id}`;
    expect((await call('GET', `/api/v1/settings${reach}`, world.adminW2.token)).status).toBe(403);
    expect((await call('GET', `/api/v1/settings/payouts.reviewThreshold${reach}`, world.adminW2.token)).status).toBe(403);
    expect((await call('POST', `/api/v1/settings${reach}`, world.adminW2.token, { key: 'x', value: 'y' })).status).toBe(403);
    expect((await call('PUT', `/api/v1/settings/payouts.reviewThreshold${reach}`, world.adminW2.token, { value: '0' })).status).toBe(403);
    expect(await settingsOf(world.w1.id)).toEqual(before);
    // An ADMIN naming its own workspace is fine.
    expect((await call('GET', `/api/v1/settings?workspaceId=${world.w2.id}`, world.adminW2.token)).status).toBe(200);
  });

  it('refuses CLIENTs, asks a SUPER_ADMIN which workspace, and lets it act on any', async () => {
    expect((await call('GET', '/api/v1/settings', world.clientW1.token)).status).toBe(403);
    expect((await call('POST', '/api/v1/settings', world.clientW1.token, { key: 'x', value: 'y' })).status).toBe(403);
    expect((await call('GET', '/api/v1/settings', undefined)).status).toBe(401);
    const unnamed = await call('GET', '/api/v1/settings', world.superAdmin.token);
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.error.details.errors[0].field).toBe('workspaceId');
    const named = await call('GET', `/api/v1/settings/payouts.reviewThreshold?workspaceId=${world.w2.id}`, world.superAdmin.token);
    expect(named.body.data.value).toBe('1.00');
    const written = await call('POST', `/api/v1/settings?workspaceId=${world.w2.id}`, world.superAdmin.token, {
      key: 'ops.note',
      value: 'reviewed',
    });
    expect(written.body.data.workspaceId).toBe(world.w2.id);
    const [entry] = await auditEntries(h, { action: 'setting.upsert', resourceId: written.body.data.id });
    expect(entry).toMatchObject({ workspace_id: world.w2.id, user_id: world.superAdmin.id });
    expect((await call('GET', '/api/v1/settings?workspaceId=00000000-0000-4000-8000-000000000000', world.superAdmin.token)).status).toBe(
      404,
    );
  });
});

describe('global settings', () => {
  it('are written in bulk by a SUPER_ADMIN, all or none, and read by ADMINs', async () => {
    const bulk = await call('POST', '/api/v1/global-settings/bulk', world.superAdmin.token, {
      settings: [
        { key: 'maintenance.banner', value: 'Upgrade on Sunday', category: 'ops' },
        { key: 'fx.providerKey', value: GLOBAL_SECRET, category: 'fx', isEncrypted: true },
      ],
    });
    expect(bulk.status, bulk.text).toBe(200);
    expect(bulk.body.data).toMatchObject({ created: 2, updated: 0 });
    expect(bulk.body.data.settings.map((s: { workspaceId: null; value: string }) => [s.workspaceId, s.value])).toEqual([
      [null, 'Upgrade on Sunday'],
      [null, ''],
    ]);
    const again = await call('POST', '/api/v1/global-settings/bulk', world.superAdmin.token, {
      settings: [
        { key: 'maintenance.banner', value: 'Upgrade on Monday' },
        { key: 'fees.default', value: '0.5', category: 'fees' },
      ],
    });
    expect(again.body.data).toMatchObject({ created: 1, updated: 1 });

    const read = await call('GET', '/api/v1/global-settings', world.adminW1.token);
    expect(read.status).toBe(200);
    expect(read.body.data.settings.map((s: { key: string; value: string }) => [s.key, s.value])).toEqual([
      ['fees.default', '0.5'],
      ['fx.providerKey', ''],
      ['maintenance.banner', 'Upgrade on Monday'],
    ]);
    expect(read.body.data.meta).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1 });
    expect((await call('GET', '/api/v1/global-settings?category=fees', world.superAdmin.token)).body.data.settings).toHaveLength(1);
    // Global and workspace settings never mix.
    const w1 = await call('GET', '/api/v1/settings?limit=100', world.adminW1.token);
    expect(w1.body.data.settings.some((s: { key: string }) => s.key === 'maintenance.banner')).toBe(false);

    const before = await settingsOf(null);
    const duplicate = await call('POST', '/api/v1/global-settings/bulk', world.superAdmin.token, {
      settings: [
        { key: 'maintenance.banner', value: 'changed' },
        { key: 'maintenance.banner', value: 'twice' },
      ],
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error.details.errors).toEqual([{ field: 'settings.1.key', reason: 'repeats settings.0.key' }]);
    const partlyBad = await call('POST', '/api/v1/global-settings/bulk', world.superAdmin.token, {
      settings: [{ key: 'maintenance.banner', value: 'changed' }, { key: 'ok.key' }],
    });
    expect(partlyBad.status).toBe(400);
    expect(partlyBad.body.error.details.errors[0].field).toBe('settings.1.value');
    expect((await call('POST', '/api/v1/global-settings/bulk', world.superAdmin.token, { settings: [] })).status).toBe(400);
    expect(await settingsOf(null)).toEqual(before);

    for (const token of [world.adminW1.token, world.adminW2.token, world.clientW1.token]) {
      const refused = await call('POST', '/api/v1/global-settings/bulk', token, {
        settings: [{ key: 'maintenance.banner', value: 'hacked' }],
      });
      expect(refused.status).toBe(403);
    }
    expect((await call('GET', '/api/v1/global-settings', world.clientW1.token)).status).toBe(403);
    expect(await settingsOf(null)).toEqual(before);
    const [entry] = await auditEntries(h, { action: 'global_setting.bulk_upsert' });
    expect(entry).toMatchObject({ success: false });
  });
});

describe('encrypted values', () => {
  it('never appear in an answer, a log line or an audit entry', async () => {
    const audit = JSON.stringify(await h.sql`select * from workspace.audit_logs`);
    const logs = lines.join('\n');
    for (const secret of [SECRET_VALUE, GLOBAL_SECRET]) {
      for (const answer of answers) expect(answer).not.toContain(secret);
      expect(audit).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});

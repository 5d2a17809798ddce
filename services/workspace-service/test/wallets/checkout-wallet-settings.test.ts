import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { PAYMENTS_COMMANDS } from '@holdfast/contracts';
import { sendCommand } from '@holdfast/messaging';
import { until } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { type Json, worldPerFile } from '../support/harness.js';
import { bearer, callPayments, newTenant, paymentsToken } from '../support/integrations.js';

// A workspace's external wallet configs reach payments' hosted checkout through both real
// services: workspace-service sends the merged settings (a remote task, cmd.payments.
// checkout-wallet-settings.set), payments stores them by workspace, the page shows the name and
// logo, and a session is bounded by the configs' networks and templates (docs/checkout.md).

const { h, world } = worldPerFile({}, { peers: true });

/** A tenant with sandbox credentials and a v2 token of its payments platform. */
async function tenantWithPlatform() {
  const t = await newTenant(h, world);
  const issued = await h.call('POST', `${t.base}/sandbox-credentials`, { token: t.admin.token });
  if (issued.status !== 201) throw new Error(`issue: ${issued.status} ${issued.text}`);
  const credential = issued.body.data;
  return { ...t, platformId: credential.platformId as string, token: await paymentsToken(h, credential.oauthClient) };
}

const sessionBody = (over: Record<string, unknown> = {}) => ({
  amount: '12.5',
  toAddress: `0x${randomUUID().replaceAll('-', '').padEnd(40, '0')}`,
  blockchainNetwork: 'base-sepolia',
  successUrl: 'https://shop.example/done',
  cancelUrl: 'https://shop.example/cart',
  ...over,
});

const createSession = (token: string, body: Json) => callPayments(h, 'POST', '/api/v2/checkout/sessions', { headers: bearer(token), body });
const pageOf = (id: string) => callPayments(h, 'GET', `/api/v2/checkout/sessions/${id}/page`);
const stored = async (workspaceId: string) =>
  (await h.sql`select settings, as_of from payments.checkout_wallet_settings where workspace_id = ${workspaceId}`)[0];

async function putConfig(t: { base: string; admin: { token: string } }, type: string, body: Json) {
  const res = await h.call('PUT', `${t.base}/external-wallet-configs/${type}`, { token: t.admin.token, body });
  expect(res.status, res.text).toBe(200);
}

describe('happy: the configs reach the page and bound the session', () => {
  it('name and logo on the page; networks and templates bound creation', async () => {
    const t = await tenantWithPlatform();
    const [tpl] = await h.sql`insert into payments.control_templates (id, platform_id, name, version, controls)
      values (${randomUUID()}, ${t.platformId}, 'hold 7 days', 1, '[]'::jsonb) returning id`;
    await putConfig(t, 'EXTERNAL_WALLET_1', {
      isEnabled: true,
      allowedNetworks: ['BASE_SEPOLIA'],
      allowedTemplateIds: [tpl!.id],
      config: {
        appName: 'Corner Shop',
        appLogoUrl: 'https://cdn.shop.example/logo.png',
        projectId: 'wc-project-1',
        rpcProviderApiKey: 'rpc-secret',
      },
    });
    // The remote task runs right after the commit: payments holds the merged settings (no RPC key).
    await until('payments holds the settings', async () => (await stored(t.workspace.id)) !== undefined);
    expect((await stored(t.workspace.id))!.settings).toEqual({
      appName: 'Corner Shop',
      appLogoUrl: 'https://cdn.shop.example/logo.png',
      projectId: 'wc-project-1',
      allowedNetworks: ['base-sepolia'],
      allowedTemplateIds: [tpl!.id],
    });
    const [task] = await h.sql`select status from workspace.remote_tasks
      where workspace_id = ${t.workspace.id} and kind = 'payments.sync-checkout-wallet-settings'`;
    expect(task).toEqual({ status: 'done' });

    const created = await createSession(t.token, sessionBody({ templateId: tpl!.id }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const page = await pageOf(created.body.id);
    expect(page.status).toBe(200);
    expect(page.body.platform).toEqual({ name: 'Corner Shop', logoUrl: 'https://cdn.shop.example/logo.png' });
    expect(page.body.wallets).toEqual({ walletConnectProjectId: 'wc-project-1', allowedNetworks: ['base-sepolia'] });
    expect(JSON.stringify(page.body)).not.toContain('rpc-secret');

    // Another template than the allowed one, inline hold terms, no template: refused, naming the field; nothing stored.
    const before = (await h.sql`select count(*)::int as n from payments.checkout_sessions where platform_id = ${t.platformId}`)[0]!.n;
    const [other] = await h.sql`insert into payments.control_templates (id, platform_id, name, version, controls)
      values (${randomUUID()}, ${t.platformId}, 'not allowed', 1, '[]'::jsonb) returning id`;
    for (const [body, field] of [
      [sessionBody({ templateId: other!.id }), 'templateId'],
      [sessionBody(), 'templateId'],
      [sessionBody({ template: { templateName: 'inline', controls: [] } }), 'template'],
    ] as const) {
      const res = await createSession(t.token, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.errors[0].field).toBe(field);
    }
    expect((await h.sql`select count(*)::int as n from payments.checkout_sessions where platform_id = ${t.platformId}`)[0]!.n).toBe(before);
  });

  it('a network outside the configs is refused; disabling the last config brings back the defaults', async () => {
    const t = await tenantWithPlatform();
    await putConfig(t, 'EXTERNAL_WALLET_2', {
      isEnabled: true,
      allowedNetworks: ['ETHEREUM_SEPOLIA'],
      config: { appName: 'Only Sepolia' },
    });
    await until('payments holds the settings', async () => (await stored(t.workspace.id))?.settings?.appName === 'Only Sepolia');
    const refused = await createSession(t.token, sessionBody());
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.errors[0]).toMatchObject({ field: 'blockchainNetwork' });

    await putConfig(t, 'EXTERNAL_WALLET_2', { isEnabled: false });
    await until('payments holds the settings', async () => (await stored(t.workspace.id))?.settings === null);
    const created = await createSession(t.token, sessionBody());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const page = await pageOf(created.body.id);
    // The defaults: the platform's own name, no logo, injected wallets only.
    expect(page.body.platform).toEqual({ name: expect.stringMatching(/sandbox/), logoUrl: null });
    expect(page.body.wallets).toEqual({ walletConnectProjectId: null, allowedNetworks: [] });
  });

  it('deleting the config sends the defaults too', async () => {
    const t = await tenantWithPlatform();
    await putConfig(t, 'EXTERNAL_WALLET_3', { isEnabled: true, config: { appName: 'Soon gone' } });
    await until('payments holds the settings', async () => (await stored(t.workspace.id))?.settings?.appName === 'Soon gone');
    expect((await h.call('DELETE', `${t.base}/external-wallet-configs/EXTERNAL_WALLET_3`, { token: t.admin.token })).status).toBe(200);
    await until('payments holds the settings', async () => (await stored(t.workspace.id))?.settings === null);
  });
});

describe('edges: what the merge and the environment make of the configs', () => {
  it('a workspace allowing BASE lets a platform ask for base, which runs on base-sepolia outside production', async () => {
    const t = await tenantWithPlatform();
    await putConfig(t, 'EXTERNAL_WALLET_1', { isEnabled: true, allowedNetworks: ['BASE'], config: { appName: 'Mainnet named' } });
    await until('payments holds the settings', async () => (await stored(t.workspace.id))?.settings?.appName === 'Mainnet named');
    // The platform's request names the workspace's network; the session runs on its testnet here.
    const created = await createSession(t.token, sessionBody({ blockchainNetwork: 'base' }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.blockchainNetwork).toBe('base-sepolia');
    // Another network is still refused.
    const refused = await createSession(t.token, sessionBody({ blockchainNetwork: 'ethereum' }));
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.errors[0]).toMatchObject({ field: 'blockchainNetwork' });
  });

  it('two configs of 100 templates each reach payments as one list of 200', async () => {
    const t = await tenantWithPlatform();
    const ids = (n: number) => Array.from({ length: 100 }, (_, i) => `tpl-${n}-${i}`);
    await putConfig(t, 'EXTERNAL_WALLET_1', { isEnabled: true, allowedTemplateIds: ids(1), config: { appName: 'Many' } });
    await putConfig(t, 'EXTERNAL_WALLET_2', { isEnabled: true, allowedTemplateIds: ids(2) });
    await until('payments holds both lists', async () => (await stored(t.workspace.id))?.settings?.allowedTemplateIds?.length === 200);
    const tasks = await h.sql`select status from workspace.remote_tasks
      where workspace_id = ${t.workspace.id} and kind = 'payments.sync-checkout-wallet-settings'`;
    expect(tasks.every((task) => task.status === 'done')).toBe(true);
  });

  it('configs stored before the sync existed reach payments through the upgrade migration', async () => {
    const t = await tenantWithPlatform();
    // A config as an older version stored it: a row, and no sync task queued.
    await h.sql`insert into workspace.external_wallet_configs (id, workspace_id, provider_type, is_enabled, settings)
      values (${randomUUID()}, ${t.workspace.id}, 'EXTERNAL_WALLET_4', true, ${h.sql.json({ appName: 'From before' })})`;
    expect(await stored(t.workspace.id)).toBeUndefined();
    const migration = await readFile(new URL('../../drizzle/0015_checkout-wallet-settings-backfill.sql', import.meta.url), 'utf8');
    await h.sql.unsafe(migration);
    await until('payments holds the settings', async () => (await stored(t.workspace.id))?.settings?.appName === 'From before');
    // One task, queued by the migration, and done.
    const tasks = async () =>
      h.sql`select status from workspace.remote_tasks
        where workspace_id = ${t.workspace.id} and kind = 'payments.sync-checkout-wallet-settings'`;
    await until('the sync task is done', async () => (await tasks())[0]?.status === 'done');
    expect(await tasks()).toHaveLength(1);
  });
});

describe('security: one workspace never reaches another', () => {
  it("a workspace's settings never show on another workspace's page nor bound its sessions", async () => {
    const [a, b] = [await tenantWithPlatform(), await tenantWithPlatform()];
    await putConfig(a, 'EXTERNAL_WALLET_1', { isEnabled: true, allowedNetworks: ['ETHEREUM_SEPOLIA'], config: { appName: 'A only' } });
    await until('payments holds the settings', async () => (await stored(a.workspace.id)) !== undefined);
    const created = await createSession(b.token, sessionBody());
    expect(created.status).toBe(201);
    const page = await pageOf(created.body.id);
    expect(page.body.platform.name).not.toBe('A only');
    expect((await stored(a.workspace.id))!.settings.appName).toBe('A only');
  });

  it('a late message (an older asOf) never replaces a newer one', async () => {
    const t = await tenantWithPlatform();
    const workspaceId = t.workspace.id;
    const newer = { allowedNetworks: [], allowedTemplateIds: [], appName: 'Newer' };
    const older = { allowedNetworks: [], allowedTemplateIds: [], appName: 'Older' };
    expect(
      await sendCommand(h.bus, PAYMENTS_COMMANDS.setCheckoutWalletSettings, {
        workspaceId,
        settings: newer,
        asOf: '2030-01-02T00:00:00.000Z',
      }),
    ).toEqual({
      workspaceId,
      applied: true,
    });
    expect(
      await sendCommand(h.bus, PAYMENTS_COMMANDS.setCheckoutWalletSettings, {
        workspaceId,
        settings: older,
        asOf: '2030-01-01T00:00:00.000Z',
      }),
    ).toEqual({
      workspaceId,
      applied: false,
    });
    expect((await stored(workspaceId))!.settings.appName).toBe('Newer');
  });
});

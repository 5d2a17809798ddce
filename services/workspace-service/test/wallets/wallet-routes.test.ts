import { deployEscrow } from '@holdfast/escrow';
import { type Anvil, freePort, startAnvil } from '@holdfast/test-fixtures';
import { type Address, getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilClients, DEPLOYED_ESCROW } from '../support/chain.js';
import { linkWallet, registerCustomer } from '../support/customers.js';
import {
  auditEntries,
  buildWorld,
  createWorkspace,
  type Harness,
  type Json,
  startHarness,
  uniqueEmail,
  type World,
} from '../support/harness.js';
import { capturedLogger } from '../support/logs.js';
import { startCustodyA } from '../support/vendors.js';

// The wallet routes over HTTP: wallet provider configs (and the secrecy of their credentials in
// answers, logs and the audit trail), the internal status listing, external wallet configs,
// wallet accounts and balances (a network down becomes a warning), escrow contracts deployed for
// real on anvil, and customers' CUSTODY_A wallets.
const INTERNAL_API_KEY = 'internal-key-for-tests-0123456789';
let h: Harness;
let world: World;
let anvil: Anvil;
let vendorA: Awaited<ReturnType<typeof startCustodyA>>;
let sharedEscrow: Address;
const logs = capturedLogger();

beforeAll(async () => {
  [anvil, vendorA] = await Promise.all([startAnvil(), startCustodyA()]);
  const chain = anvilClients(anvil.rpcUrl, 1);
  sharedEscrow = (await deployEscrow({ walletClient: chain.walletClient, publicClient: chain.publicClient })).address;
  const down = `http://127.0.0.1:${await freePort()}`;
  h = await startHarness(
    {
      CHAIN_RPC_URLS: `base-sepolia=${anvil.rpcUrl},ethereum-sepolia=${down}`,
      ESCROW_CONTRACTS: `base-sepolia=${sharedEscrow}@1`,
      INTERNAL_API_KEY,
    },
    { logger: logs.logger },
  );
  world = await buildWorld(h);
});
afterAll(async () => {
  await h?.stop();
  await Promise.all([anvil?.stop(), vendorA?.stop()]);
});

const secretsOf = () => [vendorA.config.apiKey];

function expectNoSecret(text: string, where: string, extra: string[] = []) {
  for (const secret of [...secretsOf(), ...extra]) expect(text, where).not.toContain(secret);
}

async function createConfig(body: Record<string, unknown> = {}, token = world.adminW1.token) {
  return h.call('POST', '/api/v1/wallet-provider-configs', {
    token,
    body: {
      workspaceId: world.w1.id,
      providerType: 'CUSTODY_A',
      providerName: 'Custody A',
      config: vendorA.config,
      walletSetId: vendorA.walletSetId,
      ...body,
    },
  });
}

describe('wallet provider configs', () => {
  it('creates a config whose credentials no answer, log line or audit entry holds', async () => {
    const created = await createConfig({ isDefault: true });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({
      workspaceId: world.w1.id,
      isGlobal: false,
      providerType: 'CUSTODY_A',
      providerName: 'Custody A',
      isDefault: true,
      isActive: true,
      version: 1,
    });
    expect(created.body.data).not.toHaveProperty('config');
    const id = created.body.data.id as string;
    const [row] = await h.sql`select config_sealed from workspace.wallet_provider_configs where id = ${id}`;
    expect(row?.config_sealed).toMatch(/^v1\./);

    // Change the key: the new one must not leak either.
    const rotated = `a_rotated_${'k'.repeat(24)}`;
    const patched = await h.call('PATCH', `/api/v1/wallet-provider-configs/${id}`, {
      token: world.adminW1.token,
      body: { config: { apiKey: rotated }, providerName: 'Custody A (rotated)' },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({ providerName: 'Custody A (rotated)', version: 2 });
    const reads = [
      created,
      patched,
      await h.call('GET', `/api/v1/wallet-provider-configs/${id}`, { token: world.adminW1.token }),
      await h.call('GET', '/api/v1/wallet-provider-configs', { token: world.superAdmin.token }),
      await h.call('GET', `/api/v1/wallet-provider-configs/check-duplicate?providerType=CUSTODY_A&workspaceId=${world.w1.id}`, {
        token: world.adminW1.token,
      }),
      await h.call('GET', '/api/v1/wallet-provider-configs/status', { headers: { 'x-internal-api-key': INTERNAL_API_KEY } }),
      await h.call('GET', `/api/v1/audit-logs?resourceId=${id}`, { token: world.superAdmin.token }),
    ];
    for (const read of reads) expectNoSecret(read.text, 'HTTP answer', [rotated]);
    const entries = await auditEntries(h, { resourceId: id });
    expect(entries.map((e) => e.action).sort()).toEqual(['wallet_provider_config.create', 'wallet_provider_config.update']);
    for (const entry of entries) {
      expect(entry.changes?.config).toEqual(expect.objectContaining({ to: '[redacted]' }));
      expectNoSecret(JSON.stringify(entry), 'audit entry', [rotated]);
    }
    expect(logs.lines.length).toBeGreaterThan(0);
    for (const line of logs.lines) expectNoSecret(line, 'log line', [rotated]);
    // Put the key back for the connection tests.
    await h.call('PATCH', `/api/v1/wallet-provider-configs/${id}`, {
      token: world.adminW1.token,
      body: { config: { apiKey: vendorA.config.apiKey } },
    });
  });

  it('refuses bad input naming each field and never echoing a value; refuses global configs', async () => {
    const secretLooking = 'short';
    const bad = await createConfig({ config: { baseUrl: 'not a url', apiKey: secretLooking, extra: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors.map((e: Json) => e.field).sort()).toEqual(['config.apiKey', 'config.baseUrl', 'config.extra']);
    expect(JSON.stringify(bad.body.error.details)).not.toContain(secretLooking);
    expect((await createConfig({ isGlobal: true })).status).toBe(400);
    expect((await createConfig({ workspaceId: '00000000-0000-4000-8000-000000000000' }, world.superAdmin.token)).status).toBe(400);
    expect((await createConfig({ workspaceId: world.w2.id })).status).toBe(403);
    expect((await createConfig({ providerType: 'CUSTODY_Z' })).status).toBe(400);
  });

  it('lists the bare page, scoped to the caller; ADMIN or SUPER_ADMIN only', async () => {
    await createConfig({ workspaceId: world.w2.id, providerName: 'W2 config' }, world.adminW2.token);
    const mine = await h.call('GET', '/api/v1/wallet-provider-configs', { token: world.adminW1.token });
    expect(mine.status).toBe(200);
    expect(Object.keys(mine.body).sort()).toEqual(['data', 'limit', 'page', 'total', 'totalPages']);
    expect(mine.body.data.every((c: Json) => c.workspaceId === world.w1.id)).toBe(true);
    const all = await h.call('GET', '/api/v1/wallet-provider-configs?limit=100', { token: world.superAdmin.token });
    expect(new Set(all.body.data.map((c: Json) => c.workspaceId))).toEqual(new Set([world.w1.id, world.w2.id]));
    expect((await h.call('GET', `/api/v1/wallet-provider-configs?workspaceId=${world.w2.id}`, { token: world.adminW1.token })).status).toBe(
      403,
    );
    expect((await h.call('GET', '/api/v1/wallet-provider-configs', { token: world.clientW1.token })).status).toBe(403);
    const w2 = all.body.data.find((c: Json) => c.workspaceId === world.w2.id);
    expect((await h.call('GET', `/api/v1/wallet-provider-configs/${w2.id}`, { token: world.adminW1.token })).status).toBe(404);
    expect(
      (await h.call('PATCH', `/api/v1/wallet-provider-configs/${w2.id}`, { token: world.adminW1.token, body: { isActive: false } })).status,
    ).toBe(404);
  });

  it('checks duplicates, moves the default, tests the connection, deletes', async () => {
    const first = (await createConfig({ providerName: 'first' })).body.data;
    const second = (await createConfig({ providerName: 'second' })).body.data;
    const duplicate = await h.call(
      'GET',
      `/api/v1/wallet-provider-configs/check-duplicate?providerType=CUSTODY_A&workspaceId=${world.w1.id}&excludeId=${first.id}`,
      { token: world.adminW1.token },
    );
    expect(duplicate.body.data).toMatchObject({ isDuplicate: true, existingConfig: { providerType: 'CUSTODY_A' } });
    const none = await h.call('GET', `/api/v1/wallet-provider-configs/check-duplicate?providerType=CUSTODY_C&workspaceId=${world.w1.id}`, {
      token: world.adminW1.token,
    });
    expect(none.body.data).toEqual({ isDuplicate: false, existingConfig: null });

    const made = await h.call('POST', `/api/v1/wallet-provider-configs/${second.id}/set-default`, { token: world.adminW1.token });
    expect(made.status).toBe(200);
    expect(made.body.data).toMatchObject({ id: second.id, isDefault: true });
    const defaults = await h.call('GET', `/api/v1/wallet-provider-configs?workspaceId=${world.w1.id}&limit=100`, {
      token: world.adminW1.token,
    });
    expect(defaults.body.data.filter((c: Json) => c.isDefault).map((c: Json) => c.id)).toEqual([second.id]);

    const tested = await h.call('POST', `/api/v1/wallet-provider-configs/${second.id}/test-connection`, { token: world.adminW1.token });
    expect(tested.status).toBe(200);
    expect(tested.body.data).toMatchObject({ success: true });
    vendorA.mode = 'unauthorized';
    const refused = await h.call('POST', `/api/v1/wallet-provider-configs/${second.id}/test-connection`, { token: world.adminW1.token });
    vendorA.mode = 'ok';
    expect(refused.status).toBe(200);
    expect(refused.body.data).toMatchObject({ success: false, details: { reason: 'unauthorized' } });

    expect((await h.call('DELETE', `/api/v1/wallet-provider-configs/${first.id}`, { token: world.adminW1.token })).status).toBe(204);
    expect((await h.call('GET', `/api/v1/wallet-provider-configs/${first.id}`, { token: world.adminW1.token })).status).toBe(404);
    expect((await h.call('DELETE', `/api/v1/wallet-provider-configs/${first.id}`, { token: world.adminW1.token })).status).toBe(404);
    await h.call('POST', `/api/v1/wallet-provider-configs/${(await createConfig()).body.data.id}/set-default`, {
      token: world.adminW1.token,
    });
  });

  it('lists every config and its version behind X-Internal-API-Key only', async () => {
    const ok = await h.call('GET', '/api/v1/wallet-provider-configs/status', { headers: { 'x-internal-api-key': INTERNAL_API_KEY } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ total: expect.any(Number), timestamp: expect.any(String) });
    expect(ok.body.data.configs[0]).toEqual({
      id: expect.any(String),
      workspaceId: expect.any(String),
      isGlobal: false,
      providerType: expect.any(String),
      providerName: expect.any(String),
      version: expect.any(Number),
      isActive: expect.any(Boolean),
      isDefault: expect.any(Boolean),
      updatedAt: expect.any(String),
    });
    const scoped = await h.call('GET', `/api/v1/wallet-provider-configs/status?workspaceId=${world.w2.id}`, {
      headers: { 'x-internal-api-key': INTERNAL_API_KEY },
    });
    expect(scoped.body.data.configs.every((c: Json) => c.workspaceId === world.w2.id)).toBe(true);
    const refused: Record<string, string>[] = [
      {},
      { 'x-internal-api-key': `${INTERNAL_API_KEY}x` },
      { 'x-internal-api-key': 'short' },
      { authorization: `Bearer ${world.superAdmin.token}` },
    ];
    for (const headers of refused) {
      const res = await h.call('GET', '/api/v1/wallet-provider-configs/status', { headers });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
  });
});

describe('external wallet configs', () => {
  const base = () => `/api/v1/workspaces/${world.w1.id}/external-wallet-configs`;
  const rpcKey = `rpc_key_${Date.now()}`;

  it('creates and updates by type with bare answers; the RPC key is returned but audited redacted', async () => {
    const created = await h.call('PUT', `${base()}/EXTERNAL_WALLET_2`, {
      token: world.clientW1.token,
      body: { isEnabled: true, allowedNetworks: ['BASE_SEPOLIA'], config: { rpcProviderApiKey: rpcKey, appName: 'Shop' } },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({
      workspaceId: world.w1.id,
      providerType: 'EXTERNAL_WALLET_2',
      isEnabled: true,
      allowedNetworks: ['BASE_SEPOLIA'],
      allowedTemplateIds: [],
      config: { rpcProviderApiKey: rpcKey, appName: 'Shop' },
    });
    expect(created.body).not.toHaveProperty('success');
    const [entry] = await auditEntries(h, { action: 'external_wallet_config.upsert', resourceId: created.body.id });
    expect(JSON.stringify(entry)).not.toContain(rpcKey);
    const updated = await h.call('PUT', `${base()}/EXTERNAL_WALLET_2`, {
      token: world.adminW1.token,
      body: { allowedTemplateIds: ['tpl_1'] },
    });
    expect(updated.body).toMatchObject({ id: created.body.id, allowedTemplateIds: ['tpl_1'], isEnabled: true });

    const list = await h.call('GET', base(), { token: world.clientW1.token });
    expect(list.body).toEqual({ configs: [expect.objectContaining({ providerType: 'EXTERNAL_WALLET_2' })] });
    expect((await h.call('GET', `${base()}/EXTERNAL_WALLET_2`, { token: world.superAdmin.token })).body.id).toBe(created.body.id);
  });

  it('answers 404 for an unconfigured type, 400 for an unknown one or bad body, 403 for another tenant', async () => {
    const missing = await h.call('GET', `${base()}/EXTERNAL_WALLET_3`, { token: world.adminW1.token });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    expect((await h.call('GET', `${base()}/EXTERNAL_WALLET_9`, { token: world.adminW1.token })).status).toBe(400);
    expect(
      (await h.call('PUT', `${base()}/EXTERNAL_WALLET_3`, { token: world.adminW1.token, body: { allowedNetworks: ['base-sepolia'] } }))
        .status,
    ).toBe(400);
    expect((await h.call('GET', base(), { token: world.adminW2.token })).status).toBe(403);
    expect((await h.call('PUT', `${base()}/EXTERNAL_WALLET_3`, { token: world.adminW2.token, body: {} })).status).toBe(403);
    expect(
      await h.sql`select 1 from workspace.external_wallet_configs where workspace_id = ${world.w1.id} and provider_type = 'EXTERNAL_WALLET_3'`,
    ).toHaveLength(0);
  });

  it('deletes with a bare message, then 404', async () => {
    await h.call('PUT', `${base()}/EXTERNAL_WALLET_4`, { token: world.adminW1.token, body: {} });
    const removed = await h.call('DELETE', `${base()}/EXTERNAL_WALLET_4`, { token: world.clientW1.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ message: 'EXTERNAL_WALLET_4 configuration deleted' });
    expect((await h.call('DELETE', `${base()}/EXTERNAL_WALLET_4`, { token: world.clientW1.token })).status).toBe(404);
  });
});

describe('wallet accounts and balances', () => {
  let workspace: { id: string; slug: string };
  let admin: string;

  beforeAll(async () => {
    workspace = await createWorkspace(h, world.superAdmin.token, `Wallets ${Date.now().toString(36)}`);
    const email = uniqueEmail('wallet-admin');
    await h.call('POST', '/api/v1/users', {
      token: world.superAdmin.token,
      body: { email, password: 'Str0ng!Password', role: 'admin', workspaceId: workspace.id },
    });
    admin = (await h.login(email)).accessToken;
  });

  it('answers 400 WALLET_PROVIDER_NOT_CONFIGURED without a provider', async () => {
    const res = await h.call('GET', `/api/v1/workspaces/${workspace.id}/wallet-accounts`, { token: admin });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('WALLET_PROVIDER_NOT_CONFIGURED');
  });

  it('creates PLATFORM accounts (admins only) and reads their balances, a network down becoming a warning', async () => {
    await h.call('PUT', `/api/v1/workspaces/${workspace.id}`, { token: admin, body: { walletProvider: 'PLATFORM' } });
    const empty = await h.call('GET', `/api/v1/workspaces/${workspace.id}/wallet-accounts`, { token: admin });
    expect(empty.body.data).toEqual({ accounts: [], message: expect.any(String) });
    const eth = { addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: "m/44'/60'/0'/0/0" };
    const created = await h.call('POST', `/api/v1/workspaces/${workspace.id}/wallet-accounts`, { token: admin, body: { accounts: [eth] } });
    expect(created.status, created.text).toBe(200);
    expect(created.body.data.accounts).toEqual([{ ...eth, address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) }]);
    const address = created.body.data.accounts[0].address as Address;
    const [entry] = await auditEntries(h, { action: 'wallet_account.create' });
    expect(entry).toMatchObject({ success: true, workspace_id: workspace.id });
    expect(JSON.stringify(entry)).not.toMatch(/mnemonic|seed/i);
    const bad = await h.call('POST', `/api/v1/workspaces/${workspace.id}/wallet-accounts`, {
      token: admin,
      body: { accounts: [{ ...eth, curve: 'CURVE_ED25519' }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.errors[0].field).toBe('accounts.0.curve');
    expect(
      (
        await h.call('POST', `/api/v1/workspaces/${workspace.id}/wallet-accounts`, {
          token: world.adminW1.token,
          body: { accounts: [eth] },
        })
      ).status,
    ).toBe(403);

    await anvilClients(anvil.rpcUrl).fund(address, '1.5');
    const balances = await h.call('GET', `/api/v1/workspaces/${workspace.id}/wallet-balances`, { token: admin });
    expect(balances.status).toBe(200);
    expect(balances.body.data.balances).toEqual([
      { address, network: 'base-sepolia', nativeBalance: '1.5', nativeSymbol: 'ETH', tokens: [] },
    ]);
    expect(balances.body.data.warnings).toEqual([
      { code: 'RPC_UNAVAILABLE', message: expect.any(String), network: 'ethereum-sepolia', address },
    ]);
    expect(balances.text).not.toContain('127.0.0.1');
    expect((await h.call('GET', `/api/v1/workspaces/${workspace.id}/wallet-balances`, { token: world.adminW1.token })).status).toBe(403);
  });
});

describe('escrow contracts', () => {
  const contracts = () => `/api/v1/workspaces/${world.w1.id}/contracts`;

  it('lists and answers the shared escrow before a dedicated one exists', async () => {
    const listed = await h.call('GET', contracts(), { token: world.clientW1.token });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ isShared: true, contractAddress: sharedEscrow, status: 'active' })]);
    const current = await h.call('GET', `${contracts()}/base-sepolia`, { token: world.clientW1.token });
    expect(current.body.data).toMatchObject({ address: sharedEscrow, network: 'base-sepolia', isShared: true });
    expect((await h.call('GET', `${contracts()}/base`, { token: world.clientW1.token })).status).toBe(404);
    expect((await h.call('GET', `${contracts()}/solana`, { token: world.clientW1.token })).status).toBe(400);
  });

  it('deploys a dedicated escrow on anvil (admins only), 409 for a second, 503 without a usable RPC', async () => {
    expect((await h.call('POST', `${contracts()}/base-sepolia`, { token: world.clientW1.token })).status).toBe(403);
    expect((await h.call('POST', `${contracts()}/base-sepolia`, { token: world.adminW2.token })).status).toBe(403);
    const deployed = await h.call('POST', `${contracts()}/base-sepolia`, { token: world.adminW1.token });
    expect(deployed.status, deployed.text).toBe(201);
    expect(deployed.body.data).toEqual(DEPLOYED_ESCROW);
    const code = await anvilClients(anvil.rpcUrl).publicClient.getCode({ address: deployed.body.data.contractAddress });
    expect(code?.length).toBeGreaterThan(2);
    expect((await h.call('GET', `${contracts()}/base-sepolia`, { token: world.clientW1.token })).body.data).toEqual({
      address: getAddress(deployed.body.data.contractAddress),
      network: 'base-sepolia',
      isShared: false,
      deploymentId: deployed.body.data.deploymentId,
    });
    const [entry] = await auditEntries(h, { action: 'contract_deployment.deploy', resourceId: deployed.body.data.deploymentId });
    expect(entry).toMatchObject({ success: true, user_id: world.adminW1.id, workspace_id: world.w1.id });

    const again = await h.call('POST', `${contracts()}/base-sepolia`, { token: world.superAdmin.token });
    expect(again.status).toBe(409);
    const noRpc = await h.call('POST', `${contracts()}/base`, { token: world.adminW1.token });
    expect(noRpc.status).toBe(503);
    expect(noRpc.body.error).toMatchObject({ code: 'CONTRACT_NOT_AVAILABLE', details: { network: 'base', reason: 'no_rpc' } });
    const down = await h.call('POST', `${contracts()}/ethereum-sepolia`, { token: world.adminW1.token });
    expect(down.body.error).toMatchObject({ code: 'CONTRACT_NOT_AVAILABLE', details: { reason: 'rpc_unreachable' } });
    const [refused] = await auditEntries(h, { action: 'contract_deployment.deploy' });
    expect(refused).toMatchObject({ success: false, metadata: expect.objectContaining({ statusCode: 503 }) });
    expect((await h.call('POST', `${contracts()}/mars`, { token: world.adminW1.token })).status).toBe(400);

    // No chain-indexer answers in this test: the deployment waits, unacknowledged, to be announced again.
    const [row] =
      await h.sql`select indexer_registered_at from workspace.contract_deployments where id = ${deployed.body.data.deploymentId}`;
    expect(row?.indexer_registered_at).toBeNull();
  });

  it('deprecates (admins only): the shared escrow serves new transactions again', async () => {
    const dedicated = (await h.call('GET', `${contracts()}/base-sepolia`, { token: world.adminW1.token })).body.data;
    const path = `${contracts()}/deployments/${dedicated.deploymentId}/deprecate`;
    expect((await h.call('POST', path, { token: world.clientW1.token })).status).toBe(403);
    expect((await h.call('POST', path, { token: world.adminW2.token })).status).toBe(403);
    const deprecated = await h.call('POST', path, { token: world.adminW1.token });
    expect(deprecated.status).toBe(200);
    expect(deprecated.body.data).toMatchObject({ id: dedicated.deploymentId, status: 'deprecated', isShared: false });
    expect((await h.call('GET', `${contracts()}/base-sepolia`, { token: world.adminW1.token })).body.data).toMatchObject({
      address: sharedEscrow,
      isShared: true,
    });
    expect((await h.call('POST', path, { token: world.adminW1.token })).body.data.status).toBe('deprecated');
    const shared = (await h.call('GET', `${contracts()}/base-sepolia`, { token: world.adminW1.token })).body.data.deploymentId;
    expect((await h.call('POST', `${contracts()}/deployments/${shared}/deprecate`, { token: world.superAdmin.token })).status).toBe(404);
    expect((await h.call('POST', `${contracts()}/deployments/not-a-uuid/deprecate`, { token: world.superAdmin.token })).status).toBe(400);
  });
});

describe("customers' CUSTODY_A wallets", () => {
  it('creates one through the vendor (admins), shows it to members, reports its balance; another tenant gets 404', async () => {
    const customer = (
      await h.call('POST', `/api/v1/workspaces/${world.w1.id}/customers`, {
        token: world.adminW1.token,
        body: { email: uniqueEmail('custody'), firstName: 'Cus', lastName: 'Tody' },
      })
    ).body.data;
    const path = `/api/v1/customers/${customer.id}/custody-a-wallet`;
    expect((await h.call('GET', path, { token: world.clientW1.token })).body.data).toEqual({
      hasWallet: false,
      walletId: null,
      walletAddress: null,
      walletLinkedAt: null,
    });
    expect((await h.call('POST', path, { token: world.clientW1.token, body: {} })).status).toBe(403);
    expect((await h.call('POST', path, { token: world.adminW2.token, body: {} })).status).toBe(404);
    expect((await h.call('POST', path, { token: world.adminW1.token, body: { network: 'MOON' } })).status).toBe(400);
    const created = await h.call('POST', path, { token: world.adminW1.token });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toEqual({
      success: true,
      walletId: expect.any(String),
      walletAddress: expect.stringMatching(/^0x/),
      blockchain: 'BASE_SEPOLIA',
      createdAt: expect.any(String),
    });
    expect(vendorA.wallets.at(-1)).toMatchObject({ id: created.body.data.walletId, refId: customer.id });
    const status = await h.call('GET', path, { token: world.clientW1.token });
    expect(status.body.data).toMatchObject({
      hasWallet: true,
      walletId: created.body.data.walletId,
      walletAddress: created.body.data.walletAddress,
    });
    expect((await h.call('GET', `/api/v1/customers/${customer.id}`, { token: world.adminW1.token })).body.data.walletAddress).toBe(
      created.body.data.walletAddress,
    );
    vendorA.balances.set(created.body.data.walletId, [
      { token: { symbol: 'USDC', isNative: false, tokenAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }, amount: '12.5' },
    ]);
    const balance = await h.call('GET', `${path}/balance`, { token: world.adminW1.token });
    expect(balance.status, balance.text).toBe(200);
    expect(balance.body.data).toMatchObject({
      walletId: created.body.data.walletId,
      blockchain: 'BASE_SEPOLIA',
      network: 'base-sepolia',
      tokens: [{ symbol: 'USDC', balance: '12.5', contractAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }],
    });
    expect((await h.call('GET', `${path}/balance`, { token: world.clientW1.token })).status).toBe(403);
    expect((await h.call('GET', path, { token: world.adminW2.token })).status).toBe(404);
    const second = await h.call('POST', path, { token: world.adminW1.token, body: {} });
    expect(second.status).toBe(400);
    expect(second.body.error.code).toBe('WALLET_ALREADY_LINKED');
    vendorA.mode = 'server_error';
    const other = (
      await h.call('POST', `/api/v1/workspaces/${world.w1.id}/customers`, {
        token: world.adminW1.token,
        body: { email: uniqueEmail('custody2'), firstName: 'A', lastName: 'B' },
      })
    ).body.data;
    const failed = await h.call('POST', `/api/v1/customers/${other.id}/custody-a-wallet`, { token: world.adminW1.token, body: {} });
    vendorA.mode = 'ok';
    expect(failed.status).toBe(502);
    expect(failed.body.error.code).toBe('WALLET_PROVIDER_ERROR');
    expect(await h.sql`select 1 from workspace.customer_wallets where customer_id = ${other.id}`).toHaveLength(0);
  });

  it('answers 400 WALLET_PROVIDER_NOT_CONFIGURED for a workspace without a CUSTODY_A config, and refuses a customer with a linked wallet', async () => {
    const w2Customer = await h.call('POST', `/api/v1/workspaces/${world.w2.id}/customers`, {
      token: world.adminW2.token,
      body: { email: uniqueEmail('nocfg'), firstName: 'A', lastName: 'B' },
    });
    await h.sql`update workspace.wallet_provider_configs set is_active = false where workspace_id = ${world.w2.id}`;
    const res = await h.call('POST', `/api/v1/customers/${w2Customer.body.data.id}/custody-a-wallet`, {
      token: world.adminW2.token,
      body: {},
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('WALLET_PROVIDER_NOT_CONFIGURED');
    const linked = await registerCustomer(h, world.w1.slug);
    await linkWallet(h, world.w1.slug, linked.token, privateKeyToAccount(generatePrivateKey()));
    const refused = await h.call('POST', `/api/v1/customers/${linked.id}/custody-a-wallet`, { token: world.adminW1.token, body: {} });
    expect(refused.body.error.code).toBe('WALLET_ALREADY_LINKED');
  });
});

describe('without INTERNAL_API_KEY (local)', () => {
  it('closes the status listing to every caller', async () => {
    const closed = await startHarness();
    try {
      const res = await closed.call('GET', '/api/v1/wallet-provider-configs/status', {
        headers: { 'x-internal-api-key': INTERNAL_API_KEY },
      });
      expect(res.status).toBe(401);
      expect(res.body.error.message).toContain('INTERNAL_API_KEY is not configured');
    } finally {
      await closed.stop();
    }
  });
});

describe('after everything above', () => {
  it('no log line and no audit entry of the whole run holds a vendor credential', async () => {
    expect(logs.lines.length).toBeGreaterThan(100);
    for (const line of logs.lines) expectNoSecret(line, 'log line');
    const trail = await h.sql`select * from workspace.audit_logs`;
    for (const entry of trail) expectNoSecret(JSON.stringify(entry), 'audit entry');
    const sealed = await h.sql`select config_sealed from workspace.wallet_provider_configs`;
    for (const row of sealed) expectNoSecret(String(row.config_sealed), 'stored config');
  });
});

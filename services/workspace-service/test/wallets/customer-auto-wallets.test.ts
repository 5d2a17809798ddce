import { randomUUID } from 'node:crypto';
import { getAddress } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerAccountPath } from '../../src/modules/wallets/customer/service.js';
import { registerCustomer } from '../support/customers.js';
import { auditEntries, buildWorld, createWorkspace, type Harness, startHarness, uniqueEmail, type World } from '../support/harness.js';
import { startCustodyA } from '../support/vendors.js';

// autoCreateCustomerWallets over HTTP, on the whole service: the customer's wallet step is a remote
// task queued in the customer's transaction, run right after the commit and retried by the runner.
// PLATFORM is the real built-in HD wallet; CUSTODY_A is the vendor's local stand-in (to make it fail).
let h: Harness;
let world: World;
let vendorA: Awaited<ReturnType<typeof startCustodyA>>;

beforeAll(async () => {
  [h, vendorA] = await Promise.all([startHarness(), startCustodyA()]);
  world = await buildWorld(h);
});
afterAll(async () => {
  await h?.stop();
  await vendorA?.stop();
});

async function walletSettings(workspaceId: string, body: Record<string, unknown>) {
  const res = await h.call('PATCH', `/api/v1/workspaces/${workspaceId}/wallet-settings`, { token: world.superAdmin.token, body });
  expect(res.status, res.text).toBe(200);
}

async function walletRow(customerId: string) {
  const rows = await h.sql<{ wallet_address: string; source: string; provider_wallet_id: string | null; workspace_id: string }[]>`
    select wallet_address, source, provider_wallet_id, workspace_id from workspace.customer_wallets where customer_id = ${customerId}`;
  return rows[0];
}

async function tasksOf(customerId: string) {
  return h.sql<{ id: string; status: string; attempts: number; last_error: string | null }[]>`
    select id, status, attempts, last_error from workspace.remote_tasks
    where kind = 'customer-wallets.auto-create' and payload->>'customerId' = ${customerId} order by created_at`;
}

/** Polls until `check` holds (the runner works in the background); fails with the last state otherwise. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

async function adminCreates(workspaceId: string) {
  const res = await h.call('POST', `/api/v1/workspaces/${workspaceId}/customers`, {
    token: world.superAdmin.token,
    body: { email: uniqueEmail('auto'), firstName: 'Ada', lastName: 'Lovelace' },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; walletAddress: string | null; walletLinkedAt: string | null };
}

describe('autoCreateCustomerWallets with the PLATFORM provider', () => {
  let workspace: { id: string; slug: string };
  beforeAll(async () => {
    workspace = await createWorkspace(h, world.superAdmin.token, 'Auto Platform');
    await walletSettings(workspace.id, { walletProvider: 'PLATFORM', autoCreateCustomerWallets: true });
  });

  it('gives a registering customer a wallet of the workspace HD wallet before the answer', async () => {
    const res = await h.call('POST', `/api/v1/workspaces/${workspace.slug}/customers/auth/register`, {
      body: { email: uniqueEmail('self'), password: 'Str0ng!Password', firstName: 'Cus', lastName: 'Tomer' },
    });
    expect(res.status, res.text).toBe(201);
    const customerId = res.body.data.customer.id as string;
    const row = await walletRow(customerId);
    expect(row).toMatchObject({ source: 'platform', workspace_id: workspace.id });
    expect(res.body.data.customer.walletAddress).toBe(row?.wallet_address);
    // The account is derived at the customer's path and recorded in the workspace's HD wallet.
    const [account] = await h.sql<{ address: string; wallet_id: string }[]>`
      select address, wallet_id from workspace.platform_wallet_accounts
      where workspace_id = ${workspace.id} and path = ${customerAccountPath(customerId)}`;
    expect(getAddress(account?.address as string)).toBe(row?.wallet_address);
    expect(row?.provider_wallet_id).toBe(account?.wallet_id);
    expect(await tasksOf(customerId)).toEqual([expect.objectContaining({ status: 'done', attempts: 1, last_error: null })]);
    const [entry] = await auditEntries(h, { action: 'customer_wallet.auto_create', resourceId: customerId });
    expect(entry).toMatchObject({ workspace_id: workspace.id, user_id: null, success: true });
    expect(entry?.changes).toEqual({ walletAddress: { from: null, to: row?.wallet_address } });
    // The customer sees it too.
    const me = await h.call('GET', `/api/v1/workspaces/${workspace.id}/customers/auth/me`, { token: res.body.data.accessToken });
    expect(me.body.data.walletAddress).toBe(row?.wallet_address);
  });

  it('gives customers created by an administrator (workspace and global routes) a wallet too, one address each', async () => {
    const viaWorkspace = await adminCreates(workspace.id);
    const global = await h.call('POST', '/api/v1/customers', {
      token: world.superAdmin.token,
      body: { workspaceId: workspace.id, email: uniqueEmail('global'), firstName: 'Grace', lastName: 'Hopper' },
    });
    expect(global.status, global.text).toBe(201);
    const a = await walletRow(viaWorkspace.id);
    const b = await walletRow(global.body.data.id);
    expect(viaWorkspace.walletAddress).toBe(a?.wallet_address);
    expect(global.body.data.walletAddress).toBe(b?.wallet_address);
    expect(a?.wallet_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(a?.wallet_address).not.toBe(b?.wallet_address);
    const record = await h.call('GET', `/api/v1/customers/${viaWorkspace.id}`, { token: world.superAdmin.token });
    expect(record.body.data).toMatchObject({ walletAddress: a?.wallet_address, walletLinkedAt: expect.any(String) });
  });

  it('derives the same address on a retry and never gives a customer a second wallet', async () => {
    const customer = await adminCreates(workspace.id);
    const first = await walletRow(customer.id);
    // The wallet step again (a redelivered task): the customer has a wallet, nothing changes.
    await h.sql`insert into workspace.remote_tasks (id, kind, payload, workspace_id)
      values (${randomUUID()}, 'customer-wallets.auto-create', ${h.sql.json({ workspaceId: workspace.id, customerId: customer.id })}, ${workspace.id})`;
    await eventually(
      () => tasksOf(customer.id),
      (tasks) => tasks.every((t) => t.status === 'done'),
      'the second task',
    );
    expect(await walletRow(customer.id)).toEqual(first);
    // A step whose record was lost after the derivation (a crash) derives the same account again.
    await h.sql`delete from workspace.customer_wallets where customer_id = ${customer.id}`;
    await h.sql`insert into workspace.remote_tasks (id, kind, payload, workspace_id)
      values (${randomUUID()}, 'customer-wallets.auto-create', ${h.sql.json({ workspaceId: workspace.id, customerId: customer.id })}, ${workspace.id})`;
    const again = await eventually(
      () => walletRow(customer.id),
      (row) => row !== undefined,
      'the re-created wallet',
    );
    expect(again).toEqual(first);
    const accounts = await h.sql`select 1 from workspace.platform_wallet_accounts where path = ${customerAccountPath(customer.id)}
      and workspace_id = ${workspace.id}`;
    expect(accounts).toHaveLength(1);
    expect(await auditEntries(h, { action: 'customer_wallet.auto_create', resourceId: customer.id })).toHaveLength(2);
  });

  it('reserves account 1 of the Ethereum coin type for customers, fixed by the customer id', () => {
    const id = '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b';
    expect(customerAccountPath(id)).toMatch(/^m\/44'\/60'\/1'\/\d+'\/\d+'$/);
    expect(customerAccountPath(id)).toBe(customerAccountPath(id));
    expect(customerAccountPath(randomUUID())).not.toBe(customerAccountPath(id));
    // A path any BIP-32 wallet derives (the anvil mnemonic as an example seed).
    const [, , , , a, b] = customerAccountPath(id).split('/');
    const account = mnemonicToAccount('test test test test test test test test test test test junk', {
      path: customerAccountPath(id) as `m/44'/60'/${string}`,
    });
    expect(account.address).toMatch(/^0x/);
    expect(Number(a?.slice(0, -1))).toBeLessThan(2 ** 31);
    expect(Number(b?.slice(0, -1))).toBeLessThan(2 ** 31);
  });
});

describe('autoCreateCustomerWallets off, or without a provider', () => {
  it('creates no wallet and queues nothing when the setting is off (the default)', async () => {
    await walletSettings(world.w2.id, { walletProvider: 'PLATFORM' });
    const customer = await registerCustomer(h, world.w2.slug);
    const admin = await adminCreates(world.w2.id);
    for (const id of [customer.id, admin.id]) {
      expect(await walletRow(id)).toBeUndefined();
      expect(await tasksOf(id)).toEqual([]);
    }
    expect(admin.walletAddress).toBeNull();
  });

  it('still creates the customer when the workspace has no provider, and records the skipped step', async () => {
    const workspace = await createWorkspace(h, world.superAdmin.token, 'Auto No Provider');
    await walletSettings(workspace.id, { autoCreateCustomerWallets: true });
    const customer = await registerCustomer(h, workspace.slug);
    expect(await walletRow(customer.id)).toBeUndefined();
    expect(await tasksOf(customer.id)).toEqual([expect.objectContaining({ status: 'done' })]);
    const [entry] = await auditEntries(h, { action: 'customer_wallet.auto_create_skip', resourceId: customer.id });
    expect(entry).toMatchObject({ workspace_id: workspace.id, resource_type: 'customer_wallet' });
    expect(entry?.metadata).toMatchObject({ customerId: customer.id, reason: 'no_provider', provider: null });
    // Visible to the workspace's administrators in its audit log.
    const log = await h.call('GET', `/api/v1/workspaces/${workspace.id}/audit-logs?action=customer_wallet.auto_create_skip`, {
      token: world.superAdmin.token,
    });
    expect(log.status, log.text).toBe(200);
    expect(log.text).toContain(customer.id);
  });

  it('records a skipped step when the provider has no usable config (CUSTODY_A without a config)', async () => {
    const workspace = await createWorkspace(h, world.superAdmin.token, 'Auto No Config');
    await walletSettings(workspace.id, { walletProvider: 'CUSTODY_A', autoCreateCustomerWallets: true });
    const customer = await adminCreates(workspace.id);
    expect(customer.walletAddress).toBeNull();
    const [entry] = await auditEntries(h, { action: 'customer_wallet.auto_create_skip', resourceId: customer.id });
    expect(entry?.metadata).toMatchObject({ reason: 'provider_not_configured', provider: 'CUSTODY_A' });
  });
});

describe('autoCreateCustomerWallets when the provider fails', () => {
  it('keeps the customer, retries the wallet step until the provider answers, and makes one wallet', async () => {
    const workspace = await createWorkspace(h, world.superAdmin.token, 'Auto Custody');
    const config = await h.call('POST', '/api/v1/wallet-provider-configs', {
      token: world.superAdmin.token,
      body: {
        workspaceId: workspace.id,
        providerType: 'CUSTODY_A',
        providerName: 'A main',
        config: vendorA.config,
        walletSetId: vendorA.walletSetId,
        isDefault: true,
      },
    });
    expect(config.status, config.text).toBe(201);
    await walletSettings(workspace.id, { walletProvider: 'CUSTODY_A', autoCreateCustomerWallets: true });

    vendorA.mode = 'server_error';
    const customer = await registerCustomer(h, workspace.slug);
    const stored = await h.call('GET', `/api/v1/customers/${customer.id}`, { token: world.superAdmin.token });
    expect(stored.status).toBe(200);
    expect(stored.body.data.walletAddress).toBeNull();
    const [task] = await tasksOf(customer.id);
    expect(task).toMatchObject({ status: 'pending' });
    expect(task?.attempts).toBeGreaterThanOrEqual(1);
    expect(task?.last_error).toContain('WALLET_PROVIDER_ERROR');

    vendorA.mode = 'ok';
    const row = await eventually(
      () => walletRow(customer.id),
      (r) => r !== undefined,
      'the retried wallet',
    );
    expect(row).toMatchObject({ source: 'custody_a', workspace_id: workspace.id });
    const made = vendorA.wallets.filter((w) => w.refId === customer.id);
    expect(made).toHaveLength(1);
    expect(row?.provider_wallet_id).toBe(made[0]?.id);
    expect(row?.wallet_address).toBe(getAddress(made[0]?.address as string));
    await eventually(
      () => tasksOf(customer.id),
      (tasks) => tasks[0]?.status === 'done',
      'the task to finish',
    );
    // Every attempt sent the vendor the same idempotency key.
    const keys = new Set(
      vendorA.requests
        .filter((r) => r.method === 'POST' && (r.json as { refId?: string } | undefined)?.refId === customer.id)
        .map((r) => (r.json as { idempotencyKey: string }).idempotencyKey),
    );
    expect(keys.size).toBe(1);
    const [entry] = await auditEntries(h, { action: 'customer_wallet.auto_create', resourceId: customer.id });
    expect(entry?.metadata).toMatchObject({ customerId: customer.id, provider: 'CUSTODY_A' });
  });
});

import { randomUUID } from 'node:crypto';
import { type Anvil, startAnvil } from '@holdfast/test-fixtures';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { customerJwt, insertCustomerSession, linkWallet, type RegisteredCustomer, registerCustomer } from './customers.js';
import { type Harness, type HarnessOptions, startHarness, type World } from './harness.js';
import { startCustodyA } from './vendors.js';

/** The X-Internal-API-Key of the services the route table runs against. */
export const INTERNAL_API_KEY = 'internal-key-for-route-table-0123456789';

/**
 * What the wallet and customer routes of the route table act on, all in W1: a CUSTODY_A config
 * (on a local stand-in vendor), the PLATFORM wallet provider, an external wallet config, a
 * dedicated escrow on the test anvil, customers (one created by an admin, one with a CUSTODY_A
 * wallet, one self-registered: the `customer` principal, one with a linked wallet).
 */
export interface WalletWorld {
  anvil: Anvil;
  vendorA: Awaited<ReturnType<typeof startCustodyA>>;
  w1ConfigId: string;
  w1CustomerId: string;
  w1CustodyCustomerId: string;
  customer: RegisteredCustomer;
  linkedCustomer: RegisteredCustomer;
  stop: () => Promise<void>;
}

/** A workspace-service with a chain, a custody vendor stand-in and the internal key: what the route table needs. */
export async function startWalletHarness(
  options: HarnessOptions = {},
): Promise<{ h: Harness; anvil: Anvil; vendorA: WalletWorld['vendorA'] }> {
  const [anvil, vendorA] = await Promise.all([startAnvil(), startCustodyA()]);
  const h = await startHarness({ CHAIN_RPC_URLS: `base-sepolia=${anvil.rpcUrl}`, INTERNAL_API_KEY }, options);
  return { h, anvil, vendorA };
}

async function ok(what: string, answer: Promise<{ status: number; text: string; body: unknown }>) {
  const res = await answer;
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body as { data: Record<string, unknown> };
}

export async function buildWalletWorld(
  h: Harness,
  world: World,
  started: { anvil: Anvil; vendorA: WalletWorld['vendorA'] },
): Promise<WalletWorld> {
  const token = world.superAdmin.token;
  const w1 = world.w1.id;
  await ok('walletProvider', h.call('PUT', `/api/v1/workspaces/${w1}`, { token, body: { walletProvider: 'PLATFORM' } }));
  const config = await ok(
    'config',
    h.call('POST', '/api/v1/wallet-provider-configs', {
      token,
      body: {
        workspaceId: w1,
        providerType: 'CUSTODY_A',
        providerName: 'W1 custody',
        config: started.vendorA.config,
        walletSetId: started.vendorA.walletSetId,
        isDefault: true,
      },
    }),
  );
  await ok(
    'external',
    h.call('PUT', `/api/v1/workspaces/${w1}/external-wallet-configs/EXTERNAL_WALLET_1`, { token, body: { isEnabled: true } }),
  );
  await ok('contract', h.call('POST', `/api/v1/workspaces/${w1}/contracts/base-sepolia`, { token }));
  const eth = { addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: "m/44'/60'/0'/0/0" };
  await ok('accounts', h.call('POST', `/api/v1/workspaces/${w1}/wallet-accounts`, { token, body: { accounts: [eth] } }));
  const customer = await ok(
    'customer',
    h.call('POST', `/api/v1/workspaces/${w1}/customers`, {
      token,
      body: { email: `w1-customer-${randomUUID().slice(0, 8)}@example.test`, firstName: 'Wanda', lastName: 'One' },
    }),
  );
  const custody = await ok(
    'custody customer',
    h.call('POST', `/api/v1/workspaces/${w1}/customers`, {
      token,
      body: { email: `w1-custody-${randomUUID().slice(0, 8)}@example.test`, firstName: 'Carl', lastName: 'Custody' },
    }),
  );
  await ok('custody wallet', h.call('POST', `/api/v1/customers/${custody.data.id}/custody-a-wallet`, { token, body: {} }));
  const self = await registerCustomer(h, world.w1.slug);
  const linked = await registerCustomer(h, world.w1.slug);
  const { linked: link } = await linkWallet(h, world.w1.slug, linked.token, privateKeyToAccount(generatePrivateKey()));
  if (link.status !== 200) throw new Error(`link: ${link.status} ${link.text}`);
  return {
    ...started,
    w1ConfigId: config.data.id as string,
    w1CustomerId: customer.data.id as string,
    w1CustodyCustomerId: custody.data.id as string,
    customer: self,
    linkedCustomer: linked,
    stop: async () => {
      await Promise.all([started.anvil.stop(), started.vendorA.stop()]);
    },
  };
}

/**
 * A customer of W1 inserted straight into the table (no audit entry, no argon2), with a valid
 * customer session and token: fresh targets and callers for destructive cases. Named "Fresh Customer".
 */
export async function insertCustomer(h: Harness, workspaceId: string): Promise<{ id: string; token: string }> {
  const id = randomUUID();
  await h.sql`insert into workspace.customers (id, workspace_id, email, first_name, last_name, status)
    values (${id}, ${workspaceId}, ${`fresh-${id}@example.test`}, 'Fresh', 'Customer', 'active')`;
  return { id, token: customerJwt(id, workspaceId, await insertCustomerSession(h, id)) };
}

/** A wallet provider config of W1 inserted straight into the table (its credentials do not open), named "Fresh config". */
export async function insertProviderConfig(h: Harness, workspaceId: string): Promise<string> {
  const id = randomUUID();
  await h.sql`insert into workspace.wallet_provider_configs (id, workspace_id, provider_type, provider_name, config_sealed)
    values (${id}, ${workspaceId}, 'CUSTODY_A', 'Fresh config', 'v1.unopenable.x.y')`;
  return id;
}

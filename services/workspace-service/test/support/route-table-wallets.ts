import { workspaceEndpoints as api } from '@holdfast/contracts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { siweMessageFor } from './customers.js';
import { PASSWORD, uniqueEmail } from './harness.js';
import { all, bearer, freshTenant, versioned } from './route-statuses.js';
import type { BadInput, Context, Prepared, Principal, RouteCase } from './route-table.js';
import { INTERNAL_API_KEY, insertCustomer, insertProviderConfig } from './wallet-world.js';

// The customer and wallet routes of issue 8, in the route table's terms (route-table.ts spreads
// them into ROUTES and BAD_INPUT). Fixtures that a route changes are made fresh per call, straight
// in the tables (no audit entry), so that the tenant-isolation snapshot of W1 sees only them change.

/** A customer route: only W1's customer token opens it. */
const customerOnly = (status: number): Record<Principal, number> => ({ ...all(401), customer: status });
/** The internal status listing: no bearer token opens it. */
const internalOnly = (): Record<Principal, number> => all(401);

const W1 = (ctx: Context) => ctx.world.w1.id;
const at = (path: (ctx: Context) => string) => async (ctx: Context) => ({ path: path(ctx) });
const customersOf = (ctx: Context) => `/api/v1/workspaces/${W1(ctx)}/customers`;
const selfService = (ctx: Context, what: string, ref = ctx.world.w1.slug) => `/api/v1/workspaces/${ref}/customers/auth/${what}`;

async function freshRefreshToken(ctx: Context): Promise<string> {
  const res = await ctx.h.call('POST', selfService(ctx, 'login'), { body: { email: ctx.wallets.customer.email, password: PASSWORD } });
  if (res.status !== 200) throw new Error(`customer login: ${res.status} ${res.text}`);
  return res.body.data.refreshToken;
}

/** A fresh customer of W1 with its token as the `customer` principal, and a signed link-wallet body for it. */
async function signedLink(ctx: Context): Promise<Prepared> {
  const customer = await insertCustomer(ctx.h, W1(ctx));
  const account = privateKeyToAccount(generatePrivateKey());
  const nonce = await ctx.h.call('POST', selfService(ctx, 'wallet-nonce'), { token: customer.token, body: {} });
  if (nonce.status !== 200) throw new Error(`nonce: ${nonce.status} ${nonce.text}`);
  const message = siweMessageFor(nonce.body.data, account.address);
  return {
    path: selfService(ctx, 'link-wallet'),
    body: { walletAddress: account.address, message, signature: await account.signMessage({ message }) },
    tokens: { customer: customer.token },
  };
}

export const WALLET_ROUTES: RouteCase[] = [
  // Workspace customers.
  { ...versioned(api.listWorkspaceCustomers), prepare: at(customersOf), expect: bearer(403, 200, 200, 403) },
  {
    ...versioned(api.createWorkspaceCustomer),
    audit: 'customer.create',
    prepare: async (ctx) => ({ path: customersOf(ctx), body: { email: uniqueEmail('matrix'), firstName: 'Matt', lastName: 'Rix' } }),
    expect: bearer(403, 201, 201, 403),
  },

  // Customer self-service (W1 by slug or id).
  {
    ...versioned(api.registerCustomer),
    audit: 'customer.register',
    prepare: async (ctx) => ({ path: selfService(ctx, 'register'), body: { email: uniqueEmail('self'), password: PASSWORD } }),
    expect: all(201),
  },
  {
    ...versioned(api.loginCustomer),
    audit: 'customer.login',
    prepare: async (ctx) => ({ path: selfService(ctx, 'login', W1(ctx)), body: { email: ctx.wallets.customer.email, password: PASSWORD } }),
    expect: all(200),
  },
  {
    ...versioned(api.refreshCustomer),
    audit: 'customer.refresh',
    prepare: async (ctx) => ({ path: selfService(ctx, 'refresh'), body: { refreshToken: await freshRefreshToken(ctx) } }),
    expect: all(200),
  },
  {
    ...versioned(api.logoutCustomer),
    audit: 'customer.logout',
    prepare: async (ctx) => ({ path: selfService(ctx, 'logout'), body: { refreshToken: await freshRefreshToken(ctx) } }),
    expect: all(200),
  },
  {
    ...versioned(api.customerMe),
    prepare: at((ctx) => selfService(ctx, 'me')),
    expect: customerOnly(200),
  },
  {
    ...versioned(api.customerWalletNonce),
    prepare: async (ctx) => ({ path: selfService(ctx, 'wallet-nonce', W1(ctx)), body: { chainId: 84532 } }),
    expect: customerOnly(200),
  },
  {
    ...versioned(api.customerLinkWallet),
    audit: 'customer_wallet.link',
    prepare: signedLink,
    expect: customerOnly(200),
  },
  {
    ...versioned(api.customerWalletBalances),
    prepare: async (ctx) => ({ path: selfService(ctx, 'wallet-balances'), tokens: { customer: ctx.wallets.linkedCustomer.token } }),
    expect: customerOnly(200),
  },

  // Global customers.
  { ...versioned(api.listCustomers), prepare: at(() => '/api/v1/customers'), expect: bearer(403, 200, 200, 200) },
  {
    ...versioned(api.createCustomer),
    audit: 'customer.create',
    prepare: async (ctx) => ({
      path: '/api/v1/customers',
      body: { workspaceId: W1(ctx), email: uniqueEmail('global'), firstName: 'Glo', lastName: 'Bal' },
    }),
    expect: bearer(403, 201, 201, 403),
  },
  {
    ...versioned(api.getCustomer),
    prepare: at((ctx) => `/api/v1/customers/${ctx.wallets.w1CustomerId}`),
    expect: bearer(403, 200, 200, 404),
  },
  {
    ...versioned(api.updateCustomer),
    audit: 'customer.update',
    prepare: async (ctx) => ({ path: `/api/v1/customers/${(await insertCustomer(ctx.h, W1(ctx))).id}`, body: { city: 'Lisbon' } }),
    expect: bearer(403, 200, 200, 404),
  },
  {
    ...versioned(api.deleteCustomer),
    audit: 'customer.delete',
    prepare: async (ctx) => ({ path: `/api/v1/customers/${(await insertCustomer(ctx.h, W1(ctx))).id}` }),
    expect: bearer(403, 200, 200, 404),
  },
  {
    ...versioned(api.getCustodyAWallet),
    prepare: at((ctx) => `/api/v1/customers/${ctx.wallets.w1CustodyCustomerId}/custody-a-wallet`),
    expect: bearer(200, 200, 200, 404),
  },
  {
    ...versioned(api.createCustodyAWallet),
    audit: 'customer_wallet.custody_a_create',
    prepare: async (ctx) => ({ path: `/api/v1/customers/${(await insertCustomer(ctx.h, W1(ctx))).id}/custody-a-wallet`, body: {} }),
    expect: bearer(403, 201, 201, 404),
  },
  {
    ...versioned(api.getCustodyAWalletBalance),
    prepare: at((ctx) => `/api/v1/customers/${ctx.wallets.w1CustodyCustomerId}/custody-a-wallet/balance`),
    expect: bearer(403, 200, 200, 404),
  },

  // Wallet provider configs.
  {
    ...versioned(api.listWalletProviderConfigs),
    prepare: at(() => '/api/v1/wallet-provider-configs'),
    expect: bearer(403, 200, 200, 200),
  },
  {
    ...versioned(api.createWalletProviderConfig),
    audit: 'wallet_provider_config.create',
    prepare: async (ctx) => ({
      path: '/api/v1/wallet-provider-configs',
      body: {
        workspaceId: W1(ctx),
        providerType: 'CUSTODY_B',
        providerName: 'Matrix B',
        config: { baseUrl: 'https://b.example', apiKey: 'b-key-0123456789', apiSecret: 'b-secret-0123456789' },
      },
    }),
    expect: bearer(403, 201, 201, 403),
  },
  {
    ...versioned(api.walletProviderConfigStatus),
    prepare: at(() => '/api/v1/wallet-provider-configs/status'),
    expect: internalOnly(),
    codes: { expired: 'UNAUTHORIZED' },
  },
  {
    ...versioned(api.checkDuplicateWalletProviderConfig),
    prepare: at((ctx) => `/api/v1/wallet-provider-configs/check-duplicate?providerType=CUSTODY_A&workspaceId=${W1(ctx)}`),
    expect: bearer(403, 200, 200, 403),
  },
  {
    ...versioned(api.getWalletProviderConfig),
    prepare: at((ctx) => `/api/v1/wallet-provider-configs/${ctx.wallets.w1ConfigId}`),
    expect: bearer(403, 200, 200, 404),
  },
  {
    ...versioned(api.updateWalletProviderConfig),
    audit: 'wallet_provider_config.update',
    prepare: async (ctx) => ({
      path: `/api/v1/wallet-provider-configs/${await insertProviderConfig(ctx.h, W1(ctx))}`,
      body: { providerName: 'Renamed' },
    }),
    expect: bearer(403, 200, 200, 404),
  },
  {
    ...versioned(api.deleteWalletProviderConfig),
    audit: 'wallet_provider_config.delete',
    prepare: async (ctx) => ({ path: `/api/v1/wallet-provider-configs/${await insertProviderConfig(ctx.h, W1(ctx))}` }),
    expect: bearer(403, 204, 204, 404),
  },
  {
    ...versioned(api.testWalletProviderConnection),
    prepare: at((ctx) => `/api/v1/wallet-provider-configs/${ctx.wallets.w1ConfigId}/test-connection`),
    expect: bearer(403, 200, 200, 404),
  },
  {
    ...versioned(api.setDefaultWalletProviderConfig),
    audit: 'wallet_provider_config.set_default',
    prepare: async (ctx) => {
      const id = await insertProviderConfig(ctx.h, W1(ctx));
      return {
        path: `/api/v1/wallet-provider-configs/${id}/set-default`,
        // The W1 config stays the one W1 uses.
        after: async () => {
          await ctx.h.call('POST', `/api/v1/wallet-provider-configs/${ctx.wallets.w1ConfigId}/set-default`, {
            token: ctx.world.superAdmin.token,
          });
        },
      };
    },
    expect: bearer(403, 200, 200, 404),
  },

  // External wallet configs (workspace access).
  {
    ...versioned(api.listExternalWalletConfigs),
    prepare: at((ctx) => `/api/v1/workspaces/${W1(ctx)}/external-wallet-configs`),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.getExternalWalletConfig),
    prepare: at((ctx) => `/api/v1/workspaces/${W1(ctx)}/external-wallet-configs/EXTERNAL_WALLET_1`),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.upsertExternalWalletConfig),
    audit: 'external_wallet_config.upsert',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${W1(ctx)}/external-wallet-configs/EXTERNAL_WALLET_2`,
      body: { allowedNetworks: ['BASE_SEPOLIA'] },
    }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.deleteExternalWalletConfig),
    audit: 'external_wallet_config.delete',
    prepare: async (ctx) => {
      const path = `/api/v1/workspaces/${W1(ctx)}/external-wallet-configs/EXTERNAL_WALLET_4`;
      await ctx.h.sql`insert into workspace.external_wallet_configs (id, workspace_id, provider_type)
        values (gen_random_uuid(), ${W1(ctx)}, 'EXTERNAL_WALLET_4') on conflict do nothing`;
      return { path };
    },
    expect: bearer(200, 200, 200, 403),
  },

  // Wallet accounts and balances.
  {
    ...versioned(api.listWalletAccounts),
    prepare: at((ctx) => `/api/v1/workspaces/${W1(ctx)}/wallet-accounts`),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.createWalletAccounts),
    audit: 'wallet_account.create',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${W1(ctx)}/wallet-accounts`,
      body: { accounts: [{ addressFormat: 'ADDRESS_FORMAT_ETHEREUM', curve: 'CURVE_SECP256K1', path: "m/44'/60'/0'/0/1" }] },
    }),
    expect: bearer(403, 200, 200, 403),
  },
  {
    ...versioned(api.getWalletBalances),
    prepare: at((ctx) => `/api/v1/workspaces/${W1(ctx)}/wallet-balances`),
    expect: bearer(200, 200, 200, 403),
  },

  // Contracts.
  {
    ...versioned(api.listContracts),
    prepare: at((ctx) => `/api/v1/workspaces/${W1(ctx)}/contracts`),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.getContractForNetwork),
    prepare: at((ctx) => `/api/v1/workspaces/${W1(ctx)}/contracts/base-sepolia`),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.deployContract),
    audit: 'contract_deployment.deploy',
    prepare: async (ctx, principal) => {
      // One dedicated escrow per workspace and network: a fresh workspace for the callers that may deploy.
      if (principal !== 'admin' && principal !== 'superAdmin' && principal !== 'client')
        return { path: `/api/v1/workspaces/${W1(ctx)}/contracts/base-sepolia` };
      const fresh = await freshTenant(ctx);
      return { path: `/api/v1/workspaces/${fresh.workspace.id}/contracts/base-sepolia`, tokens: fresh.tokens };
    },
    expect: bearer(403, 201, 201, 403),
  },
  {
    ...versioned(api.deprecateContract),
    audit: 'contract_deployment.deprecate',
    prepare: async (ctx, principal) => {
      const workspace = principal === 'admin' || principal === 'superAdmin' || principal === 'client' ? await freshTenant(ctx) : undefined;
      const id = workspace?.workspace.id ?? W1(ctx);
      const deployment = workspace
        ? (await ctx.h.call('POST', `/api/v1/workspaces/${id}/contracts/base-sepolia`, { token: ctx.world.superAdmin.token })).body.data
            .deploymentId
        : (await ctx.h.call('GET', `/api/v1/workspaces/${id}/contracts/base-sepolia`, { token: ctx.world.superAdmin.token })).body.data
            .deploymentId;
      return {
        path: `/api/v1/workspaces/${id}/contracts/deployments/${deployment}/deprecate`,
        ...(workspace ? { tokens: workspace.tokens } : {}),
      };
    },
    expect: bearer(403, 200, 200, 403),
  },
];

const fixed = (path: string) => () => path;
const w1 = (suffix: string) => (ctx: Context) => `/api/v1/workspaces/${ctx.world.w1.id}${suffix}`;

/** Bad input for every route above that takes input. */
export const WALLET_BAD_INPUT: Record<string, BadInput> = {
  'GET /api/v1/workspaces/:id/customers': { path: w1('/customers?status=gone') },
  'POST /api/v1/workspaces/:id/customers': { path: w1('/customers'), body: { email: 'nope', firstName: 'A' } },
  'POST /api/v1/workspaces/:id/customers/auth/register': { path: w1('/customers/auth/register'), body: { email: 'nope', password: 'x' } },
  'POST /api/v1/workspaces/:id/customers/auth/login': { path: w1('/customers/auth/login'), body: { email: 'a@b.test' } },
  'POST /api/v1/workspaces/:id/customers/auth/refresh': { path: w1('/customers/auth/refresh'), body: { refreshToken: '' } },
  'POST /api/v1/workspaces/:id/customers/auth/logout': { path: w1('/customers/auth/logout'), body: {} },
  'GET /api/v1/workspaces/:id/customers/auth/me': { path: fixed('/api/v1/workspaces/not_a_slug/customers/auth/me'), as: 'customer' },
  'POST /api/v1/workspaces/:id/customers/auth/wallet-nonce': {
    path: w1('/customers/auth/wallet-nonce'),
    body: { chainId: 0 },
    as: 'customer',
  },
  'POST /api/v1/workspaces/:id/customers/auth/link-wallet': {
    path: w1('/customers/auth/link-wallet'),
    body: { walletAddress: '0x1234', signature: 'nothex', message: '' },
    as: 'customer',
  },
  'GET /api/v1/workspaces/:id/customers/auth/wallet-balances': {
    path: fixed('/api/v1/workspaces/not_a_slug/customers/auth/wallet-balances'),
    as: 'customer',
  },
  'GET /api/v1/customers': { path: fixed('/api/v1/customers?workspaceId=not-a-uuid') },
  'POST /api/v1/customers': { path: fixed('/api/v1/customers'), body: { email: 'a@b.test', firstName: 'A', lastName: 'B' } },
  'GET /api/v1/customers/:id': { path: fixed('/api/v1/customers/not-a-uuid') },
  'PUT /api/v1/customers/:id': { path: (ctx) => `/api/v1/customers/${ctx.wallets.w1CustomerId}`, body: { status: 'gone' } },
  'DELETE /api/v1/customers/:id': { path: fixed('/api/v1/customers/not-a-uuid') },
  'GET /api/v1/customers/:id/custody-a-wallet': { path: fixed('/api/v1/customers/not-a-uuid/custody-a-wallet') },
  'POST /api/v1/customers/:id/custody-a-wallet': {
    path: (ctx) => `/api/v1/customers/${ctx.wallets.w1CustomerId}/custody-a-wallet`,
    body: { network: 'MOON' },
  },
  'GET /api/v1/customers/:id/custody-a-wallet/balance': { path: fixed('/api/v1/customers/not-a-uuid/custody-a-wallet/balance') },
  'GET /api/v1/wallet-provider-configs': { path: fixed('/api/v1/wallet-provider-configs?providerType=CUSTODY_Z') },
  'POST /api/v1/wallet-provider-configs': {
    path: fixed('/api/v1/wallet-provider-configs'),
    body: { providerType: 'CUSTODY_A', providerName: 'x', config: {}, isGlobal: true },
  },
  'GET /api/v1/wallet-provider-configs/status': {
    path: fixed('/api/v1/wallet-provider-configs/status?workspaceId=not-a-uuid'),
    headers: { 'x-internal-api-key': INTERNAL_API_KEY },
    as: 'anonymous',
  },
  'GET /api/v1/wallet-provider-configs/check-duplicate': {
    path: fixed('/api/v1/wallet-provider-configs/check-duplicate?providerType=CUSTODY_B'),
  },
  'GET /api/v1/wallet-provider-configs/:id': { path: fixed('/api/v1/wallet-provider-configs/not-a-uuid') },
  'PATCH /api/v1/wallet-provider-configs/:id': { path: (ctx) => `/api/v1/wallet-provider-configs/${ctx.wallets.w1ConfigId}`, body: {} },
  'DELETE /api/v1/wallet-provider-configs/:id': { path: fixed('/api/v1/wallet-provider-configs/not-a-uuid') },
  'POST /api/v1/wallet-provider-configs/:id/test-connection': { path: fixed('/api/v1/wallet-provider-configs/not-a-uuid/test-connection') },
  'POST /api/v1/wallet-provider-configs/:id/set-default': { path: fixed('/api/v1/wallet-provider-configs/not-a-uuid/set-default') },
  'GET /api/v1/workspaces/:id/external-wallet-configs': { path: fixed('/api/v1/workspaces/not-a-uuid/external-wallet-configs') },
  'GET /api/v1/workspaces/:id/external-wallet-configs/:type': { path: w1('/external-wallet-configs/EXTERNAL_WALLET_9') },
  'PUT /api/v1/workspaces/:id/external-wallet-configs/:type': {
    path: w1('/external-wallet-configs/EXTERNAL_WALLET_3'),
    body: { allowedNetworks: ['mars'] },
  },
  'DELETE /api/v1/workspaces/:id/external-wallet-configs/:type': { path: w1('/external-wallet-configs/WALLET') },
  'GET /api/v1/workspaces/:id/wallet-accounts': { path: fixed('/api/v1/workspaces/not-a-uuid/wallet-accounts') },
  'POST /api/v1/workspaces/:id/wallet-accounts': {
    path: w1('/wallet-accounts'),
    body: { accounts: [{ addressFormat: 'ADDRESS_FORMAT_SOLANA', curve: 'CURVE_SECP256K1', path: "m/44'/501'/0'/0'" }] },
  },
  'GET /api/v1/workspaces/:id/wallet-balances': { path: fixed('/api/v1/workspaces/not-a-uuid/wallet-balances') },
  'GET /api/v1/workspaces/:id/contracts': { path: fixed('/api/v1/workspaces/not-a-uuid/contracts') },
  'GET /api/v1/workspaces/:id/contracts/:network': { path: w1('/contracts/solana') },
  'POST /api/v1/workspaces/:id/contracts/:network': { path: w1('/contracts/mars') },
  'POST /api/v1/workspaces/:id/contracts/deployments/:deploymentId/deprecate': { path: w1('/contracts/deployments/not-a-uuid/deprecate') },
};

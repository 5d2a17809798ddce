import { randomBytes, randomUUID } from 'node:crypto';
import { workspaceEndpoints as api, type Endpoint, INTEGRATION_CATALOG, PAYMENTS_COMMANDS, WebhookCommands } from '@holdfast/contracts';
import { publishEvent, sendCommand } from '@holdfast/messaging';
import { domainEvent, sendWebhookCommand } from '@holdfast/test-fixtures';
import type { FormData } from 'undici';
import { imageForm, insertUser } from './fixtures.js';
import { type Harness, PASSWORD, SUPER_PASSWORD, uniqueEmail, type World } from './harness.js';
import { all, bearer, freshTenant, hostRoot, versioned } from './route-statuses.js';
import { WALLET_BAD_INPUT, WALLET_ROUTES } from './route-table-wallets.js';
import { seedTransaction } from './transactions.js';
import type { WalletWorld } from './wallet-world.js';

/** Who calls: nobody, an expired token, W1's CLIENT and ADMIN, the operator, W2's ADMIN, and a customer of W1 (customer JWT). */
export const PRINCIPALS = ['anonymous', 'expired', 'client', 'admin', 'superAdmin', 'otherTenant', 'customer'] as const;
export type Principal = (typeof PRINCIPALS)[number];

export interface Context {
  h: Harness;
  world: World;
  /** An avatar file name served by GET /avatars/{file}. */
  avatarFile: string;
  /** An audit entry filed under W1. */
  w1AuditEntryId: string;
  /** W1's wallets, contracts and customers (wallet-world.ts). */
  wallets: WalletWorld;
  /** W1's sandbox credentials, OAuth client and webhook, made through payments and the dispatcher (`prepareForwarded`). */
  forwarded: Forwarded;
}

export interface Forwarded {
  /** A webhook subscription of W1 (its receiver refuses connections) and a delivery of it. */
  webhookId: string;
  deliveryId: string;
  /** An OAuth client of W1, on its sandbox credentials. */
  clientId: string;
  /** W1's sandbox API key (its workspace key) and a transaction on that platform. */
  apiKey: string;
  transactionId: string;
}

/** Where W1's subscriptions point: nothing listens there, so attempts fail at once. */
export const DEAD_RECEIVER = 'http://127.0.0.1:9/matrix';

async function ok<T>(h: Harness, method: string, path: string, token: string, body?: unknown): Promise<T> {
  const res = await h.call(method, path, { token, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body?.data as T;
}

/**
 * W1 gets sandbox credentials, an OAuth client and a webhook subscription with one delivery (an
 * event of W1 published on the stream): the targets of the forwarding routes in the table.
 */
export async function prepareForwarded(h: Harness, world: World): Promise<Forwarded> {
  const w1 = `/api/v1/workspaces/${world.w1.id}`;
  const token = world.superAdmin.token;
  const sandbox = await ok<{ apiKey: string; platformId: string }>(h, 'POST', `${w1}/sandbox-credentials`, token);
  const transactionId = await seedTransaction(h, { platformId: sandbox.platformId });
  const client = await ok<{ clientId: string }>(h, 'POST', `${w1}/oauth/clients`, token, {
    name: 'W1 backend',
    scopes: ['transactions:read'],
  });
  const webhook = await ok<{ id: string }>(h, 'POST', `${w1}/webhooks`, token, { url: DEAD_RECEIVER, eventTypes: ['transaction.created'] });
  const event = domainEvent('transaction.created', { workspaceId: world.w1.id }, { transaction: { id: randomUUID(), status: 'pending' } });
  await publishEvent(h.nats.bus, event);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const logs = await ok<{ logs: { deliveryId: string }[] }>(h, 'GET', `${w1}/webhooks/${webhook.id}/delivery-logs`, token);
    if (logs.logs[0]) {
      return {
        webhookId: webhook.id,
        deliveryId: logs.logs[0].deliveryId,
        clientId: client.clientId,
        apiKey: sandbox.apiKey,
        transactionId,
      };
    }
    if (Date.now() > deadline) throw new Error('no delivery attempt for the W1 subscription');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Targets of destructive cases, made straight through the commands (no audit entry, nothing a
 * tenant did): a subscription of W1 marked `fixture`, an OAuth client of W1 named `Fixture client`.
 */
export const FIXTURE_CLIENT_NAME = 'Fixture client';

async function fixtureWebhook(ctx: Context): Promise<string> {
  const created = await sendWebhookCommand(ctx.h.nats.bus, WebhookCommands.create, {
    owner: { workspaceId: ctx.world.w1.id },
    url: DEAD_RECEIVER,
    eventTypes: ['dispute.created'],
    metadata: { fixture: true },
  });
  return created.id;
}

async function fixtureClient(ctx: Context): Promise<string> {
  const created = await sendCommand(ctx.h.nats.bus, PAYMENTS_COMMANDS.createOAuthClient, {
    workspaceId: ctx.world.w1.id,
    name: FIXTURE_CLIENT_NAME,
    scopes: ['read:transactions'],
  });
  return created.clientId;
}

/** Fresh sandbox credentials of a fresh tenant (their limits are per workspace). */
async function freshCredential(ctx: Context) {
  const fresh = await freshTenant(ctx);
  const issued = await ok<{ platformId: string }>(
    ctx.h,
    'POST',
    `/api/v1/workspaces/${fresh.workspace.id}/sandbox-credentials`,
    ctx.world.superAdmin.token,
  );
  return { ...fresh, platformId: issued.platformId };
}

export interface Prepared {
  path: string;
  body?: unknown;
  form?: FormData;
  /** Tokens of a fresh tenant, replacing the client and admin principals (destructive cases). */
  tokens?: Partial<Record<Principal, string>>;
  /** Runs after the call (puts back what the case changed). */
  after?: (token: string | undefined) => Promise<void>;
}

export interface RouteCase {
  /** The endpoint of the catalogue; `method` and `route` are its own (`versioned` or `hostRoot` in route-statuses.ts). */
  endpoint: Endpoint;
  method: Endpoint['method'];
  /** The route as registered, `/api/v1/...` or host root. */
  route: string;
  prepare: (ctx: Context, principal: Principal) => Promise<Prepared>;
  expect: Record<Principal, number>;
  /** The audit action of a mutating route. */
  audit?: string;
  /** The error code a principal gets where it is not the usual one for its status. */
  codes?: Partial<Record<Principal, string>>;
}

async function signupWithCode(ctx: Context): Promise<{ email: string; code: string }> {
  const email = uniqueEmail('signup');
  const res = await ctx.h.call('POST', '/auth/signup', { body: { email, password: PASSWORD, firstName: 'Sign', lastName: 'Up' } });
  if (res.status !== 201) throw new Error(`signup: ${res.status} ${res.text}`);
  return { email, code: res.body.data.verificationCode };
}

async function freshRefreshToken(ctx: Context): Promise<string> {
  return (await ctx.h.login(ctx.world.clientW1.email)).refreshToken;
}

async function freshClientOfW1(ctx: Context): Promise<string> {
  return (await insertUser(ctx.h, { role: 'CLIENT', workspaceId: ctx.world.w1.id, passwordHashOf: ctx.world.clientW1.id })).id;
}

const at = (path: string) => async () => ({ path });

/** Log in, refresh and log out at `served` routes (public: a bearer changes nothing), logging in W1's CLIENT as `email`. */
function sessionRoutes(
  endpoints: Record<'login' | 'refresh' | 'logout', Endpoint>,
  served: typeof versioned,
  email: (ctx: Context) => string,
): RouteCase[] {
  const refreshing = (action: 'refresh' | 'logout'): RouteCase => {
    const target = served(endpoints[action]);
    return {
      ...target,
      audit: `auth.${action}`,
      prepare: async (ctx) => ({ path: target.route, body: { refreshToken: await freshRefreshToken(ctx) } }),
      expect: all(200),
    };
  };
  const login = served(endpoints.login);
  return [
    {
      ...login,
      audit: 'auth.login',
      prepare: async (ctx) => ({ path: login.route, body: { email: email(ctx), password: PASSWORD } }),
      expect: all(200),
    },
    refreshing('refresh'),
    refreshing('logout'),
  ];
}

// Integrations, settings and notifications (issue 9).
const kindId = (key: string) => INTEGRATION_CATALOG.find((k) => k.key === key)!.id;
const KYC = kindId('kyc-provider');
const EXPORT = kindId('accounting-export');
const CHAT = kindId('chat-notifier');
const EXPORT_CONFIG = { format: 'csv', schedule: 'daily', recipientEmail: 'books@matrix.test' };

/** W1's chat-notifier integration (created once; the tenant-isolation test creates it up front). */
export async function ensureW1Integration(ctx: Context): Promise<void> {
  const [row] = await ctx.h
    .sql`select id from workspace.workspace_integrations where workspace_id = ${ctx.world.w1.id} and integration_id = ${CHAT}`;
  if (row) return;
  const res = await ctx.h.call('POST', `/api/v1/workspaces/${ctx.world.w1.id}/integrations`, {
    token: ctx.world.superAdmin.token,
    body: { integrationId: CHAT, config: { webhookToken: 'T00MATRIX/B00/w1token0001' }, metadata: { owner: 'w1-integration' } },
  });
  if (res.status !== 200) throw new Error(`W1 integration: ${res.status} ${res.text}`);
}

async function removeW1Integration(ctx: Context, integrationId: string): Promise<void> {
  await ctx.h
    .sql`delete from workspace.workspace_integrations where workspace_id = ${ctx.world.w1.id} and integration_id = ${integrationId}`;
}

/** The workspace a principal's `/settings` calls reach: W1 (the SUPER_ADMIN names it), W2 for the other tenant. */
function settingsScope(ctx: Context, principal: Principal): string {
  return principal === 'otherTenant' ? ctx.world.w2.id : ctx.world.w1.id;
}

const settingsPath = (ctx: Context, principal: Principal, path: string) =>
  principal === 'superAdmin' ? `${path}?workspaceId=${ctx.world.w1.id}` : path;

/** The setting `matrix.key` in the principal's scope. */
async function ensureSetting(ctx: Context, principal: Principal): Promise<void> {
  await ctx.h.sql`insert into workspace.settings (id, workspace_id, key, value, category)
    values (${randomUUID()}, ${settingsScope(ctx, principal)}, 'matrix.key', 'matrix value', 'matrix')
    on conflict on constraint settings_scope_key_unique do nothing`;
}

/** A notification of W1's CLIENT: only that user may read or mark it. */
async function clientW1Notification(ctx: Context): Promise<string> {
  const id = randomUUID();
  await ctx.h.sql`insert into workspace.notifications (id, user_id, workspace_id, event_id, event_type, type, priority, title, message)
    values (${id}, ${ctx.world.clientW1.id}, ${ctx.world.w1.id}, ${`evt_matrix${id.replaceAll('-', '')}`}, 'transaction.escrowed',
      'transaction', 'normal', 'Payment escrowed', 'The funds of payment 2b1d5e9e are held in escrow.')`;
  return id;
}

/**
 * Every route of the Workspace API (the unversioned `/api/*` copies are checked from this table
 * too), with the status each principal gets. The matrix, the tenant-isolation and the audit tests
 * are generated from it.
 */
export const ROUTES: RouteCase[] = [
  // Sessions (host root): public, a bearer changes nothing.
  {
    ...hostRoot(api.signup),
    audit: 'auth.signup',
    prepare: async () => ({
      path: '/auth/signup',
      body: { email: uniqueEmail('signup'), password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace', companyName: 'Acme' },
    }),
    expect: all(201),
  },
  {
    ...hostRoot(api.verifyCode),
    audit: 'auth.verify_email',
    prepare: async (ctx) => ({ path: '/auth/verify-code', body: await signupWithCode(ctx) }),
    expect: all(200),
  },
  {
    ...hostRoot(api.resendCode),
    audit: 'auth.resend_code',
    prepare: async () => ({ path: '/auth/resend-code', body: { email: uniqueEmail('nobody') } }),
    expect: all(200),
  },
  // The login there takes the e-mail in any case.
  ...sessionRoutes({ login: api.identityLogin, refresh: api.identityRefresh, logout: api.identityLogout }, hostRoot, (ctx) =>
    ctx.world.clientW1.email.toUpperCase(),
  ),
  { ...hostRoot(api.identityMe), prepare: at('/identity/me'), expect: bearer(200, 200, 200, 200) },
  { ...hostRoot(api.getAvatar), prepare: async (ctx) => ({ path: `/avatars/${ctx.avatarFile}` }), expect: all(200) },

  // Sessions under /api/v1.
  ...sessionRoutes(
    { login: api.authLogin, refresh: api.authRefresh, logout: api.authLogout },
    versioned,
    (ctx) => ctx.world.clientW1.email,
  ),

  // Workspaces.
  { ...versioned(api.listWorkspaces), prepare: at('/api/v1/workspaces'), expect: bearer(403, 200, 200, 200) },
  {
    ...versioned(api.createWorkspace),
    audit: 'workspace.create',
    prepare: async () => ({
      path: '/api/v1/workspaces',
      body: { name: `Matrix ${Math.random().toString(36).slice(2, 8)}`, email: 'ops@matrix.test' },
    }),
    // W1's and W2's ADMINs already belong to a workspace.
    expect: bearer(403, 409, 201, 409),
  },
  { ...versioned(api.getMyWorkspace), prepare: at('/api/v1/workspaces/me'), expect: bearer(200, 200, 400, 200) },
  {
    ...versioned(api.updateMyWorkspace),
    audit: 'workspace.update',
    prepare: async () => ({ path: '/api/v1/workspaces/me', body: { metadata: { touchedBy: 'matrix' } } }),
    // A CLIENT may not change its workspace (issue 28 item 6: it changed name, e-mail, webhookUrl, walletProvider).
    expect: bearer(403, 200, 400, 200),
  },
  {
    ...versioned(api.getWorkspace),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.updateWorkspace),
    audit: 'workspace.update',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}`,
      body: { webhookUrl: 'https://hooks.tenant-one.test/holdfast' },
    }),
    expect: bearer(403, 200, 200, 403),
  },
  {
    ...versioned(api.deleteWorkspace),
    audit: 'workspace.delete',
    prepare: async (ctx) => {
      const fresh = await freshTenant(ctx);
      return { path: `/api/v1/workspaces/${fresh.workspace.id}`, tokens: fresh.tokens };
    },
    expect: bearer(403, 204, 204, 403),
  },
  {
    ...versioned(api.uploadWorkspaceAvatar),
    audit: 'workspace.avatar_upload',
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/avatar`, form: imageForm() }),
    expect: bearer(403, 200, 200, 403),
  },
  {
    ...versioned(api.deleteWorkspaceAvatar),
    audit: 'workspace.avatar_delete',
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/avatar` }),
    expect: bearer(403, 204, 204, 403),
  },
  {
    ...versioned(api.getWorkspaceBilling),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/billing` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.updateWorkspaceBilling),
    audit: 'workspace.billing_update',
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/billing`, body: { companyName: 'Tenant One Ltd' } }),
    expect: bearer(403, 200, 200, 403),
  },
  {
    ...versioned(api.listPlatformMappings),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/platform-mappings` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.getWalletSettings),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/wallet-settings` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.updateWalletSettings),
    audit: 'workspace.wallet_settings_update',
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/wallet-settings`, body: { autoCreateCustomerWallets: true } }),
    expect: bearer(403, 200, 200, 403),
  },
  {
    ...versioned(api.replaceWalletSettings),
    audit: 'workspace.wallet_settings_update',
    // A replacement: keeps the PLATFORM provider the wallet routes of this world rely on.
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/wallet-settings`,
      body: { walletProvider: 'PLATFORM', autoCreateCustomerWallets: true },
    }),
    expect: bearer(403, 200, 200, 403),
  },
  {
    ...versioned(api.listWorkspaceAuditLogs),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/audit-logs` }),
    expect: bearer(403, 200, 200, 403),
  },
  {
    ...versioned(api.listOAuthScopes),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/oauth/scopes` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.listWebhookEventTypes),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks/events/types` }),
    expect: bearer(200, 200, 200, 403),
  },

  // Sandbox credentials (forwarded to payments; limits per workspace, so the writes use a fresh tenant).
  {
    ...versioned(api.listSandboxCredentials),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/sandbox-credentials` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.issueSandboxCredentials),
    audit: 'sandbox_credential.issue',
    prepare: async (ctx) => {
      const fresh = await freshTenant(ctx);
      return { path: `/api/v1/workspaces/${fresh.workspace.id}/sandbox-credentials`, tokens: fresh.tokens };
    },
    expect: bearer(403, 201, 201, 403),
  },
  {
    ...versioned(api.revokeSandboxCredentials),
    audit: 'sandbox_credential.revoke',
    prepare: async (ctx) => {
      const fresh = await freshCredential(ctx);
      return { path: `/api/v1/workspaces/${fresh.workspace.id}/sandbox-credentials/${fresh.platformId}`, tokens: fresh.tokens };
    },
    expect: bearer(403, 204, 204, 403),
  },

  // OAuth clients (forwarded to payments).
  {
    ...versioned(api.listOAuthClients),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/oauth/clients` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.createOAuthClient),
    audit: 'oauth_client.create',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/oauth/clients`,
      body: { name: 'Matrix client', scopes: ['transactions:read', 'platform:read'] },
    }),
    expect: bearer(201, 201, 201, 403),
  },
  {
    ...versioned(api.getOAuthClient),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/oauth/clients/${ctx.forwarded.clientId}` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.updateOAuthClient),
    audit: 'oauth_client.update',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/oauth/clients/${ctx.forwarded.clientId}`,
      body: { description: `touched ${Math.random().toString(36).slice(2, 8)}` },
    }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.deleteOAuthClient),
    audit: 'oauth_client.delete',
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/oauth/clients/${await fixtureClient(ctx)}` }),
    expect: bearer(204, 204, 204, 403),
  },
  {
    ...versioned(api.revokeOAuthClientTokens),
    audit: 'oauth_client.revoke_tokens',
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/oauth/clients/${ctx.forwarded.clientId}/revoke-tokens` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.getOAuthClientStats),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/oauth/clients/${ctx.forwarded.clientId}/stats` }),
    expect: bearer(200, 200, 200, 403),
  },

  // Transactions (read from payments; create and submit-escrow-hash forwarded). The workspace-key
  // routes take X-API-Key, which no principal here sends: 401 for all (transactions.test.ts has the key cases).
  {
    ...versioned(api.listWorkspaceTransactions),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/transactions` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.createWorkspaceTransaction),
    audit: 'transaction.create',
    // Fresh addresses per call: payments refuses the same transfer twice within its duplicate window.
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/transactions`,
      body: {
        fromAddress: `0x${randomBytes(20).toString('hex')}`,
        toAddress: `0x${randomBytes(20).toString('hex')}`,
        amount: '1.5',
        network: 'base-sepolia',
      },
    }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.getWorkspaceTransaction),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/transactions/${ctx.forwarded.transactionId}` }),
    expect: all(401),
    codes: { expired: 'UNAUTHORIZED' },
  },
  {
    ...versioned(api.submitWorkspaceTransactionEscrowHash),
    // Audited (transaction.submit_escrow_hash) but no principal here holds a workspace key: transactions.test.ts checks its entries.
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/transactions/${ctx.forwarded.transactionId}/submit-escrow-hash`,
      body: { transactionHash: `0x${'ab'.repeat(32)}` },
    }),
    expect: all(401),
    codes: { expired: 'UNAUTHORIZED' },
  },
  {
    ...versioned(api.listTransactions),
    prepare: at('/api/v1/transactions'),
    expect: bearer(200, 200, 200, 200),
  },
  {
    ...versioned(api.getTransactionStats),
    prepare: at('/api/v1/transactions/stats'),
    expect: bearer(200, 200, 200, 200),
  },
  {
    ...versioned(api.getTransaction),
    prepare: async (ctx) => ({ path: `/api/v1/transactions/${ctx.forwarded.transactionId}` }),
    expect: bearer(200, 200, 200, 404),
  },

  // Webhooks (forwarded to the dispatcher).
  {
    ...versioned(api.listWebhooks),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.createWebhook),
    audit: 'webhook.create',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks`,
      body: { url: DEAD_RECEIVER, eventTypes: ['transaction.completed'], metadata: { by: 'matrix' } },
    }),
    expect: bearer(201, 201, 201, 403),
  },
  {
    ...versioned(api.getWebhook),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks/${ctx.forwarded.webhookId}` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.updateWebhook),
    audit: 'webhook.update',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks/${ctx.forwarded.webhookId}`,
      body: { metadata: { touched: Math.random().toString(36).slice(2, 8) } },
    }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.deleteWebhook),
    audit: 'webhook.delete',
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks/${await fixtureWebhook(ctx)}` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.listWebhookDeliveryLogs),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks/${ctx.forwarded.webhookId}/delivery-logs` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.rotateWebhookSecret),
    audit: 'webhook.rotate_secret',
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks/${ctx.forwarded.webhookId}/rotate-secret` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.completeWebhookRotation),
    audit: 'webhook.complete_rotation',
    prepare: async (ctx) => {
      const id = await fixtureWebhook(ctx);
      await sendWebhookCommand(ctx.h.nats.bus, WebhookCommands.rotateSecret, {
        owner: { workspaceId: ctx.world.w1.id },
        subscriptionId: id,
      });
      return { path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks/${id}/complete-rotation` };
    },
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.resetWebhookCircuitBreaker),
    audit: 'webhook.reset_circuit_breaker',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks/${ctx.forwarded.webhookId}/reset-circuit-breaker`,
    }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.testWebhook),
    audit: 'webhook.test',
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks/${ctx.forwarded.webhookId}/test` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.resendWebhookDelivery),
    audit: 'webhook.resend_delivery',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks/${ctx.forwarded.webhookId}/deliveries/${ctx.forwarded.deliveryId}/resend`,
    }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.replayWebhookEvents),
    audit: 'webhook.replay',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/webhooks/${ctx.forwarded.webhookId}/replay`,
      body: { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString(), onlyFailed: true },
    }),
    expect: bearer(200, 200, 200, 403),
  },

  // Users.
  { ...versioned(api.listUsers), prepare: at('/api/v1/users'), expect: bearer(403, 200, 200, 200) },
  {
    ...versioned(api.createUser),
    audit: 'user.create',
    prepare: async () => ({ path: '/api/v1/users', body: { email: uniqueEmail('created'), password: PASSWORD, role: 'client' } }),
    expect: bearer(403, 201, 201, 201),
  },
  { ...versioned(api.getMyUser), prepare: at('/api/v1/users/me'), expect: bearer(200, 200, 200, 200) },
  {
    ...versioned(api.updateMyUser),
    audit: 'user.profile_update',
    prepare: async () => ({ path: '/api/v1/users/me', body: { lastName: 'Matrix' } }),
    expect: bearer(200, 200, 200, 200),
  },
  {
    ...versioned(api.changeMyPassword),
    audit: 'user.password_change',
    prepare: async (ctx, principal) => {
      const current = principal === 'superAdmin' ? SUPER_PASSWORD : PASSWORD;
      return {
        path: '/api/v1/users/me/password',
        body: { currentPassword: current, newPassword: 'An0ther!Password' },
        after: async (token) => {
          // Put the password back so the principal can log in later.
          if (token)
            await ctx.h.call('PATCH', '/api/v1/users/me/password', {
              token,
              body: { currentPassword: 'An0ther!Password', newPassword: current },
            });
        },
      };
    },
    expect: bearer(200, 200, 200, 200),
  },
  {
    ...versioned(api.uploadMyAvatar),
    audit: 'user.avatar_upload',
    prepare: async () => ({ path: '/api/v1/users/me/avatar', form: imageForm() }),
    expect: bearer(200, 200, 200, 200),
  },
  {
    ...versioned(api.deleteMyAvatar),
    audit: 'user.avatar_delete',
    prepare: at('/api/v1/users/me/avatar'),
    expect: bearer(204, 204, 204, 204),
  },
  {
    ...versioned(api.getUser),
    prepare: async (ctx) => ({ path: `/api/v1/users/${ctx.world.clientW1.id}` }),
    expect: bearer(403, 200, 200, 404),
  },
  {
    ...versioned(api.updateUser),
    audit: 'user.update',
    prepare: async (ctx) => ({ path: `/api/v1/users/${await freshClientOfW1(ctx)}`, body: { firstName: 'Renamed' } }),
    expect: bearer(403, 200, 200, 404),
  },
  {
    ...versioned(api.deleteUser),
    audit: 'user.delete',
    prepare: async (ctx) => ({ path: `/api/v1/users/${await freshClientOfW1(ctx)}` }),
    expect: bearer(403, 200, 200, 404),
  },
  {
    ...versioned(api.listUserAuditLogs),
    prepare: async (ctx) => ({ path: `/api/v1/users/${ctx.world.clientW1.id}/audit-logs` }),
    expect: bearer(403, 200, 200, 404),
  },

  // Audit logs.
  { ...versioned(api.listAuditLogs), prepare: at('/api/v1/audit-logs'), expect: bearer(403, 200, 200, 200) },
  { ...versioned(api.exportAuditLogs), prepare: at('/api/v1/audit-logs/export'), expect: bearer(403, 200, 200, 200) },
  { ...versioned(api.auditLogStats), prepare: at('/api/v1/audit-logs/stats'), expect: bearer(403, 200, 200, 200) },
  {
    ...versioned(api.getAuditLog),
    prepare: async (ctx) => ({ path: `/api/v1/audit-logs/${ctx.w1AuditEntryId}` }),
    expect: bearer(403, 200, 200, 404),
  },

  // Integrations: the catalog (any user) and a workspace's integrations (workspace access).
  { ...versioned(api.listIntegrationCatalog), prepare: at('/api/v1/integrations'), expect: bearer(200, 200, 200, 200) },
  {
    ...versioned(api.listWorkspaceIntegrations),
    prepare: async (ctx) => ({ path: `/api/v1/workspaces/${ctx.world.w1.id}/integrations` }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.createWorkspaceIntegration),
    audit: 'integration.create',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/integrations`,
      body: { integrationId: KYC, config: { apiKey: 'matrix_kyc_key_0001', environment: 'sandbox', levelName: 'basic' } },
      after: async () => removeW1Integration(ctx, KYC),
    }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.validateWorkspaceIntegration),
    audit: 'integration.validate',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/integrations/validate`,
      body: { integrationId: EXPORT, config: EXPORT_CONFIG },
    }),
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.createValidatedWorkspaceIntegration),
    audit: 'integration.create',
    prepare: async (ctx) => ({
      path: `/api/v1/workspaces/${ctx.world.w1.id}/integrations/with-config`,
      body: { integrationId: EXPORT, config: EXPORT_CONFIG },
      after: async () => removeW1Integration(ctx, EXPORT),
    }),
    expect: bearer(201, 201, 201, 403),
  },
  {
    ...versioned(api.getWorkspaceIntegration),
    prepare: async (ctx) => {
      await ensureW1Integration(ctx);
      return { path: `/api/v1/workspaces/${ctx.world.w1.id}/integrations/${CHAT}` };
    },
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.updateWorkspaceIntegration),
    audit: 'integration.update',
    prepare: async (ctx) => {
      await ensureW1Integration(ctx);
      return { path: `/api/v1/workspaces/${ctx.world.w1.id}/integrations/${CHAT}`, body: { config: { channel: '#matrix' } } };
    },
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.deleteWorkspaceIntegration),
    audit: 'integration.delete',
    prepare: async (ctx) => {
      const fresh = await freshTenant(ctx);
      const res = await ctx.h.call('POST', `/api/v1/workspaces/${fresh.workspace.id}/integrations`, {
        token: ctx.world.superAdmin.token,
        body: { integrationId: EXPORT, config: EXPORT_CONFIG },
      });
      if (res.status !== 200) throw new Error(`fresh integration: ${res.status} ${res.text}`);
      return { path: `/api/v1/workspaces/${fresh.workspace.id}/integrations/${EXPORT}`, tokens: fresh.tokens };
    },
    expect: bearer(204, 204, 204, 403),
  },
  {
    ...versioned(api.disableWorkspaceIntegration),
    audit: 'integration.disable',
    prepare: async (ctx) => {
      await ensureW1Integration(ctx);
      return { path: `/api/v1/workspaces/${ctx.world.w1.id}/integrations/${CHAT}/disable` };
    },
    expect: bearer(200, 200, 200, 403),
  },
  {
    ...versioned(api.getWorkspaceIntegrationStatus),
    prepare: async (ctx) => {
      await ensureW1Integration(ctx);
      return { path: `/api/v1/workspaces/${ctx.world.w1.id}/integrations/${CHAT}/status` };
    },
    expect: bearer(200, 200, 200, 403),
  },

  // Settings: ADMIN or SUPER_ADMIN on one workspace's settings; global settings written by SUPER_ADMINs.
  {
    ...versioned(api.listSettings),
    prepare: async (ctx, principal) => ({ path: settingsPath(ctx, principal, '/api/v1/settings') }),
    expect: bearer(403, 200, 200, 200),
  },
  {
    ...versioned(api.upsertSetting),
    audit: 'setting.upsert',
    prepare: async (ctx, principal) => ({
      path: settingsPath(ctx, principal, '/api/v1/settings'),
      body: { key: 'matrix.posted', value: 'posted', category: 'matrix' },
    }),
    expect: bearer(403, 201, 201, 201),
  },
  {
    ...versioned(api.getSetting),
    prepare: async (ctx, principal) => {
      await ensureSetting(ctx, principal);
      return { path: settingsPath(ctx, principal, '/api/v1/settings/matrix.key') };
    },
    expect: bearer(403, 200, 200, 200),
  },
  {
    ...versioned(api.updateSetting),
    audit: 'setting.update',
    prepare: async (ctx, principal) => {
      await ensureSetting(ctx, principal);
      return { path: settingsPath(ctx, principal, '/api/v1/settings/matrix.key'), body: { value: 'matrix value' } };
    },
    expect: bearer(403, 200, 200, 200),
  },
  { ...versioned(api.listGlobalSettings), prepare: at('/api/v1/global-settings'), expect: bearer(403, 200, 200, 200) },
  {
    ...versioned(api.bulkUpsertGlobalSettings),
    audit: 'global_setting.bulk_upsert',
    prepare: async () => ({ path: '/api/v1/global-settings/bulk', body: { settings: [{ key: 'matrix.global', value: 'on' }] } }),
    expect: bearer(403, 403, 200, 403),
  },

  // Notifications: every user, on their own only.
  { ...versioned(api.listNotifications), prepare: at('/api/v1/notifications'), expect: bearer(200, 200, 200, 200) },
  {
    ...versioned(api.deleteAllNotifications),
    audit: 'notification.delete_all',
    prepare: at('/api/v1/notifications'),
    expect: bearer(200, 200, 200, 200),
  },
  {
    ...versioned(api.markAllNotificationsRead),
    audit: 'notification.read_all',
    prepare: at('/api/v1/notifications/mark-all-read'),
    expect: bearer(200, 200, 200, 200),
  },
  {
    ...versioned(api.getNotificationPreferences),
    prepare: at('/api/v1/notifications/preferences'),
    expect: bearer(200, 200, 200, 200),
  },
  {
    ...versioned(api.updateNotificationPreferences),
    audit: 'notification.preferences_update',
    prepare: async () => ({ path: '/api/v1/notifications/preferences', body: { events: { 'dispute.resolved': true } } }),
    expect: bearer(200, 200, 200, 200),
  },
  {
    ...versioned(api.getNotification),
    prepare: async (ctx) => ({ path: `/api/v1/notifications/${await clientW1Notification(ctx)}` }),
    expect: bearer(200, 404, 404, 404),
  },
  {
    ...versioned(api.markNotificationRead),
    audit: 'notification.read',
    prepare: async (ctx) => ({ path: `/api/v1/notifications/${await clientW1Notification(ctx)}/read` }),
    expect: bearer(200, 404, 404, 404),
  },
  // Customers, wallets and contracts (issue 8).
  ...WALLET_ROUTES,
];

/** A request with bad input for a route, and the 4xx it gets (400 unless said). */
export interface BadInput {
  path: (ctx: Context) => string;
  body?: unknown;
  form?: () => FormData;
  /** Defaults to the SUPER_ADMIN; `/me` routes of a workspace need a member. */
  as?: Principal;
  status?: number;
  headers?: Record<string, string> | ((ctx: Context) => Record<string, string>);
}

const W1 =
  (suffix = '') =>
  (ctx: Context) =>
    `/api/v1/workspaces/${ctx.world.w1.id}${suffix}`;
const fixed = (path: string) => () => path;

/** Bad input for every route that takes input (the others are in NO_INPUT). */
export const BAD_INPUT: Record<string, BadInput> = {
  'POST /auth/signup': { path: fixed('/auth/signup'), body: { email: 'not-an-email', password: 'weak' } },
  'POST /auth/verify-code': { path: fixed('/auth/verify-code'), body: { email: 'a@b.test', code: 'abc' } },
  'POST /auth/resend-code': { path: fixed('/auth/resend-code'), body: { email: 'nope' } },
  'POST /identity/login': { path: fixed('/identity/login'), body: { email: 'a@b.test' } },
  'POST /identity/refresh': { path: fixed('/identity/refresh'), body: { refreshToken: '' } },
  'POST /identity/logout': { path: fixed('/identity/logout'), body: {} },
  'GET /avatars/:file': { path: fixed('/avatars/evil.svg') },
  'POST /api/v1/auth/login': { path: fixed('/api/v1/auth/login'), body: { password: 'x' } },
  'POST /api/v1/auth/refresh': { path: fixed('/api/v1/auth/refresh'), body: { refreshToken: 'x', environment: 'moon' } },
  'POST /api/v1/auth/logout': { path: fixed('/api/v1/auth/logout'), body: { refreshToken: { nested: true } } },
  'GET /api/v1/workspaces': { path: fixed('/api/v1/workspaces?page=0') },
  'POST /api/v1/workspaces': { path: fixed('/api/v1/workspaces'), body: { name: '', email: 'ops@x.test' } },
  'PUT /api/v1/workspaces/me': { path: fixed('/api/v1/workspaces/me'), body: { status: 'gone' }, as: 'admin' },
  'GET /api/v1/workspaces/:id': { path: fixed('/api/v1/workspaces/not-a-uuid') },
  'PUT /api/v1/workspaces/:id': { path: W1(), body: {} },
  'DELETE /api/v1/workspaces/:id': { path: fixed('/api/v1/workspaces/not-a-uuid') },
  'POST /api/v1/workspaces/:id/avatar': { path: W1('/avatar'), body: { file: 'data:image/png;base64,AAAA' }, status: 415 },
  'DELETE /api/v1/workspaces/:id/avatar': { path: fixed('/api/v1/workspaces/not-a-uuid/avatar') },
  'GET /api/v1/workspaces/:id/billing': { path: fixed('/api/v1/workspaces/not-a-uuid/billing') },
  'PATCH /api/v1/workspaces/:id/billing': { path: W1('/billing'), body: { plan: 'gold' } },
  'GET /api/v1/workspaces/:id/platform-mappings': { path: W1('/platform-mappings?status=deleted') },
  'GET /api/v1/workspaces/:id/wallet-settings': { path: fixed('/api/v1/workspaces/not-a-uuid/wallet-settings') },
  'PATCH /api/v1/workspaces/:id/wallet-settings': { path: W1('/wallet-settings'), body: { enabledNetworks: ['mars'] } },
  'PUT /api/v1/workspaces/:id/wallet-settings': { path: W1('/wallet-settings'), body: { walletProvider: 'BANK' } },
  'GET /api/v1/workspaces/:id/audit-logs': { path: W1('/audit-logs?success=maybe') },
  'GET /api/v1/workspaces/:id/oauth/scopes': { path: fixed('/api/v1/workspaces/not-a-uuid/oauth/scopes') },
  'GET /api/v1/workspaces/:id/webhooks/events/types': { path: fixed('/api/v1/workspaces/not-a-uuid/webhooks/events/types') },
  'GET /api/v1/workspaces/:id/sandbox-credentials': { path: fixed('/api/v1/workspaces/not-a-uuid/sandbox-credentials') },
  'POST /api/v1/workspaces/:id/sandbox-credentials': { path: fixed('/api/v1/workspaces/not-a-uuid/sandbox-credentials') },
  'DELETE /api/v1/workspaces/:id/sandbox-credentials/:platformId': { path: W1('/sandbox-credentials/not-a-uuid') },
  'GET /api/v1/workspaces/:id/oauth/clients': { path: fixed('/api/v1/workspaces/not-a-uuid/oauth/clients') },
  'POST /api/v1/workspaces/:id/oauth/clients': {
    path: W1('/oauth/clients'),
    body: { name: 'Payments form', scopes: ['read:transactions'] },
  },
  'GET /api/v1/workspaces/:id/oauth/clients/:clientId': { path: W1('/oauth/clients/not-a-client') },
  'PATCH /api/v1/workspaces/:id/oauth/clients/:clientId': {
    path: (ctx) => `${W1('/oauth/clients/')(ctx)}${ctx.forwarded.clientId}`,
    body: {},
  },
  'DELETE /api/v1/workspaces/:id/oauth/clients/:clientId': { path: W1('/oauth/clients/not-a-client') },
  'POST /api/v1/workspaces/:id/oauth/clients/:clientId/revoke-tokens': { path: W1('/oauth/clients/hf_client_x/revoke-tokens') },
  'GET /api/v1/workspaces/:id/oauth/clients/:clientId/stats': { path: W1('/oauth/clients/12345/stats') },
  'GET /api/v1/workspaces/:id/transactions': { path: W1('/transactions?status=cancelled') },
  'POST /api/v1/workspaces/:id/transactions': {
    path: W1('/transactions'),
    body: { fromAddress: '0x1', toAddress: '0x2', amount: 10, network: 'base' },
  },
  'GET /api/v1/workspaces/:id/transactions/:txId': {
    path: W1('/transactions/not-a-uuid'),
    headers: (ctx) => ({ 'x-api-key': ctx.forwarded.apiKey }),
  },
  'POST /api/v1/workspaces/:id/transactions/:txId/submit-escrow-hash': {
    path: (ctx) => `${W1('/transactions/')(ctx)}${ctx.forwarded.transactionId}/submit-escrow-hash`,
    body: { transactionHash: 'not-a-hash' },
    headers: (ctx) => ({ 'x-api-key': ctx.forwarded.apiKey }),
  },
  'GET /api/v1/transactions': { path: fixed('/api/v1/transactions?status=completed') },
  'GET /api/v1/transactions/:id': { path: fixed('/api/v1/transactions/not-a-uuid') },
  'GET /api/v1/workspaces/:id/webhooks': { path: W1('/webhooks?isActive=maybe') },
  'POST /api/v1/workspaces/:id/webhooks': { path: W1('/webhooks'), body: { url: 'not a url', eventTypes: [] } },
  'GET /api/v1/workspaces/:id/webhooks/:webhookId': { path: W1('/webhooks/not-a-uuid') },
  'PATCH /api/v1/workspaces/:id/webhooks/:webhookId': {
    path: (ctx) => `${W1('/webhooks/')(ctx)}${ctx.forwarded.webhookId}`,
    body: { isActive: 'sometimes' },
  },
  'DELETE /api/v1/workspaces/:id/webhooks/:webhookId': { path: W1('/webhooks/not-a-uuid') },
  'GET /api/v1/workspaces/:id/webhooks/:webhookId/delivery-logs': {
    path: (ctx) => `${W1('/webhooks/')(ctx)}${ctx.forwarded.webhookId}/delivery-logs?limit=0`,
  },
  'POST /api/v1/workspaces/:id/webhooks/:webhookId/rotate-secret': { path: W1('/webhooks/not-a-uuid/rotate-secret') },
  'POST /api/v1/workspaces/:id/webhooks/:webhookId/complete-rotation': { path: W1('/webhooks/not-a-uuid/complete-rotation') },
  'POST /api/v1/workspaces/:id/webhooks/:webhookId/reset-circuit-breaker': { path: W1('/webhooks/not-a-uuid/reset-circuit-breaker') },
  'POST /api/v1/workspaces/:id/webhooks/:webhookId/test': { path: W1('/webhooks/not-a-uuid/test') },
  'POST /api/v1/workspaces/:id/webhooks/:webhookId/deliveries/:deliveryId/resend': {
    path: (ctx) => `${W1('/webhooks/')(ctx)}${ctx.forwarded.webhookId}/deliveries/not-a-uuid/resend`,
  },
  'POST /api/v1/workspaces/:id/webhooks/:webhookId/replay': {
    path: (ctx) => `${W1('/webhooks/')(ctx)}${ctx.forwarded.webhookId}/replay`,
    body: { from: 'yesterday', to: 'today' },
  },
  'GET /api/v1/users': { path: fixed('/api/v1/users?role=owner') },
  'POST /api/v1/users': { path: fixed('/api/v1/users'), body: { email: 'x', password: PASSWORD, role: 'client' } },
  'PUT /api/v1/users/me': { path: fixed('/api/v1/users/me'), body: { email: 'me@x.test' } },
  'PATCH /api/v1/users/me/password': { path: fixed('/api/v1/users/me/password'), body: { newPassword: 'N3w!Password-x' } },
  'POST /api/v1/users/me/avatar': {
    path: fixed('/api/v1/users/me/avatar'),
    form: () => imageForm(Buffer.from('<svg/>'), 'image/svg+xml'),
    status: 415,
  },
  'GET /api/v1/users/:id': { path: fixed('/api/v1/users/not-a-uuid') },
  'PUT /api/v1/users/:id': { path: (ctx) => `/api/v1/users/${ctx.world.clientW1.id}`, body: { role: 'owner' } },
  'DELETE /api/v1/users/:id': { path: fixed('/api/v1/users/not-a-uuid') },
  'GET /api/v1/users/:id/audit-logs': { path: (ctx) => `/api/v1/users/${ctx.world.clientW1.id}/audit-logs?limit=0` },
  'GET /api/v1/audit-logs': { path: fixed('/api/v1/audit-logs?from=yesterday') },
  'GET /api/v1/audit-logs/export': { path: fixed('/api/v1/audit-logs/export?format=xml') },
  'GET /api/v1/audit-logs/stats': { path: fixed('/api/v1/audit-logs/stats?success=maybe') },
  'GET /api/v1/audit-logs/:id': { path: fixed('/api/v1/audit-logs/not-a-uuid') },
  'GET /api/v1/workspaces/:id/integrations': { path: fixed('/api/v1/workspaces/not-a-uuid/integrations') },
  'POST /api/v1/workspaces/:id/integrations': { path: W1('/integrations'), body: { integrationId: 'kyc', config: {} } },
  'POST /api/v1/workspaces/:id/integrations/validate': { path: W1('/integrations/validate'), body: { config: {} } },
  'POST /api/v1/workspaces/:id/integrations/with-config': {
    path: W1('/integrations/with-config'),
    body: { integrationId: EXPORT, config: { format: 'xml', schedule: 'daily', recipientEmail: 'books@matrix.test' } },
  },
  'GET /api/v1/workspaces/:id/integrations/:integrationId': { path: W1('/integrations/not-a-uuid') },
  'PATCH /api/v1/workspaces/:id/integrations/:integrationId': { path: W1(`/integrations/${CHAT}`), body: { enabled: 'maybe' } },
  'DELETE /api/v1/workspaces/:id/integrations/:integrationId': { path: W1('/integrations/not-a-uuid') },
  'POST /api/v1/workspaces/:id/integrations/:integrationId/disable': { path: W1('/integrations/not-a-uuid/disable') },
  'GET /api/v1/workspaces/:id/integrations/:integrationId/status': { path: W1('/integrations/not-a-uuid/status') },
  'GET /api/v1/settings': { path: fixed('/api/v1/settings?limit=0'), as: 'admin' },
  'POST /api/v1/settings': { path: fixed('/api/v1/settings'), body: { key: '', value: 'x' }, as: 'admin' },
  'GET /api/v1/settings/:key': { path: fixed('/api/v1/settings/bad%20key'), as: 'admin' },
  'PUT /api/v1/settings/:key': { path: fixed('/api/v1/settings/matrix.key'), body: {}, as: 'admin' },
  'GET /api/v1/global-settings': { path: fixed('/api/v1/global-settings?page=0') },
  'POST /api/v1/global-settings/bulk': { path: fixed('/api/v1/global-settings/bulk'), body: { settings: [] } },
  'GET /api/v1/notifications': { path: fixed('/api/v1/notifications?unread=maybe') },
  'PATCH /api/v1/notifications/preferences': { path: fixed('/api/v1/notifications/preferences'), body: { events: { nope: true } } },
  'GET /api/v1/notifications/:id': { path: fixed('/api/v1/notifications/not-a-uuid') },
  'PATCH /api/v1/notifications/:id/read': { path: fixed('/api/v1/notifications/not-a-uuid/read') },
  ...WALLET_BAD_INPUT,
};

/** Routes that take no input at all: nothing can be bad. */
export const NO_INPUT = [
  'GET /api/v1/transactions/stats',
  'GET /identity/me',
  'GET /api/v1/workspaces/me',
  'GET /api/v1/users/me',
  'DELETE /api/v1/users/me/avatar',
  'GET /api/v1/integrations',
  'DELETE /api/v1/notifications',
  'POST /api/v1/notifications/mark-all-read',
  'GET /api/v1/notifications/preferences',
];

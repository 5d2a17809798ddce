import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageForm } from '../support/fixtures.js';
import { createUser, type Harness, type World } from '../support/harness.js';
import { startRouteContext, stopRouteContext } from '../support/route-context.js';
import { type Context, ensureW1Integration, FIXTURE_CLIENT_NAME, ROUTES } from '../support/route-table.js';
import type { WalletWorld } from '../support/wallet-world.js';

// Members of W2 (its ADMIN and a CLIENT) call every route aimed at W1: no answer shows W1's data,
// and W1's rows are exactly as they were.
let h: Harness;
let world: World;
let ctx: Context;
let clientW2: string;
let wallets: WalletWorld;

async function snapshotOfW1() {
  const id = world.w1.id;
  return {
    workspace: await h.sql`select * from workspace.workspaces where id = ${id}`,
    // Users the route table's fixtures add to W1 (named "Fresh User") are left out: they are the targets.
    users:
      await h.sql`select * from workspace.users where workspace_id = ${id} and (first_name, last_name) is distinct from ('Fresh', 'User') order by id`,
    billing: await h.sql`select * from workspace.workspace_billing where workspace_id = ${id}`,
    wallet: await h.sql`select * from workspace.workspace_wallet_settings where workspace_id = ${id}`,
    mappings: await h.sql`select * from workspace.platform_mappings where workspace_id = ${id}`,
    // The fixtures' fresh users and customers come with a session each: left out with them.
    sessions: await h.sql`select s.* from workspace.sessions s join workspace.users u on u.id = s.user_id
      where u.workspace_id = ${id} and (u.first_name, u.last_name) is distinct from ('Fresh', 'User') order by s.id`,
    audit: await h.sql`select id from workspace.audit_logs where workspace_id = ${id} order by seq`,
    integrations: await h.sql`select * from workspace.workspace_integrations where workspace_id = ${id} order by id`,
    settings: await h.sql`select * from workspace.settings where workspace_id = ${id} order by id`,
    // Notifications the route table's fixtures add for W1's CLIENT (evt_matrix...) are the targets: checked below.
    notifications:
      await h.sql`select * from workspace.notifications where workspace_id = ${id} and event_id not like 'evt_matrix%' order by id`,
    preferences:
      await h.sql`select p.* from workspace.notification_preferences p join workspace.users u on u.id = p.user_id where u.workspace_id = ${id} order by p.user_id`,
    // Rows the route table's fixtures add to W1 ("Fresh Customer", "Fresh config", EXTERNAL_WALLET_4) are left out: they are the targets.
    customers:
      await h.sql`select * from workspace.customers where workspace_id = ${id} and (first_name, last_name) is distinct from ('Fresh', 'Customer') order by id`,
    customerWallets: await h.sql`select * from workspace.customer_wallets where workspace_id = ${id} order by customer_id`,
    customerSessions: await h.sql`select s.* from workspace.customer_sessions s join workspace.customers c on c.id = s.customer_id
      where c.workspace_id = ${id} and (c.first_name, c.last_name) is distinct from ('Fresh', 'Customer') order by s.id`,
    providerConfigs:
      await h.sql`select * from workspace.wallet_provider_configs where workspace_id = ${id} and provider_name <> 'Fresh config' order by id`,
    externalWallets:
      await h.sql`select * from workspace.external_wallet_configs where workspace_id = ${id} and provider_type <> 'EXTERNAL_WALLET_4' order by id`,
    contracts: await h.sql`select * from workspace.contract_deployments where workspace_id = ${id} order by id`,
    platformAccounts: await h.sql`select * from workspace.platform_wallet_accounts where workspace_id = ${id} order by id`,
    // W1's integrations in payments and the dispatcher (the table's own fixtures left out).
    webhooks: await h.sql`select id, url, event_types, is_active, metadata, secret_sealed, previous_secret_sealed
      from webhooks.subscriptions where workspace_id = ${id} and not metadata ? 'fixture' order by id`,
    platforms: await h.sql`select id, name, is_active, scopes from payments.platforms where workspace_id = ${id} order by id`,
    clients: await h.sql`select id, name, description, scopes, is_active, deleted_at from payments.oauth_clients
      where workspace_id = ${id} and name <> ${FIXTURE_CLIENT_NAME} order by id`,
    tokens: await h.sql`select t.id, t.revoked_at from payments.oauth_tokens t join payments.oauth_clients c on c.id = t.client_pk
      where c.workspace_id = ${id} order by t.id`,
  };
}

beforeAll(async () => {
  ctx = await startRouteContext();
  ({ h, world, wallets } = ctx);
  const c2 = await createUser(h, world.adminW2.token, 'client', world.w2.id);
  clientW2 = (await h.login(c2.email)).accessToken;
  // Give W1 data of every kind.
  await h.call('PATCH', `/api/v1/workspaces/${world.w1.id}/billing`, { token: world.adminW1.token, body: { companyName: 'One Ltd' } });
  await h.call('PATCH', `/api/v1/workspaces/${world.w1.id}/wallet-settings`, {
    token: world.adminW1.token,
    body: { defaultCurrency: 'USDC' },
  });
  await h.call('POST', `/api/v1/workspaces/${world.w1.id}/avatar`, { token: world.adminW1.token, form: imageForm() });
  await h.sql`insert into workspace.platform_mappings (id, workspace_id, platform_id, kind, name)
    values (gen_random_uuid(), ${world.w1.id}, gen_random_uuid(), 'sandbox', 'w1 sandbox')`;
  await h.call('POST', '/api/v1/settings', { token: world.adminW1.token, body: { key: 'w1.private', value: 'w1-setting-value' } });
  await h.call('PATCH', '/api/v1/notifications/preferences', {
    token: world.clientW1.token,
    body: { events: { 'transaction.created': true } },
  });
  await h.sql`insert into workspace.notifications (id, user_id, workspace_id, event_id, event_type, type, priority, title, message)
    values (gen_random_uuid(), ${world.clientW1.id}, ${world.w1.id}, 'evt_w1only0000000000', 'transaction.failed', 'transaction', 'high',
      'Payment failed', 'w1-notification-text')`;
  await ensureW1Integration(ctx);
});
afterAll(async () => stopRouteContext(ctx));

describe('another tenant', () => {
  it('neither reads nor writes anything of W1 through any route', async () => {
    const before = await snapshotOfW1();
    const w1Secrets = [
      world.w1.slug,
      world.adminW1.email,
      world.clientW1.email,
      'One Ltd',
      'w1 sandbox',
      'w1-setting-value',
      'w1-integration',
      'w1-notification-text',
      wallets.customer.email,
      wallets.linkedCustomer.email,
      'W1 custody',
    ];
    const w1Ids = [world.clientW1.id, wallets.w1CustomerId, wallets.w1CustodyCustomerId, wallets.w1ConfigId, wallets.customer.id];
    const { webhookId, clientId, deliveryId } = ctx.forwarded;
    const bearerRoutes = ROUTES.filter((r) => r.expect.anonymous === 401);
    for (const route of bearerRoutes) {
      for (const token of [world.adminW2.token, clientW2]) {
        const prepared = await route.prepare(ctx, 'otherTenant');
        // A fresh tenant's tokens (destructive cases) are not W2's: keep W2's token.
        const answer = await h.call(route.method, prepared.path, { token, body: prepared.body, form: prepared.form });
        const label = `${route.method} ${route.route} -> ${answer.status}`;
        for (const secret of w1Secrets) expect(answer.text, label).not.toContain(secret);
        // W1's ids may only come back inside W2's own audit entries (the targets of its refused attempts).
        if (!route.route.includes('audit-logs')) {
          for (const id of w1Ids) expect(answer.text, label).not.toContain(id);
          for (const id of [webhookId, clientId, deliveryId]) expect(answer.text, label).not.toContain(id);
          if (!prepared.path.includes(world.w1.id)) expect(answer.text, label).not.toContain(world.w1.id);
          else if (answer.status < 400) throw new Error(`${label}: a W1 path answered ${answer.status}`);
        }
        if (answer.status < 300) await prepared.after?.(token);
      }
    }
    const after = await snapshotOfW1();
    expect(after).toEqual(before);
    // The users the fixtures made for PUT and DELETE /users/{id} (2 routes x 2 callers) are untouched too.
    const targets =
      await h.sql`select first_name from workspace.users where workspace_id = ${world.w1.id} and last_name = 'User' and role = 'CLIENT'`;
    expect(targets.map((t) => t.first_name)).toEqual(['Fresh', 'Fresh', 'Fresh', 'Fresh']);
    // The CLIENT's notifications the fixtures made for GET and PATCH /notifications/{id} are still unread.
    const targeted = await h.sql<{ is_read: boolean }[]>`select is_read from workspace.notifications
      where user_id = ${world.clientW1.id} and event_id like 'evt_matrix%'`;
    expect(targeted.length).toBe(4);
    expect(targeted.every((t) => !t.is_read)).toBe(true);
    // So are the customers and configs they made for the customer and wallet routes.
    const freshCustomers = await h.sql`select c.id from workspace.customers c
      where c.workspace_id = ${world.w1.id} and c.first_name = 'Fresh' and c.updated_at = c.created_at`;
    const allFresh = await h.sql`select id from workspace.customers where workspace_id = ${world.w1.id} and first_name = 'Fresh'`;
    expect(freshCustomers).toHaveLength(allFresh.length);
    expect(
      await h.sql`select 1 from workspace.customer_wallets w join workspace.customers c on c.id = w.customer_id
      where c.workspace_id = ${world.w1.id} and c.first_name = 'Fresh'`,
    ).toHaveLength(0);
    expect(
      await h.sql`select 1 from workspace.wallet_provider_configs where provider_name = 'Fresh config' and (is_default or version > 1)`,
    ).toHaveLength(0);
  });
});

import { imageForm } from './fixtures.js';
import { buildWorld, expiredTokenFor } from './harness.js';
import { type Context, type Principal, prepareForwarded } from './route-table.js';
import { buildWalletWorld, startWalletHarness } from './wallet-world.js';

/**
 * What the route table runs against (the authorization matrix, the audit trail, tenant isolation):
 * a workspace-service with payments and the dispatcher, the world, W1's wallets, an avatar of W2's
 * ADMIN, an audit entry of W1 and W1's forwarded integrations. Stop it with `stopRouteContext`.
 */
export async function startRouteContext(): Promise<Context> {
  const started = await startWalletHarness({ peers: true });
  const { h } = started;
  try {
    const world = await buildWorld(h);
    const wallets = await buildWalletWorld(h, world, started);
    const upload = await h.call('POST', '/api/v1/users/me/avatar', { token: world.adminW2.token, form: imageForm() });
    const [entry] = await h.sql<{ id: string }[]>`select id from workspace.audit_logs where workspace_id = ${world.w1.id} limit 1`;
    return {
      h,
      world,
      avatarFile: String(upload.body.data.avatarPath).replace('/avatars/', ''),
      w1AuditEntryId: entry!.id,
      wallets,
      forwarded: await prepareForwarded(h, world),
    };
  } catch (error) {
    await Promise.all([h.stop(), started.anvil.stop(), started.vendorA.stop()]);
    throw error;
  }
}

export async function stopRouteContext(ctx: Context | undefined): Promise<void> {
  await ctx?.h.stop();
  await ctx?.wallets.stop();
}

/** The token each principal of the table calls with (a route's `prepare` may give its own). */
export function principalTokens(ctx: Context): Record<Principal, string | undefined> {
  const { world } = ctx;
  return {
    anonymous: undefined,
    expired: expiredTokenFor(world.adminW1.id),
    client: world.clientW1.token,
    admin: world.adminW1.token,
    superAdmin: world.superAdmin.token,
    otherTenant: world.adminW2.token,
    customer: ctx.wallets.customer.token,
  };
}

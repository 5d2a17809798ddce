import type { Endpoint } from '@holdfast/contracts';
import { insertUser } from './fixtures.js';
import { createWorkspace } from './harness.js';
import type { Context, Principal } from './route-table.js';

// What the route table's two halves (route-table.ts, route-table-wallets.ts) both build their cases from.

/** A case of a catalogue endpoint served under `/api/v1`: its method and route as registered. */
export const versioned = (endpoint: Endpoint) => ({ endpoint, method: endpoint.method, route: `/api/v1${endpoint.path}` });

/** A case of a catalogue endpoint served at the host root (sessions, avatars). */
export const hostRoot = (endpoint: Endpoint) => ({ endpoint, method: endpoint.method, route: endpoint.path });

/** Every principal gets `status`. */
export const all = (status: number): Record<Principal, number> => ({
  anonymous: status,
  expired: status,
  client: status,
  admin: status,
  superAdmin: status,
  otherTenant: status,
  customer: status,
});

/** A user route: no token, an expired one and a customer token are refused (401). */
export const bearer = (client: number, admin: number, superAdmin: number, otherTenant: number): Record<Principal, number> => ({
  anonymous: 401,
  expired: 401,
  client,
  admin,
  superAdmin,
  otherTenant,
  customer: 401,
});

/** A workspace of its own with an ADMIN and a CLIENT, for cases that destroy or use up what they act on. */
export async function freshTenant(ctx: Context) {
  const workspace = await createWorkspace(ctx.h, ctx.world.superAdmin.token, `Fresh ${Math.random().toString(36).slice(2, 8)}`);
  const admin = await insertUser(ctx.h, { role: 'ADMIN', workspaceId: workspace.id, passwordHashOf: ctx.world.clientW1.id });
  const client = await insertUser(ctx.h, { role: 'CLIENT', workspaceId: workspace.id, passwordHashOf: ctx.world.clientW1.id });
  return { workspace, tokens: { admin: admin.token, client: client.token } };
}

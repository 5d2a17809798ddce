import { request } from 'undici';

import { insertUser } from './fixtures.js';
import { createWorkspace, type Harness, type Json, type World } from './harness.js';

/** The header of a Payments API call by API key. */
export const key = (apiKey: string) => ({ 'x-api-key': apiKey });
/** The header of a call by bearer token (an access token of either API). */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A call to the payments-service peer of the harness (API keys, OAuth tokens). */
export async function callPayments(
  h: Harness,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await request(`${h.peers!.payments.url}${path}`, { method: method as 'GET', headers, body });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

/** An access token of an OAuth client, from payments (v2). */
export async function paymentsToken(h: Harness, client: { clientId: string; clientSecret: string }): Promise<string> {
  const res = await callPayments(h, 'POST', '/api/v2/oauth/token', {
    body: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.access_token;
}

/** A workspace of its own with an ADMIN and a CLIENT (tokens minted, no login). */
export async function newTenant(h: Harness, world: World, name = `Tenant ${Math.random().toString(36).slice(2, 8)}`) {
  const workspace = await createWorkspace(h, world.superAdmin.token, name);
  const admin = await insertUser(h, { role: 'ADMIN', workspaceId: workspace.id, passwordHashOf: world.clientW1.id });
  const client = await insertUser(h, { role: 'CLIENT', workspaceId: workspace.id, passwordHashOf: world.clientW1.id });
  return { workspace, admin, client, base: `/api/v1/workspaces/${workspace.id}` };
}

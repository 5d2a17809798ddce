import { randomUUID } from 'node:crypto';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { type Harness, type Json, PASSWORD, signJwt, uniqueEmail } from './harness.js';

export interface RegisteredCustomer {
  id: string;
  email: string;
  token: string;
  refreshToken: string;
}

/** Registers a customer of a workspace (id or slug) through the API. */
export async function registerCustomer(h: Harness, workspaceRef: string, email = uniqueEmail('customer')): Promise<RegisteredCustomer> {
  const res = await h.call('POST', `/api/v1/workspaces/${workspaceRef}/customers/auth/register`, {
    body: { email, password: PASSWORD, firstName: 'Cus', lastName: 'Tomer' },
  });
  if (res.status !== 201) throw new Error(`register ${email}: ${res.status} ${res.text}`);
  return { id: res.body.data.customer.id, email, token: res.body.data.accessToken, refreshToken: res.body.data.refreshToken };
}

/** A session of the customer inserted straight into the table (no login): what `customerJwt` tokens name. */
export async function insertCustomerSession(h: Harness, customerId: string): Promise<string> {
  const id = randomUUID();
  await h.sql`insert into workspace.customer_sessions (id, customer_id) values (${id}, ${customerId})`;
  return id;
}

/** A customer JWT of a session, signed like the service's, with any claims (expired, another workspace, forged). */
export function customerJwt(customerId: string, workspaceId: string, sessionId: string, overrides: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return signJwt({
    sub: customerId,
    sid: sessionId,
    wid: workspaceId,
    typ: 'customer_access',
    iss: 'holdfast-workspace',
    aud: 'holdfast:workspace-customer',
    iat: now,
    exp: now + 3600,
    ...overrides,
  });
}

/**
 * Links a wallet the way a customer's browser does: asks for a nonce, builds the EIP-4361 message
 * from the answer's fields with viem, signs it with the account, and posts it.
 */
export async function linkWallet(h: Harness, workspaceRef: string, token: string, account: PrivateKeyAccount) {
  const nonce = await h.call<Json>('POST', `/api/v1/workspaces/${workspaceRef}/customers/auth/wallet-nonce`, { token, body: {} });
  if (nonce.status !== 200) throw new Error(`wallet-nonce: ${nonce.status} ${nonce.text}`);
  const message = siweMessageFor(nonce.body.data, account.address);
  const signature = await account.signMessage({ message });
  const body = { walletAddress: account.address, signature, message };
  const linked = await h.call<Json>('POST', `/api/v1/workspaces/${workspaceRef}/customers/auth/link-wallet`, { token, body });
  return { linked, body };
}

/** The SIWE message a wallet signs, written from the fields of a wallet-nonce answer. */
export function siweMessageFor(fields: Json, address: `0x${string}`): string {
  return createSiweMessage({
    domain: fields.domain,
    uri: fields.uri,
    version: '1',
    chainId: fields.chainId,
    statement: fields.statement,
    nonce: fields.nonce,
    issuedAt: new Date(fields.issuedAt),
    expirationTime: new Date(fields.expirationTime),
    address,
  });
}

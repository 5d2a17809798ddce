import { bearer, call, type Loose, type TestSql } from './harness.js';
import { address } from './transactions.js';

export { address };

/** A valid create body: 25.5 USDC to a fresh address, both return URLs. */
export const sessionBody = (extra: Record<string, unknown> = {}): Loose => ({
  amount: 25.5,
  toAddress: address(),
  successUrl: 'https://shop.example/thanks',
  cancelUrl: 'https://shop.example/cart',
  ...extra,
});

export function checkoutClient(base: string) {
  return {
    create: (token: string, body: Loose, headers: Record<string, string> = {}) =>
      call(base, 'POST', '/api/v2/checkout/sessions', { headers: { ...bearer(token), ...headers }, body }),
    get: (token: string, id: string) => call(base, 'GET', `/api/v2/checkout/sessions/${id}`, { headers: bearer(token) }),
    list: (token: string, query = '') => call(base, 'GET', `/api/v2/checkout/sessions${query}`, { headers: bearer(token) }),
    expire: (token: string, id: string) => call(base, 'POST', `/api/v2/checkout/sessions/${id}/expire`, { headers: bearer(token) }),
    payer: (id: string, fromAddress: string, headers: Record<string, string> = {}) =>
      call(base, 'POST', `/api/v2/checkout/sessions/${id}/payer`, { headers, body: { fromAddress } }),
  };
}

/** The outbox events of a session, oldest first. */
export async function sessionEvents(sql: TestSql, sessionId: string) {
  return sql<{ type: string; payload: Loose }[]>`
    select type, payload from outbox where payload->'data'->'session'->>'id' = ${sessionId} order by seq`;
}

export const sessionRow = async (sql: TestSql, id: string) =>
  (
    await sql<
      Loose[]
    >`select status, from_address, transaction_id, expires_at, expired_at, completed_at from checkout_sessions where id = ${id}`
  )[0];

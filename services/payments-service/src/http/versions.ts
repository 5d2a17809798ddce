import { PAYMENTS_V2_OPERATIONS, type PaymentsOperation } from '@holdfast/contracts';
import type { RouteAuth } from '../modules/auth/plugin.js';

/** Both Payments API versions: most modules register each operation once per version. */
export const API_VERSIONS = ['v1', 'v2'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** The OpenAPI operationId of a route: the v2 name as is, the v1 twin suffixed `V1` (ids are unique). */
export const operationId = (name: string, v: ApiVersion) => (v === 'v2' ? name : `${name}V1`);

/**
 * The scopes and tier PAYMENTS_V2_OPERATIONS gives a v2 operation (`path` under `/api/v2`), for
 * modules whose v1 twin takes the same scopes. Throws at start when the contract has no such
 * operation, so a route cannot drift from the contract unnoticed.
 */
export function v2Contract(method: PaymentsOperation['method'], path: string): { access: RouteAuth; tier: PaymentsOperation['tier'] } {
  const op = PAYMENTS_V2_OPERATIONS.find((o) => o.method === method && o.path === `/api/v2${path}`);
  if (!op || typeof op.auth !== 'object' || !('scopes' in op.auth)) throw new Error(`no v2 operation ${method} /api/v2${path} with scopes`);
  return { access: { scopes: [...op.auth.scopes] }, tier: op.tier };
}

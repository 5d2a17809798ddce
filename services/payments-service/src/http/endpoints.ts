import { type Endpoint, OperationIdempotencyHeaders, type PaymentsAuth, type PaymentsEndpoint } from '@holdfast/contracts';
import type { RouteSurface, ServedOperation } from '@holdfast/http-kit';
import type { RouteAuth } from '../modules/auth/plugin.js';

/** `config.access` of the auth layer: scopes are checked there; `client` and `none` routes check nothing there. */
function accessOf(auth: PaymentsAuth): RouteAuth | undefined {
  if (auth === 'client' || auth === 'none') return undefined;
  return 'scopes' in auth ? { scopes: [...auth.scopes] } : { anyScope: [...auth.anyScope] };
}

const isV1 = (path: string) => path.startsWith('/api/v1/');

/** An operation the service keeps Idempotency-Keys for: the header, and the two answers the key adds (modules/idempotency). */
function withIdempotencyKey(endpoint: Endpoint): Endpoint {
  if (endpoint.headers) throw new Error(`${endpoint.operationId}: an idempotent operation declares no headers of its own`);
  return { ...endpoint, headers: OperationIdempotencyHeaders, errors: [...new Set([...(endpoint.errors ?? []), 409, 422])] };
}

/**
 * The Payments API's surface for `serveRoutes` of @holdfast/http-kit: every v1 route first (the
 * v1-only endpoints and the deprecated v1 twins of v2 endpoints, operationId suffixed `V1`, with
 * `v1Access` where v1 takes other scopes), then every other one, each in the module's order (the
 * order of the OpenAPI document); the tier, the access and the idempotency key from the entry.
 */
export const PAYMENTS_SURFACE: RouteSurface<PaymentsEndpoint> = {
  operations(entry) {
    const { v1 = [], v1Access, access, tier, idempotent: _idempotent, ...endpoint } = entry;
    const idempotent = entry.idempotent === true;
    const served = (e: Endpoint, by: PaymentsAuth, pass: number): ServedOperation => {
      const routeAccess = accessOf(by);
      return {
        endpoint: idempotent ? withIdempotencyKey(e) : e,
        config: { tier, ...(routeAccess ? { access: routeAccess } : {}), ...(idempotent ? { idempotent } : {}) },
        pass,
      };
    };
    if (isV1(endpoint.path)) return [served(endpoint, access, 0)];
    return [
      ...v1.map((twin) => {
        const [path, operationId] = typeof twin === 'string' ? [twin, `${endpoint.operationId}V1`] : [twin.path, twin.operationId];
        return served({ ...endpoint, path, operationId, deprecated: true }, v1Access ?? access, 0);
      }),
      served(endpoint, access, 1),
    ];
  },
};

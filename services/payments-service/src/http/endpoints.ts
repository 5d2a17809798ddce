import { type Endpoint, OperationIdempotencyHeaders, type PaymentsAuth, type PaymentsEndpoint } from '@holdfast/contracts';
import { type EndpointHandler, type EndpointOptions, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import type { RouteAuth } from '../modules/auth/plugin.js';

/** A route of a module: an entry of `paymentsEndpoints`, its handler and the hooks the service adds. */
export interface PaymentsRoute {
  endpoint: PaymentsEndpoint;
  handler: EndpointHandler<PaymentsEndpoint>;
  options: EndpointOptions;
}

/** A route of a module, its handler typed from the entry's schemas. */
export const route = <const E extends PaymentsEndpoint>(
  endpoint: E,
  handler: EndpointHandler<E>,
  options: EndpointOptions = {},
): PaymentsRoute => ({
  endpoint,
  handler: handler as unknown as EndpointHandler<PaymentsEndpoint>,
  options,
});

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

function serve(app: HttpApp, r: PaymentsRoute, endpoint: Endpoint, auth: PaymentsAuth): void {
  const access = accessOf(auth);
  const idempotent = r.endpoint.idempotent === true;
  const config = { tier: r.endpoint.tier, ...(access ? { access } : {}), ...(idempotent ? { idempotent } : {}), ...r.options.config };
  serveEndpoint(
    app,
    idempotent ? withIdempotencyKey(endpoint) : endpoint,
    { ...r.options, config },
    r.handler as EndpointHandler<Endpoint>,
  );
}

/**
 * Serves a module's routes from the catalogue: first every v1 route (the v1-only endpoints and
 * the deprecated v1 twins of v2 endpoints, operationId suffixed `V1`, with `v1Auth` where v1
 * takes other scopes), then every other one, each in the module's order (the order of the
 * OpenAPI document).
 */
export function servePayments(app: HttpApp, routes: readonly PaymentsRoute[]): void {
  for (const r of routes) {
    const { v1 = [], v1Auth, auth, tier: _tier, idempotent: _idempotent, ...endpoint } = r.endpoint;
    if (isV1(endpoint.path)) {
      serve(app, r, endpoint, auth);
      continue;
    }
    for (const twin of v1) {
      const [path, operationId] = typeof twin === 'string' ? [twin, `${endpoint.operationId}V1`] : [twin.path, twin.operationId];
      serve(app, r, { ...endpoint, path, operationId, deprecated: true }, v1Auth ?? auth);
    }
  }
  for (const r of routes) {
    const { v1: _v1, v1Auth: _v1Auth, auth, tier: _tier, idempotent: _idempotent, ...endpoint } = r.endpoint;
    if (!isV1(endpoint.path)) serve(app, r, endpoint, auth);
  }
}

import {
  type UserRole,
  unauthorized,
  WORKSPACE_ACCESS,
  WORKSPACE_KEY_MAX_LENGTH,
  type WorkspaceAccess,
  type WorkspaceKeyPrincipal,
} from '@holdfast/contracts';
import { ErrorResponse, type HttpApp } from '@holdfast/http-kit';
import { safeEqual, tokenHash } from '@holdfast/secrets';
import type { FastifyRequest } from 'fastify';
import type { Actor, Caller, CustomerPrincipal } from './caller.js';
import { assertRole } from './policy.js';
import type { AccessClaims, AccessTokens, CustomerClaims, CustomerTokens } from './tokens.js';

/**
 * A Workspace API route's `config.access` (its catalogue entry's `access`, `WorkspaceAccess` of
 * @holdfast/contracts): `public`: no bearer needed (sign-up, login...). `customer`: a customer
 * access token (customer self-service). `internal`: the `X-Internal-API-Key` header (service to
 * service). `workspace_key`: a Payments API key of the workspace in `X-API-Key` (the spec's
 * "workspace key"), verified by payments. `user` (or absent): a valid user access token.
 */

declare module '@holdfast/http-kit' {
  interface RouteAccessForms {
    workspace: WorkspaceAccess;
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Roles allowed on the route (403 for the others), checked before the body is even validated. */
    roles?: readonly UserRole[];
  }
  interface FastifyRequest {
    caller: Caller;
  }
}

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i;

/** User claims the rate limiter already verified on this request (authentication then skips a second HMAC). */
const VERIFIED_USER = Symbol('verified user claims');
type WithVerifiedUser = FastifyRequest & { [VERIFIED_USER]?: AccessClaims };

/**
 * Who a request counts against for the rate limits: the user or customer of a bearer token whose
 * signature, issuer, audience and expiry hold (checked here, before the limiter counts). Anything
 * else (no token, a made-up or expired one, an `X-API-Key` that only payments can verify) counts
 * against the client address, so random credentials never open fresh buckets.
 */
export function rateLimitCallerOf(tokens: AccessTokens, customerTokens: CustomerTokens) {
  const verified = <T>(verify: (token: string) => T, token: string): T | undefined => {
    try {
      return verify(token);
    } catch {
      return undefined;
    }
  };
  return (request: FastifyRequest): string | undefined => {
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
    if (!token) return undefined;
    const user = verified(tokens.verify, token);
    if (user) {
      (request as WithVerifiedUser)[VERIFIED_USER] = user;
      return `user:${user.sub}`;
    }
    const customer = verified(customerTokens.verify, token);
    return customer ? `customer:${customer.sub}` : undefined;
  };
}

/** What the authentication of the Workspace API checks credentials against. */
export interface AuthenticationDeps {
  tokens: AccessTokens;
  actorFor: (claims: AccessClaims) => Promise<Actor | null>;
  /** Customer routes: their tokens and the customer behind valid claims (null: gone or not active). */
  customers?: { tokens: CustomerTokens; customerFor: (claims: CustomerClaims) => Promise<CustomerPrincipal | null> };
  /** INTERNAL_API_KEY; internal routes refuse every call without it. */
  internalApiKey?: string | undefined;
  /** Workspace-key routes: verifies an `X-API-Key` (throws 401 for a bad one). */
  workspaceKeys?: ((apiKey: string) => Promise<WorkspaceKeyPrincipal>) | undefined;
}

/**
 * Authentication for every Workspace API route registered in `scope`: the caller (address, user
 * agent, request id) is attached to each request; unless the route is `public`, a valid access
 * token of an existing, active user is required, and the route's roles are checked.
 */
export function installAuthentication(scope: HttpApp, deps: AuthenticationDeps) {
  const internalKeyHash = deps.internalApiKey ? tokenHash(deps.internalApiKey) : undefined;
  scope.decorateRequest('caller', null as unknown as Caller);
  // A route-level hook, appended after the kit's own (rate limit, sunset): refused and
  // unauthenticated requests are counted and carry the rate-limit headers, and a retired
  // version answers 410 before any credential is looked at.
  const authenticate = async (request: FastifyRequest) => {
    const userAgent = request.headers['user-agent'];
    request.caller = {
      actor: null,
      ipAddress: request.ip ?? null,
      userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
      requestId: request.id,
      method: request.method,
      path: request.url.split('?')[0] ?? request.url,
      audited: false,
    };
    const config = request.routeOptions.config;
    if (config.access === 'public') return;
    if (config.access === 'internal') {
      const presented = request.headers['x-internal-api-key'];
      if (!internalKeyHash) throw unauthorized('Internal routes are closed: INTERNAL_API_KEY is not configured on this instance');
      // Hashes compared in constant time: neither the key's content nor its length leaks.
      if (typeof presented !== 'string' || !safeEqual(tokenHash(presented), internalKeyHash)) {
        throw unauthorized('Missing or wrong X-Internal-API-Key');
      }
      return;
    }
    if (config.access === 'workspace_key') {
      const presented = request.headers['x-api-key'];
      if (typeof presented !== 'string' || presented.trim() === '') {
        throw unauthorized('Missing X-API-Key: send a Payments API key of the workspace (its workspace key)');
      }
      if (!deps.workspaceKeys) throw unauthorized('Workspace keys are not accepted here');
      // No key is that long: refused here rather than by the verify command's schema (a 500).
      if (presented.trim().length > WORKSPACE_KEY_MAX_LENGTH) throw unauthorized('X-API-Key is not a valid key');
      request.caller.workspaceKey = await deps.workspaceKeys(presented.trim());
      return;
    }
    const match = BEARER.exec(request.headers.authorization ?? '');
    if (config.access === 'customer') {
      if (!match?.[1]) throw unauthorized('Missing bearer token: send Authorization: Bearer <customer accessToken>');
      if (!deps.customers) throw unauthorized('Customer tokens are not accepted here');
      const customer = await deps.customers.customerFor(deps.customers.tokens.verify(match[1]));
      if (!customer) throw unauthorized('The customer behind this token is unknown or not active');
      request.caller.customer = customer;
      return;
    }
    if (!match?.[1]) throw unauthorized('Missing bearer token: send Authorization: Bearer <accessToken>');
    const claims = (request as WithVerifiedUser)[VERIFIED_USER] ?? deps.tokens.verify(match[1]);
    const actor = await deps.actorFor(claims);
    if (!actor) throw unauthorized('The account behind this token is unknown, inactive or suspended');
    request.caller.actor = actor;
    if (config.roles) assertRole(actor, config.roles);
  };
  scope.addHook('onRoute', (route) => {
    const access: unknown = route.config?.access;
    if (access !== undefined && !(WORKSPACE_ACCESS as readonly unknown[]).includes(access)) {
      throw new Error(`${route.method} ${route.url}: config.access must be one of ${WORKSPACE_ACCESS.join(', ')}`);
    }
    // A public route says so in its OpenAPI operation (`security: []`), unless it lists its own;
    // the others document the 401 of a missing or bad credential, and the 403 of a role not listed.
    const schema = route.schema as { security?: unknown; response?: Record<number, unknown>; hide?: boolean } | undefined;
    if (route.config?.access === 'public') {
      if (schema && schema.security === undefined) schema.security = [];
    } else if (schema && !schema.hide) {
      const response = schema.response ?? {};
      response[401] ??= ErrorResponse;
      if (route.config?.roles) response[403] ??= ErrorResponse;
      schema.response = response;
    }
    route.onRequest = [...[route.onRequest ?? []].flat(), authenticate] as typeof route.onRequest;
  });
}

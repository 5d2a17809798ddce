import { AppError, type Scope, unauthorized } from '@holdfast/contracts';
import { ErrorResponse, type HttpApp } from '@holdfast/http-kit';
import type { FastifyContextConfig, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { CredentialKind, Principal } from './principal.js';
import { type Authenticator, type AuthOutcome, invalidToken } from './service.js';

/**
 * What a Payments API route needs from its caller, in `config.access`. Absent: the route is public.
 * - `scopes`: every one of them (an empty list: any valid credential);
 * - `anyScope`: at least one of them (the handler decides what each allows);
 * - `credentials`: the credential kinds accepted. v1 routes take both by default; v2 routes take
 *   OAuth access tokens only, whatever they say.
 */
export interface RouteAuth {
  scopes?: Scope[];
  anyScope?: Scope[];
  credentials?: CredentialKind[];
}

declare module '@holdfast/http-kit' {
  interface RouteAccessForms {
    payments: RouteAuth;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified caller, set before the handler runs on every route with `config.access`. */
    principal?: Principal;
    /** Why the credential was refused; thrown after the rate limiter has counted the request. */
    authError?: AppError;
  }
}

/** The verified caller of a route declared with `config.access`. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`route ${request.routeOptions.url} reads a principal but declares no config.access`);
  return request.principal;
}

/**
 * Who a request counts against for the rate limits: its verified API key or OAuth client; a
 * missing or refused credential counts against the client address (so random keys cannot
 * escape the limit). Pass as createFoundation's `http.credentialOf`.
 */
export function rateLimitCredentialOf(request: FastifyRequest): string | undefined {
  const p = request.principal;
  if (!p) return undefined;
  return p.kind === 'api_key' ? `key:${p.keyId}` : `client:${p.clientPk}`;
}

/**
 * The route's `config.access` as this layer reads it. Another API's form (a workspace string) is a
 * mistake in the route, refused when the route is added.
 */
function routeAuthOf(config: FastifyContextConfig | undefined): RouteAuth | undefined {
  const access: unknown = config?.access;
  if (access === undefined) return undefined;
  if (typeof access !== 'object' || access === null)
    throw new Error(`payments routes declare config.access as { scopes }, not ${String(access)}`);
  return access as RouteAuth;
}

const isV2 = (url: string) => url === '/api/v2' || url.startsWith('/api/v2/');

const TOKEN_HINT = 'Authorization: Bearer <access token> (from POST /api/v2/oauth/token)';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function resolve(authenticator: Authenticator, request: FastifyRequest, v2: boolean): AuthOutcome | Promise<AuthOutcome> {
  const apiKey = header(request, 'x-api-key');
  const authorization = header(request, 'authorization');
  if (apiKey && authorization) {
    return { error: new AppError('UNAUTHORIZED', 'Send one credential: X-API-Key or Authorization, not both') };
  }
  if (apiKey) {
    if (v2) return { error: new AppError('UNAUTHORIZED', `API keys are not accepted on /api/v2; send ${TOKEN_HINT}`) };
    return authenticator.apiKey(apiKey);
  }
  if (authorization) {
    const [scheme, token, ...rest] = authorization.split(/\s+/);
    if (scheme?.toLowerCase() !== 'bearer' || !token || rest.length > 0) {
      return { error: invalidToken(`The Authorization header must be ${TOKEN_HINT}`) };
    }
    return authenticator.bearer(token);
  }
  const message = v2 ? `Missing credentials: send ${TOKEN_HINT}` : `Missing credentials: send X-API-Key: <API key> or ${TOKEN_HINT}`;
  return {
    error: new AppError('UNAUTHORIZED', message, undefined, v2 ? { 'WWW-Authenticate': 'Bearer realm="holdfast"' } : undefined),
  };
}

/** v1 scopes a v2 operation does not accept in place of its own, and what to ask for instead. */
const V1_NOT_ON_V2: Partial<Record<Scope, Scope[]>> = {
  'reverse:transactions': ['cancel:transactions', 'rescind:transactions'],
  'move:transactions': ['write:transactions'],
};

function scopeError(principal: Principal, auth: RouteAuth, v2: boolean): AppError | undefined {
  // Nearly always: every scope held (a few scopes each, so a scan, no Set per request).
  if (
    (auth.scopes ?? []).every((s) => principal.scopes.includes(s)) &&
    (!auth.anyScope?.length || auth.anyScope.some((s) => principal.scopes.includes(s)))
  )
    return undefined;
  const held = new Set(principal.scopes);
  const missing = (auth.scopes ?? []).filter((s) => !held.has(s));
  const anyMissing = auth.anyScope?.length && !auth.anyScope.some((s) => held.has(s));
  if (missing.length === 0 && !anyMissing) return undefined;
  const required = missing.length > 0 ? missing : (auth.anyScope ?? []);
  let message =
    missing.length > 0
      ? `This operation needs the scope ${missing.join(' and ')}`
      : `This operation needs one of the scopes ${required.join(', ')}`;
  if (v2) {
    for (const scope of required) {
      const v1Held = (V1_NOT_ON_V2[scope] ?? []).filter((s) => held.has(s));
      if (v1Held.length > 0) {
        message += `; ${v1Held.join(' and ')} ${v1Held.length > 1 ? 'are v1 scopes and do' : 'is a v1 scope and does'} not grant it on v2`;
      }
    }
  }
  const headers =
    principal.kind === 'oauth_token'
      ? { 'WWW-Authenticate': `Bearer realm="holdfast", error="insufficient_scope", scope="${required.join(' ')}"` }
      : undefined;
  return new AppError(
    'INSUFFICIENT_SCOPE',
    message,
    { required, ...(missing.length > 0 ? {} : { anyOf: true }), granted: [...principal.scopes] },
    headers,
  );
}

function describe(auth: RouteAuth, v2: boolean): string {
  const kinds = v2 ? 'an OAuth access token (Bearer)' : 'an API key (X-API-Key) or an OAuth access token (Bearer)';
  const restricted =
    !v2 && auth.credentials?.length === 1
      ? auth.credentials[0] === 'api_key'
        ? 'an API key (X-API-Key)'
        : 'an OAuth access token (Bearer)'
      : kinds;
  const scopes = auth.scopes?.length
    ? `Scopes: ${auth.scopes.map((s) => `\`${s}\``).join(', ')}.`
    : auth.anyScope?.length
      ? `Scopes: one of ${auth.anyScope.map((s) => `\`${s}\``).join(', ')}.`
      : 'Any scope.';
  return `Authentication: ${restricted}. ${scopes}`;
}

/**
 * The authentication layer. Routes declare `config: { access: { scopes: [...] } }`; then:
 * 1. an onRequest hook verifies the credential (cache first) and sets `request.principal`, or
 *    remembers why it was refused; it never answers by itself;
 * 2. the rate limiter counts the request against the principal (or the client address);
 * 3. a route hook refuses a bad credential (401), a wrong kind (401: API keys on v2) or a missing
 *    scope (403 INSUFFICIENT_SCOPE), before the body is even parsed.
 * The route's OpenAPI operation gets its security requirement, its 401/403 answers and a line
 * naming the scopes. Register before any route.
 */
export function registerAuth(app: HttpApp, authenticator: Authenticator): void {
  const described = new WeakSet<object>();
  const remember = (request: FastifyRequest, outcome: AuthOutcome) => {
    if ('principal' in outcome) request.principal = outcome.principal;
    else request.authError = outcome.error;
  };
  // A callback hook: a cached credential is verified in the same turn, no promise per request.
  app.addHook('onRequest', (request, _reply, done) => {
    const { config, url } = request.routeOptions;
    if (!routeAuthOf(config)) {
      done();
      return;
    }
    let outcome: AuthOutcome | Promise<AuthOutcome>;
    try {
      outcome = resolve(authenticator, request, isV2(url ?? ''));
    } catch (error) {
      done(error as Error);
      return;
    }
    if (!(outcome instanceof Promise)) {
      remember(request, outcome);
      done();
      return;
    }
    outcome.then(
      (answered) => {
        remember(request, answered);
        done();
      },
      (error: Error) => done(error),
    );
  });

  app.addHook('onRoute', (route) => {
    const auth = routeAuthOf(route.config);
    if (!auth) {
      // A public route says so in its OpenAPI operation (`security: []`), unless it lists its own.
      const schema = route.schema as { security?: unknown } | undefined;
      if (schema && schema.security === undefined) schema.security = [];
      return;
    }
    const v2 = isV2(route.url);
    const accepted: CredentialKind[] = v2 ? ['oauth_token'] : (auth.credentials ?? ['api_key', 'oauth_token']);
    const refusal = (request: FastifyRequest): AppError | undefined => {
      if (request.authError) return request.authError;
      const principal = request.principal;
      if (!principal) return unauthorized();
      if (!accepted.includes(principal.kind)) {
        return new AppError(
          'UNAUTHORIZED',
          principal.kind === 'api_key'
            ? 'This operation takes an OAuth access token (Bearer), not an API key'
            : 'This operation takes an API key (X-API-Key), not an access token',
        );
      }
      return scopeError(principal, auth, v2);
    };
    const enforce = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => done(refusal(request));
    route.onRequest = [...[route.onRequest ?? []].flat(), enforce] as typeof route.onRequest;

    // Fastify registers a HEAD twin of every GET with the same schema object: describe it once.
    if (route.schema && !(route.schema as { hide?: boolean }).hide && !described.has(route.schema)) {
      described.add(route.schema);
      const schema = route.schema as Record<string, unknown> & { response?: Record<string | number, unknown> };
      schema.security = accepted.map((kind) => (kind === 'api_key' ? { apiKey: [] } : { bearer: [] }));
      const response = schema.response ?? {};
      response[401] ??= ErrorResponse;
      if (auth.scopes?.length || auth.anyScope?.length) response[403] ??= ErrorResponse;
      schema.response = response;
      const line = describe(auth, v2);
      schema.description = schema.description ? `${schema.description}\n\n${line}` : line;
    }
  });
}

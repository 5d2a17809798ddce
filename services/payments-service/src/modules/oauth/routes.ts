import { AppError, paymentsEndpoints as api, SCOPES, type TokenActionRequest, type TokenRequest } from '@holdfast/contracts';
import { envelope, errorEnvelope, type HttpApp, route, serveRoutes, toErrorObject } from '@holdfast/http-kit';
import type { Static } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import { OAuthError } from './errors.js';
import type { OAuthService, PresentedClient } from './service.js';

const FORM = 'application/x-www-form-urlencoded';

const isForm = (request: FastifyRequest) => (request.headers['content-type'] ?? '').toLowerCase().startsWith(FORM);

/** RFC 6749 §2.3.1: `Basic base64(urlencode(client_id):urlencode(client_secret))`. */
function basicCredentials(request: FastifyRequest): PresentedClient['basic'] {
  const header = request.headers.authorization;
  if (!header || !/^basic\s/i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials', { basicAuth: true });
  const formDecode = (s: string) => {
    try {
      return decodeURIComponent(s.replaceAll('+', ' '));
    } catch {
      throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials', { basicAuth: true });
    }
  };
  return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
}

function presented(request: FastifyRequest, body: { client_id?: unknown; client_secret?: unknown }): PresentedClient {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return { basic: basicCredentials(request), body: { clientId: text(body.client_id), clientSecret: text(body.client_secret) } };
}

/**
 * The token, revocation and introspection endpoints answer JSON requests with the envelope and
 * form-encoded requests (RFC 6749 / 7009 / 7662) with the bare RFC shapes, errors included, so that
 * standard OAuth client libraries work unchanged. Token answers are never cached.
 */
async function oauthEndpoints(scope: HttpApp, service: OAuthService, issuerOf: (r: FastifyRequest) => string): Promise<void> {
  scope.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, body, done) => {
    const params = new URLSearchParams(body as string);
    const out: Record<string, string> = {};
    for (const [key, value] of params) {
      if (key in out) return done(new OAuthError('invalid_request', `Parameter ${key} is repeated`, { field: key }), undefined);
      out[key] = value;
    }
    done(null, out);
  });

  scope.addHook('onRequest', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store');
    reply.header('Pragma', 'no-cache');
  });

  scope.setErrorHandler((error: FastifyError | AppError, request, reply: FastifyReply) => {
    if (isForm(request) && (error instanceof OAuthError || Array.isArray((error as FastifyError).validation))) {
      const oauth =
        error instanceof OAuthError ? error : new OAuthError('invalid_request', toErrorObject(error).message, { field: undefined });
      if (oauth.headers) reply.headers(oauth.headers);
      request.log.info({ oauthError: oauth.oauthCode }, 'oauth request refused');
      return reply.code(oauth.oauthStatus).send({ error: oauth.oauthCode, error_description: oauth.message });
    }
    const body = toErrorObject(error);
    if (body.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: body.code, message: body.message }, 'request refused');
    if (error instanceof AppError && error.headers) reply.headers(error.headers);
    return reply.code(body.statusCode).send(errorEnvelope(body, request.id));
  });

  serveRoutes(scope, PAYMENTS_SURFACE, [
    route(api.issueToken, async (request) => {
      const body = request.body as Static<typeof TokenRequest>;
      const token = await service.issueToken({ grantType: body.grant_type, scope: body.scope, client: presented(request, body) });
      return isForm(request) ? token : envelope(request, token);
    }),
    route(api.revokeToken, async (request) => {
      const body = request.body as Static<typeof TokenActionRequest>;
      await service.revoke({ token: body.token, client: presented(request, body) });
      return isForm(request) ? {} : envelope(request, {});
    }),
    route(api.introspectToken, async (request) => {
      const body = request.body as Static<typeof TokenActionRequest>;
      const answer = await service.introspect({ token: body.token, client: presented(request, body), issuer: issuerOf(request) });
      return isForm(request) ? answer : envelope(request, answer);
    }),
  ]);
}

/** OAuth 2.0 (spec "Payments API: OAuth"): clients, tokens, revocation, introspection, RFC 8414 metadata. */
export function oauthRoutes(service: OAuthService, options: { publicUrl?: string }) {
  return async (app: HttpApp) => {
    const issuerOf = (request: FastifyRequest) => options.publicUrl ?? `${request.protocol}://${request.host}`;

    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.createOAuthClient, async (request, reply) =>
        reply.code(201).send(await service.createClient(principalOf(request), request.body)),
      ),
      route(api.revokeAllClientTokens, async (request) => service.revokeAllTokens(principalOf(request), request.params.clientId)),
    ]);

    // Served apart: the metadata stays between the v1 client routes and the token routes in the OpenAPI document.
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.oauthMetadata, async (request) => {
        const issuer = issuerOf(request);
        const methods = ['client_secret_basic', 'client_secret_post'];
        return {
          issuer,
          token_endpoint: `${issuer}/api/v2/oauth/token`,
          revocation_endpoint: `${issuer}/api/v2/oauth/revoke`,
          introspection_endpoint: `${issuer}/api/v2/oauth/introspect`,
          grant_types_supported: ['client_credentials'],
          response_types_supported: [],
          token_endpoint_auth_methods_supported: methods,
          revocation_endpoint_auth_methods_supported: methods,
          introspection_endpoint_auth_methods_supported: methods,
          scopes_supported: [...SCOPES],
          service_documentation: `${issuer}/docs`,
        };
      }),
    ]);

    await app.register(async (scope) => oauthEndpoints(scope as unknown as HttpApp, service, issuerOf));
  };
}

import {
  AppError,
  AuthorizationServerMetadata,
  CreateOAuthClientBody,
  IntrospectionResponse,
  OAuthClientWithSecret,
  OAuthErrorResponse,
  RevokeAllTokensResult,
  SCOPES,
  SuccessEnvelope,
  TokenActionRequest,
  TokenActionRequestForm,
  TokenEnvelope,
  TokenRequest,
  TokenRequestForm,
  TokenResponse,
} from '@holdfast/contracts';
import { ErrorResponse, envelope, errorEnvelope, errorResponses, type HttpApp, toErrorObject } from '@holdfast/http-kit';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { API_VERSIONS } from '../../http/versions.js';
import { principalOf } from '../auth/plugin.js';
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

/** Both request encodings, documented and validated per Content-Type. */
function bodyOf(json: object, form: object) {
  return { content: { 'application/json': { schema: json }, [FORM]: { schema: form } } } as never;
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

  const errors = {
    400: Type.Union([ErrorResponse, OAuthErrorResponse], {
      description: 'Envelope for JSON requests, RFC 6749 §5.2 error for form requests.',
    }),
    401: Type.Union([ErrorResponse, OAuthErrorResponse], { description: 'Client authentication failed (invalid_client).' }),
  };

  for (const v of API_VERSIONS) {
    scope.post(
      `/api/${v}/oauth/token`,
      {
        config: { tier: 'public' },
        schema: {
          tags: ['oauth'],
          summary: 'Obtain an access token (client credentials)',
          description: [
            'The OAuth 2.0 client credentials grant. Tokens live 3600 s; cache one until shortly before it expires, and on a 401 get a new one and retry once.',
            '',
            '- JSON (the spec): `{grant_type, client_id, client_secret, scope?}` answers the envelope `{success, data: {access_token, token_type, expires_in, scope}, meta}`; errors are the error envelope with `details.oauthError`.',
            '- `application/x-www-form-urlencoded` (RFC 6749): client authentication by HTTP Basic (client_secret_basic) or body fields (client_secret_post); answers the bare RFC 6749 §5.1 token response and §5.2 errors.',
            '',
            "`scope` is space-separated and must be a subset of the client's scopes (else `invalid_scope`); omitted, the token gets every scope of the client. Answers carry `Cache-Control: no-store`.",
          ].join('\n'),
          operationId: v === 'v2' ? 'issueToken' : 'issueTokenV1',
          deprecated: v === 'v1',
          security: [{}, { clientBasic: [] }],
          body: bodyOf(TokenRequest, TokenRequestForm),
          response: { 200: Type.Union([TokenEnvelope, TokenResponse]), ...errors, ...errorResponses(403) },
        },
      },
      async (request) => {
        const body = request.body as Static<typeof TokenRequest>;
        const token = await service.issueToken({ grantType: body.grant_type, scope: body.scope, client: presented(request, body) });
        return isForm(request) ? token : envelope(request, token);
      },
    );

    scope.post(
      `/api/${v}/oauth/revoke`,
      {
        config: { tier: 'public' },
        schema: {
          tags: ['oauth'],
          summary: 'Revoke an access token (RFC 7009)',
          description:
            'The client that received the token revokes it; it stops working on every instance within a second. An unknown token, or one issued to another client, also answers 200 and changes nothing. Form requests get an empty `{}`; JSON requests the envelope.',
          operationId: v === 'v2' ? 'revokeToken' : 'revokeTokenV1',
          deprecated: v === 'v1',
          security: [{}, { clientBasic: [] }],
          body: bodyOf(TokenActionRequest, TokenActionRequestForm),
          response: { 200: Type.Union([SuccessEnvelope(Type.Object({})), Type.Object({})]), ...errors },
        },
      },
      async (request) => {
        const body = request.body as Static<typeof TokenActionRequest>;
        await service.revoke({ token: body.token, client: presented(request, body) });
        return isForm(request) ? {} : envelope(request, {});
      },
    );

    scope.post(
      `/api/${v}/oauth/introspect`,
      {
        config: { tier: 'high' },
        schema: {
          tags: ['oauth'],
          summary: 'Introspect an access token (RFC 7662)',
          description:
            'For resource servers: is this token active, for which platform and scopes. Authenticate as an OAuth client; tokens of another platform answer `{active: false}`. Form requests get the bare RFC 7662 answer; JSON requests the envelope.',
          operationId: v === 'v2' ? 'introspectToken' : 'introspectTokenV1',
          deprecated: v === 'v1',
          security: [{}, { clientBasic: [] }],
          body: bodyOf(TokenActionRequest, TokenActionRequestForm),
          response: { 200: Type.Union([SuccessEnvelope(IntrospectionResponse), IntrospectionResponse]), ...errors },
        },
      },
      async (request) => {
        const body = request.body as Static<typeof TokenActionRequest>;
        const answer = await service.introspect({ token: body.token, client: presented(request, body), issuer: issuerOf(request) });
        return isForm(request) ? answer : envelope(request, answer);
      },
    );
  }
}

/** OAuth 2.0 (spec "Payments API: OAuth"): clients, tokens, revocation, introspection, RFC 8414 metadata. */
export function oauthRoutes(service: OAuthService, options: { publicUrl?: string }) {
  return async (app: HttpApp) => {
    const issuerOf = (request: FastifyRequest) => options.publicUrl ?? `${request.protocol}://${request.host}`;

    app.post(
      '/api/v1/oauth/clients',
      {
        config: { tier: 'admin', access: { scopes: ['admin:platform'] } },
        schema: {
          tags: ['oauth'],
          summary: 'Create an OAuth client',
          description:
            'A client of `platformId` (default: the calling platform). The secret is shown once. On v2, OAuth clients are managed on the Workspace API.',
          operationId: 'createOAuthClientV1',
          deprecated: true,
          body: CreateOAuthClientBody,
          response: { 201: OAuthClientWithSecret, ...errorResponses(404, 409) },
        },
      },
      async (request, reply) => reply.code(201).send(await service.createClient(principalOf(request), request.body)),
    );

    app.post(
      '/api/v1/oauth/clients/:clientId/revoke-all-tokens',
      {
        config: { tier: 'admin', access: { scopes: ['admin:platform'] } },
        schema: {
          tags: ['oauth'],
          summary: "Revoke all of a client's tokens",
          description: 'Every unexpired token of the client stops working on every instance within a second; `count` says how many.',
          operationId: 'revokeAllClientTokensV1',
          deprecated: true,
          params: Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 128, description: 'clientId (hf_client_…) or id.' }) }),
          response: { 200: RevokeAllTokensResult, ...errorResponses(404) },
        },
      },
      async (request) => service.revokeAllTokens(principalOf(request), request.params.clientId),
    );

    app.get(
      '/.well-known/oauth-authorization-server',
      {
        config: { tier: 'public' },
        schema: {
          tags: ['oauth'],
          summary: 'Authorization server metadata (RFC 8414)',
          operationId: 'oauthMetadata',
          response: { 200: AuthorizationServerMetadata },
        },
      },
      async (request) => {
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
      },
    );

    await app.register(async (scope) => oauthEndpoints(scope as unknown as HttpApp, service, issuerOf));
  };
}

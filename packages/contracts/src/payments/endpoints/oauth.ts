import { type TSchema, Type } from '@sinclair/typebox';
import { ErrorEnvelope, SuccessEnvelope } from '../../common/envelope.js';
import {
  AuthorizationServerMetadata,
  CreateOAuthClientBody,
  IntrospectionResponse,
  OAuthClientIdParams,
  OAuthClientWithSecret,
  OAuthErrorResponse,
  RevokeAllTokensResult,
  TokenActionRequest,
  TokenActionRequestForm,
  TokenEnvelope,
  TokenRequest,
  TokenRequestForm,
  TokenResponse,
} from '../access.js';
import { resource } from './define.js';

// OAuth 2.0 (spec "Payments API: OAuth"): clients (v1), RFC 8414 metadata, tokens, revocation, introspection

/** Token, revocation and introspection take JSON or a form (RFC 6749), documented and validated per Content-Type. */
const jsonOrForm = <J extends TSchema, F extends TSchema>(json: J, form: F) => ({
  content: { 'application/json': { schema: json }, 'application/x-www-form-urlencoded': { schema: form } },
});
/** JSON requests get the error envelope, form requests the RFC 6749 §5.2 error. */
const OAUTH_ERRORS = {
  400: Type.Union([Type.Ref(ErrorEnvelope), OAuthErrorResponse], {
    description: 'Envelope for JSON requests, RFC 6749 §5.2 error for form requests.',
  }),
  401: Type.Union([Type.Ref(ErrorEnvelope), OAuthErrorResponse], { description: 'Client authentication failed (invalid_client).' }),
};
/** Client authentication in the body (no scheme) or by HTTP Basic. */
const OAUTH_CLIENT: readonly Record<string, readonly string[]>[] = [{}, { clientBasic: [] }];

const endpoint = resource({ tags: ['oauth'] });

export const createOAuthClient = endpoint('POST /api/v1/oauth/clients', {
  operationId: 'createOAuthClientV1',
  summary: 'Create an OAuth client',
  description:
    'A client of `platformId` (default: the calling platform). The secret is shown once. On v2, OAuth clients are managed on the Workspace API.',
  deprecated: true,
  tier: 'admin',
  access: { scopes: ['admin:platform'] },
  body: CreateOAuthClientBody,
  response: { 201: OAuthClientWithSecret },
  errors: [404, 409],
});

export const revokeAllClientTokens = endpoint('POST /api/v1/oauth/clients/:clientId/revoke-all-tokens', {
  operationId: 'revokeAllClientTokensV1',
  summary: "Revoke all of a client's tokens",
  description: 'Every unexpired token of the client stops working on every instance within a second; `count` says how many.',
  deprecated: true,
  tier: 'admin',
  access: { scopes: ['admin:platform'] },
  params: OAuthClientIdParams,
  response: { 200: RevokeAllTokensResult },
  errors: [404],
});

export const oauthMetadata = endpoint('GET /.well-known/oauth-authorization-server', {
  operationId: 'oauthMetadata',
  summary: 'Authorization server metadata (RFC 8414)',
  tier: 'public',
  access: 'none',
  response: { 200: AuthorizationServerMetadata },
});

export const issueToken = endpoint('POST /api/v2/oauth/token', {
  v1: ['/api/v1/oauth/token'],
  operationId: 'issueToken',
  summary: 'Obtain an access token (client credentials)',
  description: [
    'The OAuth 2.0 client credentials grant. Tokens live 3600 s; cache one until shortly before it expires, and on a 401 get a new one and retry once.',
    '',
    '- JSON (the spec): `{grant_type, client_id, client_secret, scope?}` answers the envelope `{success, data: {access_token, token_type, expires_in, scope}, meta}`; errors are the error envelope with `details.oauthError`.',
    '- `application/x-www-form-urlencoded` (RFC 6749): client authentication by HTTP Basic (client_secret_basic) or body fields (client_secret_post); answers the bare RFC 6749 §5.1 token response and §5.2 errors.',
    '',
    "`scope` is space-separated and must be a subset of the client's scopes (else `invalid_scope`); omitted, the token gets every scope of the client. Answers carry `Cache-Control: no-store`.",
  ].join('\n'),
  tier: 'public',
  access: 'none',
  security: OAUTH_CLIENT,
  body: jsonOrForm(TokenRequest, TokenRequestForm),
  response: { 200: Type.Union([TokenEnvelope, TokenResponse]), ...OAUTH_ERRORS },
  errors: [403],
});

export const revokeToken = endpoint('POST /api/v2/oauth/revoke', {
  v1: ['/api/v1/oauth/revoke'],
  operationId: 'revokeToken',
  summary: 'Revoke an access token (RFC 7009)',
  description:
    'The client that received the token revokes it; it stops working on every instance within a second. An unknown token, or one issued to another client, also answers 200 and changes nothing. Form requests get an empty `{}`; JSON requests the envelope.',
  tier: 'public',
  access: 'client',
  security: OAUTH_CLIENT,
  body: jsonOrForm(TokenActionRequest, TokenActionRequestForm),
  response: { 200: Type.Union([SuccessEnvelope(Type.Object({})), Type.Object({})]), ...OAUTH_ERRORS },
});

export const introspectToken = endpoint('POST /api/v2/oauth/introspect', {
  v1: ['/api/v1/oauth/introspect'],
  operationId: 'introspectToken',
  summary: 'Introspect an access token (RFC 7662)',
  description:
    'For resource servers: is this token active, for which platform and scopes. Authenticate as an OAuth client; tokens of another platform answer `{active: false}`. Form requests get the bare RFC 7662 answer; JSON requests the envelope.',
  tier: 'high',
  access: 'client',
  security: OAUTH_CLIENT,
  body: jsonOrForm(TokenActionRequest, TokenActionRequestForm),
  response: { 200: Type.Union([SuccessEnvelope(IntrospectionResponse), IntrospectionResponse]), ...OAUTH_ERRORS },
});

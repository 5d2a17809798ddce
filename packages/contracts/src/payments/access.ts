import { type Static, Type } from '@sinclair/typebox';
import { defineCommand } from '../commands/define.js';
import { DateTime, StringEnum, Uuid } from '../common/domain.js';
import { SuccessEnvelope } from '../common/envelope.js';

// Payments API access: scopes, platforms and API keys, OAuth 2.0 clients and tokens, and the NATS
// commands the Workspace API uses to manage a workspace's platforms and OAuth clients.
// Consumer-facing explanations live in docs/api/{keys,scopes,tokens}.md.

/** The spec's 19 scopes (Payments API v1). API keys hold only these. */
export const V1_SCOPES = [
  'read:transactions',
  'write:transactions',
  'cancel:transactions',
  'rescind:transactions',
  'read:customers',
  'write:customers',
  'read:templates',
  'write:templates',
  'read:disputes',
  'write:disputes',
  'submit:evidence',
  'read:webhooks',
  'write:webhooks',
  'read:compliance',
  'write:compliance',
  'read:platform',
  'write:platform',
  'manage:api-keys',
  'admin:platform',
] as const;

/** Scopes only OAuth clients can hold: v2 gates money movement and reversals on them. */
export const V2_ONLY_SCOPES = ['move:transactions', 'reverse:transactions'] as const;

export const SCOPES = [...V1_SCOPES, ...V2_ONLY_SCOPES] as const;
export type Scope = (typeof SCOPES)[number];
export type V1Scope = (typeof V1_SCOPES)[number];

/** What each scope grants; served by GET /api/v2/auth/scopes and written into docs/api/scopes.md. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'read:transactions': 'List and read transactions, batches, quotes, the at-risk report and statistics.',
  'write:transactions':
    'v1: create transactions and batches, request quotes, submit hashes, attest releases. v2: request quotes and submit hashes (moving money needs move:transactions).',
  'cancel:transactions': 'v1 only: cancel or refund a transaction. Not accepted on v2 (use reverse:transactions).',
  'rescind:transactions': 'v1 only: rescind a transaction during its hold period. Not accepted on v2 (use reverse:transactions).',
  'move:transactions':
    'v2: create transactions and batches and attest releases, i.e. every operation that moves money. OAuth clients only.',
  'reverse:transactions': 'v2: rescind and refund transactions. OAuth clients only.',
  'read:customers': 'Read customer references used by transactions.',
  'write:customers': 'Create and update customer references.',
  'read:templates': 'Read control templates.',
  'write:templates': 'Create and update control templates.',
  'read:disputes': 'List and read disputes and their evidence.',
  'write:disputes': 'Open, escalate and resolve disputes.',
  'submit:evidence': 'Submit evidence to a dispute.',
  'read:webhooks': 'v1: list and read webhook subscriptions and delivery logs.',
  'write:webhooks': 'v1: create, change, rotate, test and delete webhook subscriptions.',
  'read:compliance': 'Read compliance verifications.',
  'write:compliance': 'Create and check compliance verifications.',
  'read:platform': 'Read your own platform (GET /auth/platform/{id}).',
  'write:platform': 'Change your own platform name, webhookUrl and settings.',
  'manage:api-keys': "Regenerate your own platform's API key (v1).",
  'admin:platform':
    'Operator scope: create platforms and API keys, read, change and deactivate any platform, create OAuth clients on v1. Never given to a workspace.',
};

/**
 * What a platform must hold for a credential of it to use each scope. A platform holds v1 scopes
 * only; an OAuth client's token never does more than its platform may (docs/api/scopes.md,
 * "A token never outgrows its platform"). `move:transactions` is what `write:transactions` moves
 * on v1; `reverse:transactions` rescinds and refunds, i.e. v1's `rescind:` and `cancel:` together
 * (a platform holding only one of them would gain the other through v2). Every other scope needs
 * itself.
 */
export const PLATFORM_SCOPES_NEEDED: Record<Scope, readonly V1Scope[]> = {
  ...(Object.fromEntries(V1_SCOPES.map((s) => [s, [s]])) as unknown as Record<V1Scope, readonly V1Scope[]>),
  'move:transactions': ['write:transactions'],
  'reverse:transactions': ['cancel:transactions', 'rescind:transactions'],
};

/** The scopes of `scopes` that a platform holding `platformScopes` covers (order kept). */
export function withinPlatformScopes<S extends Scope>(scopes: readonly S[], platformScopes: readonly Scope[]): S[] {
  return scopes.filter((s) => PLATFORM_SCOPES_NEEDED[s].every((needed) => platformScopes.includes(needed)));
}

/** Read-only scopes: what a new API key holds when its creator names none (spec). */
export const DEFAULT_KEY_SCOPES: readonly V1Scope[] = [
  'read:transactions',
  'read:customers',
  'read:templates',
  'read:disputes',
  'read:webhooks',
  'read:compliance',
  'read:platform',
];

/** Scopes a workspace can never give itself (its API keys and OAuth clients). */
export const OPERATOR_ONLY_SCOPES: readonly Scope[] = ['admin:platform'];

/** Sandbox API key (v1): everything a workspace needs to integrate, no platform administration. */
export const SANDBOX_KEY_SCOPES: readonly V1Scope[] = V1_SCOPES.filter(
  (scope) => scope !== 'write:platform' && scope !== 'manage:api-keys' && scope !== 'admin:platform',
);

/** Sandbox OAuth client (v2): the sandbox key's scopes plus v2 money movement and reversals. */
export const SANDBOX_CLIENT_SCOPES: readonly Scope[] = [...SANDBOX_KEY_SCOPES, 'move:transactions', 'reverse:transactions'];

/** `read:transactions` -> `transactions:read`: the Workspace API writes scopes resource first. */
export function toWorkspaceScope(scope: Scope): string {
  const [action, resource] = scope.split(':') as [string, string];
  return `${resource}:${action}`;
}

/** `transactions:read` -> `read:transactions`; undefined for a string that names no scope. */
export function fromWorkspaceScope(text: string): Scope | undefined {
  const [resource, action, ...rest] = text.split(':');
  if (!resource || !action || rest.length > 0) return undefined;
  const scope = `${action}:${resource}`;
  return (SCOPES as readonly string[]).includes(scope) ? (scope as Scope) : undefined;
}

export const ScopeSchema = StringEnum(SCOPES, { description: 'A Payments API scope; see docs/api/scopes.md.' });
export const V1ScopeSchema = StringEnum(V1_SCOPES, { description: 'An API key scope (the 19 scopes of Payments v1).' });

// ---------------------------------------------------------------- credentials and their formats

/** `hf_test_` + at least 32 base62/base64url characters (`hf_live_` in production). */
export const API_KEY_PATTERN = '^hf_(test|live)_[A-Za-z0-9_-]{32,200}$';
export const CLIENT_ID_PATTERN = '^hf_client_[A-Za-z0-9]{16,64}$';
export const CLIENT_SECRET_PATTERN = '^hf_secret_[A-Za-z0-9]{32,200}$';
/** Opaque OAuth access tokens. */
export const ACCESS_TOKEN_PATTERN = '^hf_at_[A-Za-z0-9]{32,200}$';
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

export const SHOWN_ONCE_WARNING = 'Store this secret now: it is shown only once and Holdfast keeps only a hash of it.';

export const GRANT_TYPES = ['client_credentials', 'authorization_code', 'refresh_token'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];
export const GrantTypeSchema = StringEnum(GRANT_TYPES, {
  description: 'Only client_credentials is served by POST /oauth/token; the others are recorded for future flows.',
});

// ---------------------------------------------------------------- platforms and API keys (HTTP)

const PlatformName = Type.String({ minLength: 3, maxLength: 100, description: '3 to 100 characters.' });
const WebhookUrl = Type.String({ format: 'uri', maxLength: 2048, description: 'HTTPS in production.' });
const Settings = Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form platform settings, returned as sent.' });

export const CreateApiKeyBody = Type.Object(
  {
    name: PlatformName,
    webhookUrl: Type.Optional(WebhookUrl),
    settings: Type.Optional(Settings),
    scopes: Type.Optional(
      Type.Array(V1ScopeSchema, { uniqueItems: true, description: 'Defaults to the read-only scopes (docs/api/scopes.md).' }),
    ),
    workspaceId: Type.Optional(Type.Union([Uuid, Type.Null()], { description: 'Attach the new platform to a workspace.' })),
  },
  { additionalProperties: false },
);
export type CreateApiKeyBody = Static<typeof CreateApiKeyBody>;

export const ApiKeyCreated = Type.Object(
  {
    apiKey: Type.String({ description: 'The API key, shown only in this answer.' }),
    platformId: Uuid,
    platformName: Type.String(),
    scopes: Type.Array(V1ScopeSchema),
    createdAt: DateTime,
    warning: Type.String(),
  },
  { $id: 'ApiKeyCreated' },
);
export type ApiKeyCreated = Static<typeof ApiKeyCreated>;

export const RegenerateApiKeyBody = Type.Object({ platformId: Uuid }, { additionalProperties: false });

/** The platform record (never any key material beyond a recognisable hint). */
export const Platform = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    workspaceId: Type.Union([Uuid, Type.Null()]),
    sandbox: Type.Boolean({ description: 'Minted as sandbox credentials for a workspace.' }),
    webhookUrl: Type.Union([Type.String(), Type.Null()]),
    settings: Settings,
    scopes: Type.Array(V1ScopeSchema),
    isActive: Type.Boolean(),
    apiKeyHint: Type.Union([Type.String(), Type.Null()], {
      description: 'First 12 and last 4 characters of the current API key, e.g. `hf_test_Ab3d…x9Qz`.',
    }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Platform' },
);
export type Platform = Static<typeof Platform>;

/** GET /auth/platforms: `workspaceId` narrows the list to one workspace. */
export const PlatformListQuery = Type.Object({ workspaceId: Type.Optional(Uuid) }, { additionalProperties: false });

export const UpdatePlatformBody = Type.Object(
  {
    name: Type.Optional(PlatformName),
    webhookUrl: Type.Optional(Type.Union([WebhookUrl, Type.Null()])),
    isActive: Type.Optional(Type.Boolean({ description: 'Needs admin:platform.' })),
    settings: Type.Optional(Settings),
    scopes: Type.Optional(Type.Array(V1ScopeSchema, { uniqueItems: true, description: 'Needs admin:platform.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdatePlatformBody = Static<typeof UpdatePlatformBody>;

export const VerifyApiKeyResult = Type.Object(
  {
    valid: Type.Boolean(),
    platformId: Type.Union([Uuid, Type.Null()]),
    platformName: Type.Union([Type.String(), Type.Null()]),
    isActive: Type.Boolean(),
  },
  { $id: 'VerifyApiKeyResult' },
);
export type VerifyApiKeyResult = Static<typeof VerifyApiKeyResult>;

export const ScopeCatalogue = Type.Array(
  Type.Object({
    scope: ScopeSchema,
    workspaceForm: Type.String({ description: 'The same scope as the Workspace API writes it (`transactions:read`).' }),
    description: Type.String(),
    apiKeys: Type.Boolean({ description: 'Whether API keys (v1) can hold it.' }),
    v2: Type.Boolean({ description: 'Whether v2 operations accept it.' }),
  }),
);

// ---------------------------------------------------------------- OAuth clients and tokens (HTTP)

export const OAuthClient = Type.Object(
  {
    id: Uuid,
    clientId: Type.String({ pattern: CLIENT_ID_PATTERN }),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    platformId: Uuid,
    workspaceId: Type.Union([Uuid, Type.Null()]),
    scopes: Type.Array(ScopeSchema),
    grantTypes: Type.Array(GrantTypeSchema),
    redirectUris: Type.Array(Type.String()),
    isActive: Type.Boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'OAuthClient' },
);
export type OAuthClient = Static<typeof OAuthClient>;

export const OAuthClientWithSecret = Type.Composite([
  OAuthClient,
  Type.Object({ clientSecret: Type.String({ description: 'Shown only in this answer.' }), warning: Type.String() }),
]);
export type OAuthClientWithSecret = Static<typeof OAuthClientWithSecret>;

const ClientName = Type.String({ minLength: 1, maxLength: 100 });
const ClientDescription = Type.String({ maxLength: 1000 });
const RedirectUris = Type.Array(Type.String({ format: 'uri', maxLength: 2048 }), { maxItems: 20 });

export const CreateOAuthClientBody = Type.Object(
  {
    name: ClientName,
    scopes: Type.Array(ScopeSchema, { minItems: 1, uniqueItems: true }),
    grantTypes: Type.Optional(Type.Array(GrantTypeSchema, { minItems: 1, uniqueItems: true, default: ['client_credentials'] })),
    description: Type.Optional(ClientDescription),
    redirectUris: Type.Optional(RedirectUris),
    platformId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
export type CreateOAuthClientBody = Static<typeof CreateOAuthClientBody>;

/** POST /oauth/clients/{clientId}/revoke-all-tokens: the client by its clientId or its id. */
export const OAuthClientIdParams = Type.Object({
  clientId: Type.String({ minLength: 1, maxLength: 128, description: 'clientId (hf_client_…) or id.' }),
});
export const RevokeAllTokensResult = Type.Object({ clientId: Type.String(), count: Type.Integer({ minimum: 0 }) });

const ClientAuthFields = {
  client_id: Type.Optional(Type.String({ description: 'With client_secret, instead of HTTP Basic (client_secret_post).' })),
  client_secret: Type.Optional(Type.String()),
};

/** The spec's JSON token request. Form-encoded requests (RFC 6749) take the same fields. */
export const TokenRequest = Type.Object(
  {
    grant_type: Type.String({ minLength: 1, description: '`client_credentials`.' }),
    ...ClientAuthFields,
    scope: Type.Optional(Type.String({ description: 'Space-separated; omitted means every scope of the client.' })),
  },
  { additionalProperties: false },
);
/** RFC 6749: unrecognised form parameters are ignored. */
export const TokenRequestForm = Type.Object(TokenRequest.properties, { additionalProperties: true });

/** RFC 7009 revocation and RFC 7662 introspection requests. */
export const TokenActionRequest = Type.Object(
  {
    token: Type.String({ minLength: 1 }),
    token_type_hint: Type.Optional(Type.String({ description: '`access_token`; other hints are ignored.' })),
    ...ClientAuthFields,
  },
  { additionalProperties: false },
);
export const TokenActionRequestForm = Type.Object(TokenActionRequest.properties, { additionalProperties: true });

/** RFC 8414 metadata of the Payments API's authorization server. */
export const AuthorizationServerMetadata = Type.Object(
  {
    issuer: Type.String(),
    token_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    introspection_endpoint: Type.String(),
    grant_types_supported: Type.Array(Type.String()),
    response_types_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    introspection_endpoint_auth_methods_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    service_documentation: Type.String(),
  },
  { $id: 'AuthorizationServerMetadata' },
);

/** RFC 6749 §5.1 access token response (form-encoded requests get it bare). */
export const TokenResponse = Type.Object(
  {
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ minimum: 1 }),
    scope: Type.String({ description: 'Space-separated scopes granted.' }),
  },
  { title: 'TokenResponse' },
);
export type TokenResponse = Static<typeof TokenResponse>;
/** The spec's answer to a JSON token request: the token response in the standard envelope. */
export const TokenEnvelope = SuccessEnvelope(TokenResponse, { description: 'JSON requests.' });

/** RFC 6749 §5.2 error (form-encoded requests). */
export const OAuthErrorResponse = Type.Object(
  {
    error: StringEnum([
      'invalid_request',
      'invalid_client',
      'invalid_grant',
      'unauthorized_client',
      'unsupported_grant_type',
      'invalid_scope',
    ]),
    error_description: Type.Optional(Type.String()),
  },
  { title: 'OAuthErrorResponse' },
);

/** RFC 7662 introspection answer. */
export const IntrospectionResponse = Type.Object(
  {
    active: Type.Boolean(),
    scope: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    token_type: Type.Optional(Type.Literal('Bearer')),
    exp: Type.Optional(Type.Integer()),
    iat: Type.Optional(Type.Integer()),
    sub: Type.Optional(Type.String({ description: 'The platform id the token acts for.' })),
    iss: Type.Optional(Type.String()),
    platform_id: Type.Optional(Uuid),
    workspace_id: Type.Optional(Type.Union([Uuid, Type.Null()])),
  },
  { title: 'IntrospectionResponse' },
);
export type IntrospectionResponse = Static<typeof IntrospectionResponse>;

// ---------------------------------------------------------------- cache invalidation broadcast

export const CREDENTIAL_KINDS = ['platform', 'api_key', 'client', 'token'] as const;
export type CredentialInvalidationKind = (typeof CREDENTIAL_KINDS)[number];

/**
 * Published on BROADCASTS.paymentsCredentialRevoked after a commit that revokes, deactivates or
 * changes a credential: every payments instance drops the matching cached credentials at once.
 */
export const CredentialRevokedBroadcast = Type.Object(
  { kind: StringEnum(CREDENTIAL_KINDS), ref: Uuid },
  { $id: 'CredentialRevokedBroadcast', additionalProperties: false },
);
export type CredentialRevokedBroadcast = Static<typeof CredentialRevokedBroadcast>;

// ---------------------------------------------------------------- commands for the Workspace API

/** A workspace's platform as the Workspace API sees it: no key material. */
export const WorkspacePlatform = Type.Object(
  {
    platformId: Uuid,
    name: Type.String(),
    workspaceId: Uuid,
    sandbox: Type.Boolean(),
    isActive: Type.Boolean(),
    scopes: Type.Array(V1ScopeSchema),
    apiKeyHint: Type.Union([Type.String(), Type.Null()]),
    oauthClientIds: Type.Array(Type.String(), { description: 'clientId of each OAuth client of the platform (not deleted).' }),
    createdAt: DateTime,
    deactivatedAt: Type.Union([DateTime, Type.Null()]),
  },
  { $id: 'WorkspacePlatform' },
);
export type WorkspacePlatform = Static<typeof WorkspacePlatform>;

/** The spec's "Sandbox credential": returned once, when issued. */
export const SandboxCredential = Type.Object(
  {
    platformId: Uuid,
    name: Type.String(),
    apiKey: Type.String({ description: 'v1 API key, shown once.' }),
    oauthClient: Type.Object({
      clientId: Type.String(),
      clientSecret: Type.String({ description: 'Shown once.' }),
      scopes: Type.Array(ScopeSchema),
    }),
    scopes: Type.Array(V1ScopeSchema, { description: "The API key's scopes." }),
    createdAt: DateTime,
    warning: Type.String(),
  },
  { $id: 'SandboxCredential' },
);
export type SandboxCredential = Static<typeof SandboxCredential>;

const WorkspaceRef = { workspaceId: Uuid };
/** `clientId` (hf_client_…) or the client's `id` (uuid): either finds it. */
const ClientRef = Type.String({ minLength: 1, maxLength: 128, description: 'The clientId (hf_client_…) or the id (uuid).' });
const TokenCount = Type.Integer({ minimum: 0 });

/**
 * What a workspace's external wallet configs (EXTERNAL_WALLET_1..4, enabled ones) give its
 * platforms' hosted checkout pages, merged by workspace-service: the name and logo the payer sees,
 * the WalletConnect project id, and the networks and templates a session may use (empty: any).
 * Networks are payments' names (`base-sepolia`), not the configs' upper snake case.
 */
export const CheckoutWalletSettings = Type.Object(
  {
    appName: Type.Optional(Type.String({ maxLength: 255 })),
    appLogoUrl: Type.Optional(Type.String({ maxLength: 2048 })),
    projectId: Type.Optional(Type.String({ maxLength: 255 })),
    allowedNetworks: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 20 }),
    // The union of up to four configs of at most 100 templates each (checkoutSettingsOf).
    allowedTemplateIds: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 400 }),
  },
  { additionalProperties: false },
);
export type CheckoutWalletSettings = Static<typeof CheckoutWalletSettings>;

export const PAYMENTS_COMMANDS = {
  issueSandboxCredentials: defineCommand(
    'cmd.payments.sandbox-credentials.issue',
    Type.Object({ ...WorkspaceRef, name: Type.Optional(PlatformName) }, { additionalProperties: false }),
    SandboxCredential,
    "Creates a sandbox platform for the workspace with an API key (SANDBOX_KEY_SCOPES) and an OAuth client (SANDBOX_CLIENT_SCOPES); secrets shown once. Limits (2 active, 5 per hour) are the Workspace API's.",
  ),
  listPlatforms: defineCommand(
    'cmd.payments.platforms.list',
    Type.Object({ ...WorkspaceRef, includeInactive: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    Type.Object({ platforms: Type.Array(WorkspacePlatform) }),
    "The workspace's platforms, newest first, without key material; active ones only unless includeInactive.",
  ),
  deactivatePlatform: defineCommand(
    'cmd.payments.platforms.deactivate',
    Type.Object({ ...WorkspaceRef, platformId: Uuid }, { additionalProperties: false }),
    Type.Object({ platformId: Uuid, revokedTokens: TokenCount }),
    "Deactivates one of the workspace's platforms: its API key stops working and its OAuth tokens are revoked, on every instance within a second. NOT_FOUND when the platform is not the workspace's. Idempotent.",
  ),
  deactivateWorkspacePlatforms: defineCommand(
    'cmd.payments.platforms.deactivate-all',
    Type.Object(WorkspaceRef, { additionalProperties: false }),
    Type.Object({ platformIds: Type.Array(Uuid), revokedTokens: TokenCount }),
    'Deactivates every platform of the workspace (workspace deletion, or the workspace leaving active). Idempotent.',
  ),
  listOAuthClients: defineCommand(
    'cmd.payments.oauth-clients.list',
    Type.Object(WorkspaceRef, { additionalProperties: false }),
    Type.Object({ clients: Type.Array(OAuthClient) }),
    "The workspace's OAuth clients (deleted ones excluded), newest first.",
  ),
  createOAuthClient: defineCommand(
    'cmd.payments.oauth-clients.create',
    Type.Object(
      {
        ...WorkspaceRef,
        platformId: Type.Optional(Uuid),
        name: ClientName,
        scopes: Type.Array(ScopeSchema, { minItems: 1, uniqueItems: true }),
        description: Type.Optional(ClientDescription),
        grantTypes: Type.Optional(Type.Array(GrantTypeSchema, { minItems: 1, uniqueItems: true })),
        redirectUris: Type.Optional(RedirectUris),
      },
      { additionalProperties: false },
    ),
    OAuthClientWithSecret,
    "Creates a client on platformId (one of the workspace's active platforms) or, when omitted, on the workspace's newest active sandbox platform (CONFLICT when it has none). admin:platform is refused (FORBIDDEN). The secret is shown once.",
  ),
  getOAuthClient: defineCommand(
    'cmd.payments.oauth-clients.get',
    Type.Object({ ...WorkspaceRef, clientId: ClientRef }, { additionalProperties: false }),
    OAuthClient,
    "One of the workspace's clients; NOT_FOUND for another workspace's or a deleted one.",
  ),
  updateOAuthClient: defineCommand(
    'cmd.payments.oauth-clients.update',
    Type.Object(
      {
        ...WorkspaceRef,
        clientId: ClientRef,
        name: Type.Optional(ClientName),
        description: Type.Optional(Type.Union([ClientDescription, Type.Null()])),
        scopes: Type.Optional(Type.Array(ScopeSchema, { minItems: 1, uniqueItems: true })),
        isActive: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
    OAuthClient,
    'Changes a client. isActive false revokes all its tokens; narrowed scopes apply to its existing tokens at once.',
  ),
  deleteOAuthClient: defineCommand(
    'cmd.payments.oauth-clients.delete',
    Type.Object({ ...WorkspaceRef, clientId: ClientRef }, { additionalProperties: false }),
    Type.Object({ clientId: Type.String(), revokedTokens: TokenCount }),
    'Deletes a client (soft: it disappears everywhere) and revokes all its tokens.',
  ),
  revokeOAuthClientTokens: defineCommand(
    'cmd.payments.oauth-clients.revoke-tokens',
    Type.Object({ ...WorkspaceRef, clientId: ClientRef }, { additionalProperties: false }),
    Type.Object({ count: TokenCount }),
    'Revokes every unexpired, unrevoked token of the client; count is how many.',
  ),
  oauthClientStats: defineCommand(
    'cmd.payments.oauth-clients.stats',
    Type.Object({ ...WorkspaceRef, clientId: ClientRef }, { additionalProperties: false }),
    Type.Object({ totalTokens: TokenCount, activeTokens: TokenCount, revokedTokens: TokenCount }),
    'Tokens ever issued to the client, those still usable (unrevoked, unexpired) and those revoked.',
  ),
  setCheckoutWalletSettings: defineCommand(
    'cmd.payments.checkout-wallet-settings.set',
    Type.Object(
      {
        ...WorkspaceRef,
        settings: Type.Union([CheckoutWalletSettings, Type.Null()], { description: 'null: no enabled config (the defaults).' }),
        asOf: DateTime,
      },
      { additionalProperties: false },
    ),
    Type.Object({ workspaceId: Uuid, applied: Type.Boolean() }),
    "Replaces the workspace's checkout wallet settings as read at asOf; an older asOf than the one stored is ignored (applied false), so a late retry never undoes a newer change. They apply only to sessions of the workspace's own platforms (payments reads them by the platform's workspace). Idempotent.",
  ),
} as const;

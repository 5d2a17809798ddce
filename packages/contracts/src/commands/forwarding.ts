import { type Static, Type } from '@sinclair/typebox';
import { DateTime, StringEnum, Uuid } from '../common/domain.js';
import { Nullable } from '../common/fragments.js';
import { CLIENT_ID_PATTERN, GrantTypeSchema, PAYMENTS_COMMANDS, V1ScopeSchema } from '../payments/access.js';
import { WORKSPACE_OAUTH_SCOPE_NAMES } from '../workspace/catalog.js';
import { WebhookCommands } from './webhooks.js';

/*
 * The HTTP routes that forward to another process: Payments API v1 webhooks (to the dispatcher),
 * and the Workspace API's webhooks (to the dispatcher), OAuth clients and sandbox credentials (to
 * payments). The commands and their replies are in webhooks.ts and payments-access.ts; this file
 * holds only what the routes add: path parameters, the Workspace API's own shapes (scopes written
 * `resource:action`), and the records the Workspace API keeps itself.
 */

// ---------------------------------------------------------------- Payments API v1: webhooks

/**
 * `GET /api/v1/webhooks`: the spec types both parameters as strings (it marks them required; they
 * are optional here, a list without filters being the common call). `isActive` is converted to a
 * boolean before it is forwarded.
 */
export const PaymentsWebhookListQuery = Type.Object(
  {
    isActive: Type.Optional(
      StringEnum(['true', 'false'], { description: '`true` or `false`: only active or only inactive subscriptions.' }),
    ),
    eventType: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only subscriptions naming this event type.' })),
  },
  { additionalProperties: false },
);
export type PaymentsWebhookListQuery = Static<typeof PaymentsWebhookListQuery>;

export const WebhookIdParams = Type.Object({ id: Uuid });

/** The answer of a webhook deletion (both APIs; the Workspace API wraps it in the envelope). */
export const WebhookDeleted = WebhookCommands.delete.reply;
export type WebhookDeleted = Static<typeof WebhookDeleted>;

// ---------------------------------------------------------------- Workspace API: webhooks

export const WorkspaceWebhookParams = Type.Object({
  id: Uuid,
  webhookId: Type.String({ format: 'uuid', description: 'The subscription id.' }),
});

export const WorkspaceDeliveryParams = Type.Object({
  id: Uuid,
  webhookId: Type.String({ format: 'uuid' }),
  deliveryId: Type.String({ format: 'uuid', description: 'A `deliveryId` from the delivery logs (the `X-Webhook-Delivery` value).' }),
});

// ---------------------------------------------------------------- Workspace API: OAuth clients

/** A scope as the Workspace API writes it (`transactions:read`); GET /workspaces/{id}/oauth/scopes lists them. */
export const WorkspaceOAuthScopeSchema = StringEnum(WORKSPACE_OAUTH_SCOPE_NAMES, {
  description: '`resource:action`, resource first (GET /workspaces/{id}/oauth/scopes lists them with the Payments API scope each grants).',
});

/** `hf_client_…` or the client's id (uuid). */
export const OAuthClientRef = Type.String({
  pattern: `(${CLIENT_ID_PATTERN})|(^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$)`,
  description: 'The clientId (`hf_client_…`) or the id (uuid).',
});

export const WorkspaceOAuthClientParams = Type.Object({ id: Uuid, clientId: OAuthClientRef });

/** An OAuth client of a workspace, scopes written `resource:action`. */
export const WorkspaceOAuthClient = Type.Object(
  {
    id: Uuid,
    clientId: Type.String({ pattern: CLIENT_ID_PATTERN }),
    name: Type.String(),
    description: Nullable(Type.String()),
    platformId: Uuid,
    workspaceId: Nullable(Uuid),
    scopes: Type.Array(Type.String(), { description: '`resource:action`, e.g. `transactions:read`.' }),
    grantTypes: Type.Array(GrantTypeSchema),
    redirectUris: Type.Array(Type.String()),
    isActive: Type.Boolean({ description: 'false: its tokens were revoked and it cannot obtain new ones.' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    examples: [
      {
        id: '0193a7c4-6f1e-7b2a-9c3d-4e5f6a7b8c9e',
        clientId: 'hf_client_4Jq8Zt1LmN0pQrS2',
        name: 'Payouts backend',
        description: null,
        platformId: '6f9619ff-8b86-4d01-b42d-00cf4fc964ff',
        workspaceId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
        scopes: ['transactions:read', 'transactions:move'],
        grantTypes: ['client_credentials'],
        redirectUris: [],
        isActive: true,
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type WorkspaceOAuthClient = Static<typeof WorkspaceOAuthClient>;

export const WorkspaceOAuthClientWithSecret = Type.Object({
  ...WorkspaceOAuthClient.properties,
  clientSecret: Type.String({ description: '`hf_secret_…`, shown only in this answer; Holdfast keeps a hash.' }),
  warning: Type.String(),
});
export type WorkspaceOAuthClientWithSecret = Static<typeof WorkspaceOAuthClientWithSecret>;

export const WorkspaceOAuthClientList = Type.Object({ clients: Type.Array(WorkspaceOAuthClient) });

const createClient = PAYMENTS_COMMANDS.createOAuthClient.request.properties;
const updateClient = PAYMENTS_COMMANDS.updateOAuthClient.request.properties;
const WorkspaceScopes = Type.Array(WorkspaceOAuthScopeSchema, { minItems: 1, uniqueItems: true });

export const CreateWorkspaceOAuthClientBody = Type.Object(
  {
    name: createClient.name,
    scopes: WorkspaceScopes,
    description: createClient.description,
    grantTypes: createClient.grantTypes,
    redirectUris: createClient.redirectUris,
    platformId: Type.Optional(
      Type.String({
        format: 'uuid',
        description: "One of the workspace's active platforms; by default its newest active sandbox platform.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateWorkspaceOAuthClientBody = Static<typeof CreateWorkspaceOAuthClientBody>;

export const UpdateWorkspaceOAuthClientBody = Type.Object(
  {
    name: updateClient.name,
    description: updateClient.description,
    scopes: Type.Optional(WorkspaceScopes),
    isActive: Type.Optional(Type.Boolean({ description: 'false revokes every token of the client at once.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWorkspaceOAuthClientBody = Static<typeof UpdateWorkspaceOAuthClientBody>;

export const RevokedTokens = Type.Object({ count: Type.Integer({ minimum: 0, description: 'Tokens revoked by this call.' }) });
export const OAuthClientStats = PAYMENTS_COMMANDS.oauthClientStats.reply;

// ---------------------------------------------------------------- Workspace API: sandbox credentials

export const SANDBOX_CREDENTIAL_LIMITS = {
  /** Active sandbox credentials per workspace (409 beyond). */
  active: 2,
  /** Issued per workspace within `windowSeconds` (429 beyond). */
  issuedPerWindow: 5,
  windowSeconds: 3600,
} as const;

export const SandboxCredentialParams = Type.Object({
  id: Uuid,
  platformId: Type.String({ format: 'uuid', description: 'The `platformId` of the credential.' }),
});

export const SANDBOX_CREDENTIAL_STATUSES = ['active', 'revoked'] as const;

/** A sandbox credential as listed: no key material, only hints to recognise it. */
export const SandboxCredentialSummary = Type.Object(
  {
    platformId: Uuid,
    name: Type.String(),
    status: StringEnum(SANDBOX_CREDENTIAL_STATUSES, {
      description: 'active: the API key and the OAuth clients work; revoked: they do not (revoked here or deactivated by an operator).',
    }),
    apiKeyHint: Nullable(Type.String({ description: 'First 12 and last 4 characters of the API key.' })),
    scopes: Type.Array(V1ScopeSchema, { description: "The API key's scopes." }),
    oauthClientIds: Type.Array(Type.String(), { description: 'clientId of each OAuth client of the credential (not deleted).' }),
    createdBy: Nullable(Uuid),
    createdAt: DateTime,
    revokedAt: Nullable(DateTime),
  },
  {
    examples: [
      {
        platformId: '6f9619ff-8b86-4d01-b42d-00cf4fc964ff',
        name: 'acme-payments sandbox 4e5f6a7b8c9d',
        status: 'active',
        apiKeyHint: 'hf_test_Ab3d…x9Qz',
        scopes: ['read:transactions', 'write:transactions'],
        oauthClientIds: ['hf_client_4Jq8Zt1LmN0pQrS2'],
        createdBy: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7a',
        createdAt: '2026-11-21T10:00:00.000Z',
        revokedAt: null,
      },
    ],
  },
);
export type SandboxCredentialSummary = Static<typeof SandboxCredentialSummary>;

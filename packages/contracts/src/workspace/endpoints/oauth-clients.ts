import { Type } from '@sinclair/typebox';
import {
  CreateWorkspaceOAuthClientBody,
  OAuthClientStats,
  RevokedTokens,
  UpdateWorkspaceOAuthClientBody,
  WorkspaceOAuthClient,
  WorkspaceOAuthClientList,
  WorkspaceOAuthClientParams,
  WorkspaceOAuthClientWithSecret,
} from '../../commands/forwarding.js';
import { NoContent, SuccessEnvelope as ok } from '../../common/envelope.js';
import { WORKSPACE_AUDIT } from '../audit-actions.js';
import { OAuthScopeInfo } from '../catalog.js';
import { IdParams } from '../common.js';
import { resource } from './define.js';

// OAuth clients

const OAUTH_CLIENT_CALLERS = 'Members of the workspace and SUPER_ADMINs. 503 when payments does not answer.';
/** Issue 13 item 4: a minted credential is bounded by its minting member. */
const OAUTH_GRANT_BOUND =
  "A member grants only scopes its role may (`grantableBy` in GET /workspaces/{id}/oauth/scopes): a CLIENT's scopes beyond it answer 403 `FORBIDDEN` with `details.scopes`.";

const endpoint = resource({ tags: ['OAuth clients'] });

export const listOAuthScopes = endpoint('GET /workspaces/:id/oauth/scopes', {
  operationId: 'listOAuthScopes',
  summary: 'Scopes a workspace OAuth client may hold',
  description:
    'Scope strings are `resource:action` (resource first), each granting one Payments API scope (`action:resource`). Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(Type.Array(OAuthScopeInfo)) },
  errors: [403, 404],
});

export const listOAuthClients = endpoint('GET /workspaces/:id/oauth/clients', {
  operationId: 'listOAuthClients',
  summary: 'List OAuth clients',
  description: `The workspace's OAuth clients (on all of its platforms), newest first, as \`data.clients\`; deleted ones are gone. ${OAUTH_CLIENT_CALLERS}`,
  params: IdParams,
  response: { 200: ok(WorkspaceOAuthClientList) },
  errors: [403, 404, 503],
});

export const createOAuthClient = endpoint('POST /workspaces/:id/oauth/clients', {
  operationId: 'createOAuthClient',
  summary: 'Create an OAuth client',
  description: [
    'A client-credentials client for the Payments API (v2 takes only its tokens). `scopes` are `resource:action` strings from',
    'GET /workspaces/{id}/oauth/scopes; the client gets the Payments API scope of each. It belongs to `platformId` (one of the',
    "workspace's active platforms) or, by default, to its newest active sandbox platform: without one, 409 `CONFLICT` (issue",
    'sandbox credentials first). Only for an `active` (operator-approved) workspace: otherwise 403 `FORBIDDEN` with',
    `\`details.reason: "workspace_not_active"\`. \`clientSecret\` is in this answer only. ${OAUTH_GRANT_BOUND} ${OAUTH_CLIENT_CALLERS}`,
  ].join(' '),
  tier: 'admin',
  audit: WORKSPACE_AUDIT.oauthClientCreate,
  params: IdParams,
  body: CreateWorkspaceOAuthClientBody,
  response: { 201: ok(WorkspaceOAuthClientWithSecret) },
  errors: [403, 404, 409, 503],
});

export const getOAuthClient = endpoint('GET /workspaces/:id/oauth/clients/:clientId', {
  operationId: 'getOAuthClient',
  summary: 'Read an OAuth client',
  description: `By \`clientId\` (\`hf_client_…\`) or id. Another workspace's client answers 404. ${OAUTH_CLIENT_CALLERS}`,
  params: WorkspaceOAuthClientParams,
  response: { 200: ok(WorkspaceOAuthClient) },
  errors: [403, 404, 503],
});

export const updateOAuthClient = endpoint('PATCH /workspaces/:id/oauth/clients/:clientId', {
  operationId: 'updateOAuthClient',
  summary: 'Change an OAuth client',
  description: `\`name\`, \`description\`, \`scopes\` (narrowed scopes apply to its existing tokens at once), \`isActive\` (\`false\` revokes all its tokens). ${OAUTH_GRANT_BOUND} A CLIENT may not change a client holding a scope beyond its role (403). ${OAUTH_CLIENT_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.oauthClientUpdate,
  params: WorkspaceOAuthClientParams,
  body: UpdateWorkspaceOAuthClientBody,
  response: { 200: ok(WorkspaceOAuthClient) },
  errors: [403, 404, 503],
});

export const deleteOAuthClient = endpoint('DELETE /workspaces/:id/oauth/clients/:clientId', {
  operationId: 'deleteOAuthClient',
  summary: 'Delete an OAuth client',
  description: `Deletes the client and revokes all its tokens at once. ${OAUTH_CLIENT_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.oauthClientDelete,
  params: WorkspaceOAuthClientParams,
  response: { 204: NoContent },
  errors: [403, 404, 503],
});

export const revokeOAuthClientTokens = endpoint('POST /workspaces/:id/oauth/clients/:clientId/revoke-tokens', {
  operationId: 'revokeOAuthClientTokens',
  summary: "Revoke an OAuth client's tokens",
  description: `Revokes every unexpired token of the client (the client keeps working: it can obtain new ones). \`data.count\` says how many. ${OAUTH_CLIENT_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.oauthClientRevokeTokens,
  params: WorkspaceOAuthClientParams,
  response: { 200: ok(RevokedTokens) },
  errors: [403, 404, 503],
});

export const getOAuthClientStats = endpoint('GET /workspaces/:id/oauth/clients/:clientId/stats', {
  operationId: 'getOAuthClientStats',
  summary: "An OAuth client's token counts",
  description: `\`totalTokens\` ever issued, \`activeTokens\` still usable (unrevoked, unexpired), \`revokedTokens\`. ${OAUTH_CLIENT_CALLERS}`,
  params: WorkspaceOAuthClientParams,
  response: { 200: ok(OAuthClientStats) },
  errors: [403, 404, 503],
});

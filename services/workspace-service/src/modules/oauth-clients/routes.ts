import {
  CreateWorkspaceOAuthClientBody,
  IdParams,
  OAuthClientStats,
  OAuthScopeInfo,
  RevokedTokens,
  UpdateWorkspaceOAuthClientBody,
  WorkspaceOAuthClient,
  WorkspaceOAuthClientList,
  WorkspaceOAuthClientParams,
  WorkspaceOAuthClientWithSecret,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { BEARER, NoContent, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { AUDIT } from '../audit/actions.js';
import type { CatalogService } from '../catalog/service.js';
import type { OAuthClientsService } from './service.js';

const TAG = 'OAuth clients';
const WHO = 'Members of the workspace and SUPER_ADMINs. 503 when payments does not answer.';
/** Issue 13 item 4: a minted credential is bounded by its minting member. */
const GRANT =
  "A member grants only scopes its role may (`grantableBy` in GET /workspaces/{id}/oauth/scopes): a CLIENT's scopes beyond it answer 403 `FORBIDDEN` with `details.scopes`.";

/** `/workspaces/{id}/oauth/scopes`: the scopes a workspace OAuth client may hold. */
export function oauthScopeRoutes(catalog: CatalogService) {
  return async (app: HttpApp) => {
    app.get(
      '/workspaces/:id/oauth/scopes',
      {
        schema: {
          tags: [TAG],
          summary: 'Scopes a workspace OAuth client may hold',
          description:
            'Scope strings are `resource:action` (resource first), each granting one Payments API scope (`action:resource`). Members and SUPER_ADMINs.',
          operationId: 'listOAuthScopes',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(Type.Array(OAuthScopeInfo)), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await catalog.oauthScopes(requireActor(request.caller), request.params.id)),
    );
  };
}

/** The spec's "Workspace API: OAuth clients" operations, forwarded to payments. */
export function oauthClientRoutes(clients: OAuthClientsService) {
  return async (app: HttpApp) => {
    app.get(
      '/workspaces/:id/oauth/clients',
      {
        schema: {
          tags: [TAG],
          summary: 'List OAuth clients',
          description: `The workspace's OAuth clients (on all of its platforms), newest first, as \`data.clients\`; deleted ones are gone. ${WHO}`,
          operationId: 'listOAuthClients',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(WorkspaceOAuthClientList), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await clients.list(request.caller, request.params.id)),
    );

    app.post(
      '/workspaces/:id/oauth/clients',
      {
        config: { tier: 'admin', audit: AUDIT.oauthClientCreate },
        schema: {
          tags: [TAG],
          summary: 'Create an OAuth client',
          description: [
            'A client-credentials client for the Payments API (v2 takes only its tokens). `scopes` are `resource:action` strings from',
            'GET /workspaces/{id}/oauth/scopes; the client gets the Payments API scope of each. It belongs to `platformId` (one of the',
            "workspace's active platforms) or, by default, to its newest active sandbox platform: without one, 409 `CONFLICT` (issue",
            `sandbox credentials first). \`clientSecret\` is in this answer only. ${GRANT} ${WHO}`,
          ].join(' '),
          operationId: 'createOAuthClient',
          security: BEARER,
          params: IdParams,
          body: CreateWorkspaceOAuthClientBody,
          response: { 201: ok(WorkspaceOAuthClientWithSecret), ...errorResponses(401, 403, 404, 409, 503) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await clients.create(request.caller, request.params.id, request.body))),
    );

    app.get(
      '/workspaces/:id/oauth/clients/:clientId',
      {
        schema: {
          tags: [TAG],
          summary: 'Read an OAuth client',
          description: `By \`clientId\` (\`hf_client_…\`) or id. Another workspace's client answers 404. ${WHO}`,
          operationId: 'getOAuthClient',
          security: BEARER,
          params: WorkspaceOAuthClientParams,
          response: { 200: ok(WorkspaceOAuthClient), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await clients.get(request.caller, request.params.id, request.params.clientId)),
    );

    app.patch(
      '/workspaces/:id/oauth/clients/:clientId',
      {
        config: { tier: 'admin', audit: AUDIT.oauthClientUpdate },
        schema: {
          tags: [TAG],
          summary: 'Change an OAuth client',
          description: `\`name\`, \`description\`, \`scopes\` (narrowed scopes apply to its existing tokens at once), \`isActive\` (\`false\` revokes all its tokens). ${GRANT} A CLIENT may not change a client holding a scope beyond its role (403). ${WHO}`,
          operationId: 'updateOAuthClient',
          security: BEARER,
          params: WorkspaceOAuthClientParams,
          body: UpdateWorkspaceOAuthClientBody,
          response: { 200: ok(WorkspaceOAuthClient), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await clients.update(request.caller, request.params.id, request.params.clientId, request.body)),
    );

    app.delete(
      '/workspaces/:id/oauth/clients/:clientId',
      {
        config: { tier: 'admin', audit: AUDIT.oauthClientDelete },
        schema: {
          tags: [TAG],
          summary: 'Delete an OAuth client',
          description: `Deletes the client and revokes all its tokens at once. ${WHO}`,
          operationId: 'deleteOAuthClient',
          security: BEARER,
          params: WorkspaceOAuthClientParams,
          response: { 204: NoContent, ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request, reply) => {
        await clients.remove(request.caller, request.params.id, request.params.clientId);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/workspaces/:id/oauth/clients/:clientId/revoke-tokens',
      {
        config: { tier: 'admin', audit: AUDIT.oauthClientRevokeTokens },
        schema: {
          tags: [TAG],
          summary: "Revoke an OAuth client's tokens",
          description: `Revokes every unexpired token of the client (the client keeps working: it can obtain new ones). \`data.count\` says how many. ${WHO}`,
          operationId: 'revokeOAuthClientTokens',
          security: BEARER,
          params: WorkspaceOAuthClientParams,
          response: { 200: ok(RevokedTokens), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await clients.revokeTokens(request.caller, request.params.id, request.params.clientId)),
    );

    app.get(
      '/workspaces/:id/oauth/clients/:clientId/stats',
      {
        schema: {
          tags: [TAG],
          summary: "An OAuth client's token counts",
          description: `\`totalTokens\` ever issued, \`activeTokens\` still usable (unrevoked, unexpired), \`revokedTokens\`. ${WHO}`,
          operationId: 'getOAuthClientStats',
          security: BEARER,
          params: WorkspaceOAuthClientParams,
          response: { 200: ok(OAuthClientStats), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await clients.stats(request.caller, request.params.id, request.params.clientId)),
    );
  };
}

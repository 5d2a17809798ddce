import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { requireActor } from '../access/index.js';
import { AUDIT } from '../audit/index.js';
import type { CatalogService } from '../catalog/index.js';
import type { OAuthClientsService } from './service.js';

/** `/workspaces/{id}/oauth/scopes`: the scopes a workspace OAuth client may hold. */
export function oauthScopeRoutes(catalog: CatalogService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listOAuthScopes, {}, async (request) =>
      envelope(request, await catalog.oauthScopes(requireActor(request.caller), request.params.id)),
    );
  };
}

/** The spec's "Workspace API: OAuth clients" operations, forwarded to payments. */
export function oauthClientRoutes(clients: OAuthClientsService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listOAuthClients, {}, async (request) =>
      envelope(request, await clients.list(request.caller, request.params.id)),
    );

    serveEndpoint(app, api.createOAuthClient, { config: { tier: 'admin', audit: AUDIT.oauthClientCreate } }, async (request, reply) =>
      reply.code(201).send(envelope(request, await clients.create(request.caller, request.params.id, request.body))),
    );

    serveEndpoint(app, api.getOAuthClient, {}, async (request) =>
      envelope(request, await clients.get(request.caller, request.params.id, request.params.clientId)),
    );

    serveEndpoint(app, api.updateOAuthClient, { config: { tier: 'admin', audit: AUDIT.oauthClientUpdate } }, async (request) =>
      envelope(request, await clients.update(request.caller, request.params.id, request.params.clientId, request.body)),
    );

    serveEndpoint(app, api.deleteOAuthClient, { config: { tier: 'admin', audit: AUDIT.oauthClientDelete } }, async (request, reply) => {
      await clients.remove(request.caller, request.params.id, request.params.clientId);
      return reply.code(204).send(null);
    });

    serveEndpoint(app, api.revokeOAuthClientTokens, { config: { tier: 'admin', audit: AUDIT.oauthClientRevokeTokens } }, async (request) =>
      envelope(request, await clients.revokeTokens(request.caller, request.params.id, request.params.clientId)),
    );

    serveEndpoint(app, api.getOAuthClientStats, {}, async (request) =>
      envelope(request, await clients.stats(request.caller, request.params.id, request.params.clientId)),
    );
  };
}

import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { CatalogService } from '../catalog/index.js';
import type { OAuthClientsService } from './service.js';

/** `/workspaces/{id}/oauth/scopes`: the scopes a workspace OAuth client may hold. */
export function oauthScopeRoutes(catalog: CatalogService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listOAuthScopes, async (request) => catalog.oauthScopes(requireActor(request.caller), request.params.id)),
    ]);
  };
}

/** The spec's "Workspace API: OAuth clients" operations, forwarded to payments. */
export function oauthClientRoutes(clients: OAuthClientsService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listOAuthClients, async (request) => clients.list(request.caller, request.params.id)),
      route(api.createOAuthClient, async (request) => clients.create(request.caller, request.params.id, request.body)),
      route(api.getOAuthClient, async (request) => clients.get(request.caller, request.params.id, request.params.clientId)),
      route(api.updateOAuthClient, async (request) =>
        clients.update(request.caller, request.params.id, request.params.clientId, request.body),
      ),
      route(api.deleteOAuthClient, async (request, reply) => {
        await clients.remove(request.caller, request.params.id, request.params.clientId);
        return reply.code(204).send(null);
      }),
      route(api.revokeOAuthClientTokens, async (request) =>
        clients.revokeTokens(request.caller, request.params.id, request.params.clientId),
      ),
      route(api.getOAuthClientStats, async (request) => clients.stats(request.caller, request.params.id, request.params.clientId)),
    ]);
  };
}

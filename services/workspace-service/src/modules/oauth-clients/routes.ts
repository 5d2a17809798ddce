import { IdParams, OAuthScopeInfo } from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { BEARER, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import type { CatalogService } from '../catalog/service.js';

/** `/workspaces/{id}/oauth/scopes`: the scopes a workspace OAuth client may hold. */
export function oauthScopeRoutes(catalog: CatalogService) {
  return async (app: HttpApp) => {
    app.get(
      '/workspaces/:id/oauth/scopes',
      {
        schema: {
          tags: ['OAuth clients'],
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

import { paymentsEndpoints as api, SCOPE_DESCRIPTIONS, SCOPES, toWorkspaceScope, V1_SCOPES } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { PlatformsService } from './service.js';

const SCOPE_CATALOGUE = SCOPES.map((scope) => ({
  scope,
  workspaceForm: toWorkspaceScope(scope),
  description: SCOPE_DESCRIPTIONS[scope],
  apiKeys: (V1_SCOPES as readonly string[]).includes(scope),
  v2: !(['cancel:transactions', 'rescind:transactions'] as string[]).includes(scope),
}));

/** Platforms and API keys (spec "Payments API: platform and keys"); reads also on v2. */
export function platformRoutes(service: PlatformsService) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.createApiKey, async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body))),
      route(api.regenerateApiKey, async (request) => service.regenerate(principalOf(request), request.body.platformId)),
      route(api.verifyApiKey, async (request) => {
        const header = request.headers['x-api-key'];
        return service.verify(typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined);
      }),
      route(api.listScopes, async () => SCOPE_CATALOGUE),
      route(api.getOwnPlatform, async (request) => service.me(principalOf(request))),
      route(api.listPlatforms, async (request) => service.list(principalOf(request), request.query)),
      route(api.getPlatform, async (request) => service.get(principalOf(request), request.params.id)),
      route(api.updatePlatform, async (request) => service.update(principalOf(request), request.params.id, request.body)),
      route(api.deactivatePlatform, async (request, reply) => {
        await service.deactivate(principalOf(request), request.params.id);
        return reply.code(204).send(null);
      }),
    ]);
  };
}

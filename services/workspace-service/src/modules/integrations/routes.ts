import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { IntegrationsService } from './service.js';

export function integrationsRoutes(integrations: IntegrationsService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listIntegrationCatalog, async (request) => {
        requireActor(request.caller);
        return integrations.catalog();
      }),
      route(api.listWorkspaceIntegrations, async (request) => integrations.list(requireActor(request.caller), request.params.id)),
      route(api.createWorkspaceIntegration, async (request) => integrations.create(request.caller, request.params.id, request.body)),
      route(api.validateWorkspaceIntegration, async (request) => integrations.validate(request.caller, request.params.id, request.body)),
      route(api.createValidatedWorkspaceIntegration, async (request) =>
        integrations.createWithConfig(request.caller, request.params.id, request.body),
      ),
      route(api.getWorkspaceIntegration, async (request) =>
        integrations.get(requireActor(request.caller), request.params.id, request.params.integrationId),
      ),
      route(api.updateWorkspaceIntegration, async (request) =>
        integrations.update(request.caller, request.params.id, request.params.integrationId, request.body),
      ),
      route(api.deleteWorkspaceIntegration, async (request, reply) => {
        await integrations.remove(request.caller, request.params.id, request.params.integrationId);
        return reply.code(204).send(null);
      }),
      route(api.disableWorkspaceIntegration, async (request) =>
        integrations.disable(request.caller, request.params.id, request.params.integrationId),
      ),
      route(api.getWorkspaceIntegrationStatus, async (request) =>
        integrations.status(requireActor(request.caller), request.params.id, request.params.integrationId),
      ),
    ]);
  };
}

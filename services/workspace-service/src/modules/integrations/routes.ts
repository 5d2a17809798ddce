import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { requireActor } from '../access/index.js';
import { AUDIT } from '../audit/index.js';
import type { IntegrationsService } from './service.js';

export function integrationsRoutes(integrations: IntegrationsService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listIntegrationCatalog, { config: { tier: 'standard' } }, async (request) => {
      requireActor(request.caller);
      return envelope(request, integrations.catalog());
    });

    serveEndpoint(app, api.listWorkspaceIntegrations, { config: { tier: 'standard' } }, async (request) =>
      envelope(request, await integrations.list(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(app, api.createWorkspaceIntegration, { config: { tier: 'standard', audit: AUDIT.integrationCreate } }, async (request) =>
      envelope(request, await integrations.create(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(
      app,
      api.validateWorkspaceIntegration,
      { config: { tier: 'standard', audit: AUDIT.integrationValidate } },
      async (request) => envelope(request, await integrations.validate(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(
      app,
      api.createValidatedWorkspaceIntegration,
      { config: { tier: 'standard', audit: AUDIT.integrationCreate } },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await integrations.createWithConfig(request.caller, request.params.id, request.body))),
    );

    serveEndpoint(app, api.getWorkspaceIntegration, { config: { tier: 'standard' } }, async (request) =>
      envelope(request, await integrations.get(requireActor(request.caller), request.params.id, request.params.integrationId)),
    );

    serveEndpoint(app, api.updateWorkspaceIntegration, { config: { tier: 'standard', audit: AUDIT.integrationUpdate } }, async (request) =>
      envelope(request, await integrations.update(request.caller, request.params.id, request.params.integrationId, request.body)),
    );

    serveEndpoint(
      app,
      api.deleteWorkspaceIntegration,
      { config: { tier: 'standard', audit: AUDIT.integrationDelete } },
      async (request, reply) => {
        await integrations.remove(request.caller, request.params.id, request.params.integrationId);
        return reply.code(204).send(null);
      },
    );

    serveEndpoint(
      app,
      api.disableWorkspaceIntegration,
      { config: { tier: 'standard', audit: AUDIT.integrationDisable } },
      async (request) => envelope(request, await integrations.disable(request.caller, request.params.id, request.params.integrationId)),
    );

    serveEndpoint(app, api.getWorkspaceIntegrationStatus, { config: { tier: 'high' } }, async (request) =>
      envelope(request, await integrations.status(requireActor(request.caller), request.params.id, request.params.integrationId)),
    );
  };
}

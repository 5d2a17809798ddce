import {
  CreateWorkspaceIntegrationBody,
  IdParams,
  IntegrationCatalogEntry,
  IntegrationValidation,
  UpdateWorkspaceIntegrationBody,
  ValidateIntegrationBody,
  WorkspaceIntegration,
  WorkspaceIntegrationParams,
  WorkspaceIntegrationStatus,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { BEARER, NoContent, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { AUDIT } from '../audit/actions.js';
import type { IntegrationsService } from './service.js';

const TAG = 'integrations';
const ACCESS = 'Members of the workspace (any role) and SUPER_ADMINs; anyone else gets 403.';
const SECRETS = 'Secret config fields are sealed at rest and read `********` in answers.';

export function integrationsRoutes(integrations: IntegrationsService) {
  return async (app: HttpApp) => {
    app.get(
      '/integrations',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: 'The integration catalog',
          description:
            'Every kind of integration a workspace may set up, with its stable `id`, its config schema (secret fields are `writeOnly`) ' +
            'and whether this deployment can set it up (`available`). Any signed-in user.',
          operationId: 'listIntegrationCatalog',
          security: BEARER,
          response: { 200: ok(Type.Array(IntegrationCatalogEntry)), ...errorResponses(401) },
        },
      },
      async (request) => {
        requireActor(request.caller);
        return envelope(request, integrations.catalog());
      },
    );

    app.get(
      '/workspaces/:id/integrations',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: "The workspace's integrations",
          description: `Oldest first. ${ACCESS} ${SECRETS}`,
          operationId: 'listWorkspaceIntegrations',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(Type.Array(WorkspaceIntegration)), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await integrations.list(requireActor(request.caller), request.params.id)),
    );

    app.post(
      '/workspaces/:id/integrations',
      {
        config: { tier: 'standard', audit: AUDIT.integrationCreate },
        schema: {
          tags: [TAG],
          summary: 'Set up an integration',
          description:
            'Saves `config` for the catalog kind `integrationId` once its fields pass the kind’s schema (400 names each bad field). ' +
            'A kind that calls a provider is saved `pending` (validate it, or use /with-config); the others are `active`. ' +
            `One integration per kind: a second answers 409. ${ACCESS} ${SECRETS}`,
          operationId: 'createWorkspaceIntegration',
          security: BEARER,
          params: IdParams,
          body: CreateWorkspaceIntegrationBody,
          response: { 200: ok(WorkspaceIntegration), ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request) => envelope(request, await integrations.create(request.caller, request.params.id, request.body)),
    );

    app.post(
      '/workspaces/:id/integrations/validate',
      {
        config: { tier: 'standard', audit: AUDIT.integrationValidate },
        schema: {
          tags: [TAG],
          summary: 'Validate an integration config',
          description:
            'With `config`: checks it (the fields, then the provider for kinds that call one) and saves nothing. Without `config`: ' +
            're-checks the config the workspace saved for the kind and records the outcome on it (`status` becomes `active` or ' +
            '`error`). An invalid config is a 200 with `valid: false` and the bad fields. ' +
            ACCESS,
          operationId: 'validateWorkspaceIntegration',
          security: BEARER,
          params: IdParams,
          body: ValidateIntegrationBody,
          response: { 200: ok(IntegrationValidation), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await integrations.validate(request.caller, request.params.id, request.body)),
    );

    app.post(
      '/workspaces/:id/integrations/with-config',
      {
        config: { tier: 'standard', audit: AUDIT.integrationCreate },
        schema: {
          tags: [TAG],
          summary: 'Set up and validate an integration in one step',
          description:
            'Like POST /integrations, but the config is checked with its provider first and saved `active` only when it passes: ' +
            'a config the provider refuses answers 400 naming the fields, a provider without a usable answer 502 ' +
            `\`INTEGRATION_PROVIDER_ERROR\` (retry); neither saves anything. ${ACCESS} ${SECRETS}`,
          operationId: 'createValidatedWorkspaceIntegration',
          security: BEARER,
          params: IdParams,
          body: CreateWorkspaceIntegrationBody,
          response: { 201: ok(WorkspaceIntegration), ...errorResponses(401, 403, 404, 409, 502) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await integrations.createWithConfig(request.caller, request.params.id, request.body))),
    );

    app.get(
      '/workspaces/:id/integrations/:integrationId',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: 'Get an integration',
          description: `\`integrationId\` is the catalog kind (or the integration's own \`id\`). ${ACCESS} ${SECRETS}`,
          operationId: 'getWorkspaceIntegration',
          security: BEARER,
          params: WorkspaceIntegrationParams,
          response: { 200: ok(WorkspaceIntegration), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) =>
        envelope(request, await integrations.get(requireActor(request.caller), request.params.id, request.params.integrationId)),
    );

    app.patch(
      '/workspaces/:id/integrations/:integrationId',
      {
        config: { tier: 'standard', audit: AUDIT.integrationUpdate },
        schema: {
          tags: [TAG],
          summary: 'Change an integration',
          description:
            '`config` is merged over the stored config field by field: a field you send replaces its value, `null` removes an optional ' +
            'field, a field you leave out (or a secret sent back as `********`) keeps its value; the result is checked whole (400 names ' +
            'each bad field). A changed config of a kind that calls a provider is `pending` until validated again. `metadata` replaces ' +
            `the stored one; \`enabled: true\` switches a disabled integration back on. ${ACCESS}`,
          operationId: 'updateWorkspaceIntegration',
          security: BEARER,
          params: WorkspaceIntegrationParams,
          body: UpdateWorkspaceIntegrationBody,
          response: { 200: ok(WorkspaceIntegration), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) =>
        envelope(request, await integrations.update(request.caller, request.params.id, request.params.integrationId, request.body)),
    );

    app.delete(
      '/workspaces/:id/integrations/:integrationId',
      {
        config: { tier: 'standard', audit: AUDIT.integrationDelete },
        schema: {
          tags: [TAG],
          summary: 'Remove an integration',
          description: `Deletes it with its sealed secrets; the kind can be set up again. ${ACCESS}`,
          operationId: 'deleteWorkspaceIntegration',
          security: BEARER,
          params: WorkspaceIntegrationParams,
          response: { 204: NoContent, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await integrations.remove(request.caller, request.params.id, request.params.integrationId);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/workspaces/:id/integrations/:integrationId/disable',
      {
        config: { tier: 'standard', audit: AUDIT.integrationDisable },
        schema: {
          tags: [TAG],
          summary: 'Disable an integration',
          description: `Status \`disabled\`; the config is kept (PATCH \`enabled: true\` switches it back on). Idempotent. ${ACCESS}`,
          operationId: 'disableWorkspaceIntegration',
          security: BEARER,
          params: WorkspaceIntegrationParams,
          response: { 200: ok(WorkspaceIntegration), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await integrations.disable(request.caller, request.params.id, request.params.integrationId)),
    );

    app.get(
      '/workspaces/:id/integrations/:integrationId/status',
      {
        config: { tier: 'high' },
        schema: {
          tags: [TAG],
          summary: 'Status of an integration',
          description: `The stored status and the outcome of the last check; calls no provider (POST /validate re-checks). ${ACCESS}`,
          operationId: 'getWorkspaceIntegrationStatus',
          security: BEARER,
          params: WorkspaceIntegrationParams,
          response: { 200: ok(WorkspaceIntegrationStatus), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) =>
        envelope(request, await integrations.status(requireActor(request.caller), request.params.id, request.params.integrationId)),
    );
  };
}

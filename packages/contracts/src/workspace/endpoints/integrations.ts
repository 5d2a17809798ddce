import { Type } from '@sinclair/typebox';
import { NoContent, SuccessEnvelope as ok } from '../../common/envelope.js';
import { WORKSPACE_AUDIT } from '../audit-actions.js';
import { IdParams } from '../common.js';
import {
  CreateWorkspaceIntegrationBody,
  IntegrationCatalogEntry,
  IntegrationValidation,
  UpdateWorkspaceIntegrationBody,
  ValidateIntegrationBody,
  WorkspaceIntegration,
  WorkspaceIntegrationParams,
  WorkspaceIntegrationStatus,
} from '../integrations.js';
import { resource } from './define.js';

// integrations: a workspace's integrations with outside providers (`/workspaces/{id}/integrations`)
// and the catalog of those it may set up.

const INTEGRATION_CALLERS = 'Members of the workspace (any role) and SUPER_ADMINs; anyone else gets 403.';
const INTEGRATION_SECRETS = 'Secret config fields are sealed at rest and read `********` in answers.';

const endpoint = resource({ tags: ['integrations'] });

export const listIntegrationCatalog = endpoint('GET /integrations', {
  operationId: 'listIntegrationCatalog',
  summary: 'The integration catalog',
  description:
    'Every kind of integration a workspace may set up, with its stable `id`, its config schema (secret fields are `writeOnly`) ' +
    'and whether this deployment can set it up (`available`). Any signed-in user.',
  response: { 200: ok(Type.Array(IntegrationCatalogEntry)) },
});

export const listWorkspaceIntegrations = endpoint('GET /workspaces/:id/integrations', {
  operationId: 'listWorkspaceIntegrations',
  summary: "The workspace's integrations",
  description: `Oldest first. ${INTEGRATION_CALLERS} ${INTEGRATION_SECRETS}`,
  params: IdParams,
  response: { 200: ok(Type.Array(WorkspaceIntegration)) },
  errors: [403, 404],
});

export const createWorkspaceIntegration = endpoint('POST /workspaces/:id/integrations', {
  operationId: 'createWorkspaceIntegration',
  summary: 'Set up an integration',
  description:
    'Saves `config` for the catalog kind `integrationId` once its fields pass the kind’s schema (400 names each bad field). ' +
    'A kind that calls a provider is saved `pending` (validate it, or use /with-config); the others are `active`. ' +
    `One integration per kind: a second answers 409. ${INTEGRATION_CALLERS} ${INTEGRATION_SECRETS}`,
  audit: WORKSPACE_AUDIT.integrationCreate,
  params: IdParams,
  body: CreateWorkspaceIntegrationBody,
  response: { 200: ok(WorkspaceIntegration) },
  errors: [403, 404, 409],
});

export const validateWorkspaceIntegration = endpoint('POST /workspaces/:id/integrations/validate', {
  operationId: 'validateWorkspaceIntegration',
  summary: 'Validate an integration config',
  description:
    'With `config`: checks it (the fields, then the provider for kinds that call one) and saves nothing. Without `config`: ' +
    're-checks the config the workspace saved for the kind and records the outcome on it (`status` becomes `active` or ' +
    '`error`). An invalid config is a 200 with `valid: false` and the bad fields. ' +
    INTEGRATION_CALLERS,
  audit: WORKSPACE_AUDIT.integrationValidate,
  params: IdParams,
  body: ValidateIntegrationBody,
  response: { 200: ok(IntegrationValidation) },
  errors: [403, 404],
});

export const createValidatedWorkspaceIntegration = endpoint('POST /workspaces/:id/integrations/with-config', {
  operationId: 'createValidatedWorkspaceIntegration',
  summary: 'Set up and validate an integration in one step',
  description:
    'Like POST /integrations, but the config is checked with its provider first and saved `active` only when it passes: ' +
    'a config the provider refuses answers 400 naming the fields, a provider without a usable answer 502 ' +
    `\`INTEGRATION_PROVIDER_ERROR\` (retry); neither saves anything. ${INTEGRATION_CALLERS} ${INTEGRATION_SECRETS}`,
  audit: WORKSPACE_AUDIT.integrationCreate,
  params: IdParams,
  body: CreateWorkspaceIntegrationBody,
  response: { 201: ok(WorkspaceIntegration) },
  errors: [403, 404, 409, 502],
});

export const getWorkspaceIntegration = endpoint('GET /workspaces/:id/integrations/:integrationId', {
  operationId: 'getWorkspaceIntegration',
  summary: 'Get an integration',
  description: `\`integrationId\` is the catalog kind (or the integration's own \`id\`). ${INTEGRATION_CALLERS} ${INTEGRATION_SECRETS}`,
  params: WorkspaceIntegrationParams,
  response: { 200: ok(WorkspaceIntegration) },
  errors: [403, 404],
});

export const updateWorkspaceIntegration = endpoint('PATCH /workspaces/:id/integrations/:integrationId', {
  operationId: 'updateWorkspaceIntegration',
  summary: 'Change an integration',
  description:
    '`config` is merged over the stored config field by field: a field you send replaces its value, `null` removes an optional ' +
    'field, a field you leave out (or a secret sent back as `********`) keeps its value; the result is checked whole (400 names ' +
    'each bad field). A changed config of a kind that calls a provider is `pending` until validated again. `metadata` replaces ' +
    `the stored one; \`enabled: true\` switches a disabled integration back on. ${INTEGRATION_CALLERS}`,
  audit: WORKSPACE_AUDIT.integrationUpdate,
  params: WorkspaceIntegrationParams,
  body: UpdateWorkspaceIntegrationBody,
  response: { 200: ok(WorkspaceIntegration) },
  errors: [403, 404],
});

export const deleteWorkspaceIntegration = endpoint('DELETE /workspaces/:id/integrations/:integrationId', {
  operationId: 'deleteWorkspaceIntegration',
  summary: 'Remove an integration',
  description: `Deletes it with its sealed secrets; the kind can be set up again. ${INTEGRATION_CALLERS}`,
  audit: WORKSPACE_AUDIT.integrationDelete,
  params: WorkspaceIntegrationParams,
  response: { 204: NoContent },
  errors: [403, 404],
});

export const disableWorkspaceIntegration = endpoint('POST /workspaces/:id/integrations/:integrationId/disable', {
  operationId: 'disableWorkspaceIntegration',
  summary: 'Disable an integration',
  description: `Status \`disabled\`; the config is kept (PATCH \`enabled: true\` switches it back on). Idempotent. ${INTEGRATION_CALLERS}`,
  audit: WORKSPACE_AUDIT.integrationDisable,
  params: WorkspaceIntegrationParams,
  response: { 200: ok(WorkspaceIntegration) },
  errors: [403, 404],
});

export const getWorkspaceIntegrationStatus = endpoint('GET /workspaces/:id/integrations/:integrationId/status', {
  operationId: 'getWorkspaceIntegrationStatus',
  summary: 'Status of an integration',
  description: `The stored status and the outcome of the last check; calls no provider (POST /validate re-checks). ${INTEGRATION_CALLERS}`,
  tier: 'high',
  params: WorkspaceIntegrationParams,
  response: { 200: ok(WorkspaceIntegrationStatus) },
  errors: [403, 404],
});

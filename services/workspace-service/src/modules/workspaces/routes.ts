import {
  AuditLogEntry,
  AvatarUploadBody,
  CreateWorkspaceBody,
  IdParams,
  PlatformMapping,
  PlatformMappingQuery,
  ReplaceWalletSettingsBody,
  UpdateBillingBody,
  UpdateWalletSettingsBody,
  UpdateWorkspaceBody,
  WalletSettings,
  WorkspaceAuditLogQuery,
  WorkspaceBilling,
  WorkspaceListQuery,
  WorkspaceRecord,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { BEARER, NoContent, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { ADMIN_ROLES } from '../access/policy.js';
import { AUDIT } from '../audit/actions.js';
import type { AuditService } from '../audit/service.js';
import { acceptUploads, multipartPlaceholder, readAvatarUpload } from '../storage/upload.js';
import type { WorkspacesService } from './service.js';

const TAG = 'workspaces';

export function workspacesRoutes(deps: { workspaces: WorkspacesService; audit: AuditService }) {
  const { workspaces, audit } = deps;
  return async (app: HttpApp) => {
    await acceptUploads(app);

    app.get(
      '/workspaces',
      {
        config: { roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'List workspaces',
          description: 'A SUPER_ADMIN lists every workspace; an ADMIN its own (none before it created one). Newest first.',
          operationId: 'listWorkspaces',
          security: BEARER,
          querystring: WorkspaceListQuery,
          response: { 200: ok(Type.Array(WorkspaceRecord)), ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const { workspaces: list, pagination } = await workspaces.list(requireActor(request.caller), request.query);
        return envelope(request, list, pagination);
      },
    );

    app.post(
      '/workspaces',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.workspaceCreate },
        schema: {
          tags: [TAG],
          summary: 'Create a workspace',
          description:
            'A new workspace is `pending` (only a SUPER_ADMIN may give another `status`). The slug is generated from the name when omitted ' +
            '(with a random suffix if taken); a given slug that exists answers 409. An ADMIN without a workspace becomes its first member; ' +
            'an ADMIN that already belongs to one gets 409 (a user belongs to one workspace).',
          operationId: 'createWorkspace',
          security: BEARER,
          body: CreateWorkspaceBody,
          response: { 201: ok(WorkspaceRecord), ...errorResponses(401, 403, 409) },
        },
      },
      async (request, reply) => reply.code(201).send(envelope(request, await workspaces.create(request.caller, request.body))),
    );

    app.get(
      '/workspaces/me',
      {
        schema: {
          tags: [TAG],
          summary: 'Your workspace',
          operationId: 'getMyWorkspace',
          security: BEARER,
          response: { 200: ok(WorkspaceRecord), ...errorResponses(401, 404) },
        },
      },
      async (request) => envelope(request, await workspaces.getMe(requireActor(request.caller))),
    );

    app.put(
      '/workspaces/me',
      {
        config: { audit: AUDIT.workspaceUpdate },
        schema: {
          tags: [TAG],
          summary: 'Update your workspace',
          description: 'Any member may update its workspace; `status` is set by a SUPER_ADMIN only (403).',
          operationId: 'updateMyWorkspace',
          security: BEARER,
          body: UpdateWorkspaceBody,
          response: { 200: ok(WorkspaceRecord), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await workspaces.updateMe(request.caller, request.body)),
    );

    app.get(
      '/workspaces/:id',
      {
        schema: {
          tags: [TAG],
          summary: 'Get a workspace',
          description: 'Members of the workspace and SUPER_ADMINs; anyone else gets 403.',
          operationId: 'getWorkspace',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(WorkspaceRecord), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await workspaces.get(requireActor(request.caller), request.params.id)),
    );

    app.put(
      '/workspaces/:id',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.workspaceUpdate },
        schema: {
          tags: [TAG],
          summary: 'Update a workspace',
          description: 'An ADMIN of the workspace or a SUPER_ADMIN; `status` is set by a SUPER_ADMIN only.',
          operationId: 'updateWorkspace',
          security: BEARER,
          params: IdParams,
          body: UpdateWorkspaceBody,
          response: { 200: ok(WorkspaceRecord), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await workspaces.update(request.caller, request.params.id, request.body)),
    );

    app.delete(
      '/workspaces/:id',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.workspaceDelete },
        schema: {
          tags: [TAG],
          summary: 'Delete a workspace (irreversible)',
          description:
            'Deletes the workspace and its data: billing, wallet settings, platform mappings, avatar. Its members remain as users without a ' +
            'workspace. Audit entries are kept (readable by SUPER_ADMINs).',
          operationId: 'deleteWorkspace',
          security: BEARER,
          params: IdParams,
          response: { 204: NoContent, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await workspaces.delete(request.caller, request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/workspaces/:id/avatar',
      {
        config: { roles: ADMIN_ROLES, audit: AUDIT.workspaceAvatarUpload },
        preValidation: multipartPlaceholder,
        schema: {
          tags: [TAG],
          summary: 'Upload the workspace avatar',
          description: 'multipart/form-data with one part `file`: PNG, JPEG, WebP or GIF (checked from its bytes), at most 2 MiB.',
          operationId: 'uploadWorkspaceAvatar',
          security: BEARER,
          params: IdParams,
          body: AvatarUploadBody,
          response: { 200: ok(WorkspaceRecord), ...errorResponses(401, 403, 404, 413, 415) },
        },
      },
      async (request) =>
        envelope(request, await workspaces.uploadAvatar(request.caller, request.params.id, await readAvatarUpload(request))),
    );

    app.delete(
      '/workspaces/:id/avatar',
      {
        config: { roles: ADMIN_ROLES, audit: AUDIT.workspaceAvatarDelete },
        schema: {
          tags: [TAG],
          summary: 'Remove the workspace avatar',
          operationId: 'deleteWorkspaceAvatar',
          security: BEARER,
          params: IdParams,
          response: { 204: NoContent, ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) => {
        await workspaces.deleteAvatar(request.caller, request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/workspaces/:id/billing',
      {
        schema: {
          tags: [TAG],
          summary: 'Billing of the workspace',
          description: 'Members and SUPER_ADMINs.',
          operationId: 'getWorkspaceBilling',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(WorkspaceBilling), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await workspaces.getBilling(requireActor(request.caller), request.params.id)),
    );

    app.patch(
      '/workspaces/:id/billing',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.billingUpdate },
        schema: {
          tags: [TAG],
          summary: 'Update billing of the workspace',
          description:
            'Contact fields (`billingEmail`, `companyName`, `taxId`): an ADMIN of the workspace. `billingEnabled` and `plan`: SUPER_ADMIN only.',
          operationId: 'updateWorkspaceBilling',
          security: BEARER,
          params: IdParams,
          body: UpdateBillingBody,
          response: { 200: ok(WorkspaceBilling), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await workspaces.updateBilling(request.caller, request.params.id, request.body)),
    );

    app.get(
      '/workspaces/:id/platform-mappings',
      {
        schema: {
          tags: [TAG],
          summary: 'Payments platforms of the workspace',
          description:
            'The links between the workspace and its payments platforms (each sandbox credential is one platform). Members and SUPER_ADMINs. Newest first.',
          operationId: 'listPlatformMappings',
          security: BEARER,
          params: IdParams,
          querystring: PlatformMappingQuery,
          response: { 200: ok(Type.Array(PlatformMapping)), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) =>
        envelope(request, await workspaces.platformMappings(requireActor(request.caller), request.params.id, request.query)),
    );

    app.get(
      '/workspaces/:id/wallet-settings',
      {
        schema: {
          tags: [TAG],
          summary: 'Wallet settings of the workspace',
          description: 'Members and SUPER_ADMINs.',
          operationId: 'getWalletSettings',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(WalletSettings), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await workspaces.getWalletSettings(requireActor(request.caller), request.params.id)),
    );

    app.patch(
      '/workspaces/:id/wallet-settings',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.walletSettingsUpdate },
        schema: {
          tags: [TAG],
          summary: 'Update wallet settings of the workspace',
          description:
            'An ADMIN of the workspace or a SUPER_ADMIN. `defaultNetwork` must be one of `enabledNetworks` when that list is not empty.',
          operationId: 'updateWalletSettings',
          security: BEARER,
          params: IdParams,
          body: UpdateWalletSettingsBody,
          response: { 200: ok(WalletSettings), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await workspaces.updateWalletSettings(request.caller, request.params.id, request.body)),
    );

    app.put(
      '/workspaces/:id/wallet-settings',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.walletSettingsUpdate },
        schema: {
          tags: [TAG],
          summary: 'Replace wallet settings of the workspace',
          description:
            'An ADMIN of the workspace or a SUPER_ADMIN. Replaces the whole record: a field left out is reset to its default (`null`, `[]` or `false`); PATCH merges instead. `defaultNetwork` must be one of `enabledNetworks` when that list is not empty. Audited as `workspace.wallet_settings_update`.',
          operationId: 'replaceWalletSettings',
          security: BEARER,
          params: IdParams,
          body: ReplaceWalletSettingsBody,
          response: { 200: ok(WalletSettings), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await workspaces.replaceWalletSettings(request.caller, request.params.id, request.body)),
    );

    app.get(
      '/workspaces/:id/audit-logs',
      {
        config: { roles: ADMIN_ROLES },
        schema: {
          tags: [TAG, 'audit logs'],
          summary: "The workspace's audit entries",
          description:
            'Acts on the workspace and by its members, newest first, with the filters of GET /api/v1/audit-logs. An ADMIN of the workspace or a SUPER_ADMIN.',
          operationId: 'listWorkspaceAuditLogs',
          security: BEARER,
          params: IdParams,
          querystring: WorkspaceAuditLogQuery,
          response: { 200: ok(Type.Array(AuditLogEntry)), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const { entries, pagination } = await audit.listForWorkspace(requireActor(request.caller), request.params.id, request.query);
        return envelope(request, entries, pagination);
      },
    );
  };
}

import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { ADMIN_ROLES, requireActor } from '../access/index.js';
import { AUDIT, type AuditService } from '../audit/index.js';
import { acceptUploads, multipartPlaceholder, readAvatarUpload } from '../storage/index.js';
import type { WorkspacesService } from './service.js';

export function workspacesRoutes(deps: { workspaces: WorkspacesService; audit: AuditService }) {
  const { workspaces, audit } = deps;
  return async (app: HttpApp) => {
    await acceptUploads(app);

    serveEndpoint(app, api.listWorkspaces, { config: { roles: ADMIN_ROLES } }, async (request) => {
      const { workspaces: list, pagination } = await workspaces.list(requireActor(request.caller), request.query);
      return envelope(request, list, pagination);
    });

    serveEndpoint(
      app,
      api.createWorkspace,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.workspaceCreate } },
      async (request, reply) => reply.code(201).send(envelope(request, await workspaces.create(request.caller, request.body))),
    );

    serveEndpoint(app, api.getMyWorkspace, {}, async (request) => envelope(request, await workspaces.getMe(requireActor(request.caller))));

    // ADMINs only, as PUT /workspaces/{id}: a CLIENT changed the workspace's name, e-mail,
    // webhookUrl and walletProvider here (issue 28 item 6).
    serveEndpoint(
      app,
      api.updateMyWorkspace,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.workspaceUpdate } },
      async (request) => envelope(request, await workspaces.updateMe(request.caller, request.body)),
    );

    serveEndpoint(app, api.getWorkspace, {}, async (request) =>
      envelope(request, await workspaces.get(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(
      app,
      api.updateWorkspace,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.workspaceUpdate } },
      async (request) => envelope(request, await workspaces.update(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(
      app,
      api.deleteWorkspace,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.workspaceDelete } },
      async (request, reply) => {
        await workspaces.delete(request.caller, request.params.id);
        return reply.code(204).send(null);
      },
    );

    serveEndpoint(
      app,
      api.uploadWorkspaceAvatar,
      { config: { roles: ADMIN_ROLES, audit: AUDIT.workspaceAvatarUpload }, preValidation: multipartPlaceholder },
      async (request) =>
        envelope(request, await workspaces.uploadAvatar(request.caller, request.params.id, await readAvatarUpload(request))),
    );

    serveEndpoint(
      app,
      api.deleteWorkspaceAvatar,
      { config: { roles: ADMIN_ROLES, audit: AUDIT.workspaceAvatarDelete } },
      async (request, reply) => {
        await workspaces.deleteAvatar(request.caller, request.params.id);
        return reply.code(204).send(null);
      },
    );

    serveEndpoint(app, api.getWorkspaceBilling, {}, async (request) =>
      envelope(request, await workspaces.getBilling(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(
      app,
      api.updateWorkspaceBilling,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.billingUpdate } },
      async (request) => envelope(request, await workspaces.updateBilling(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(app, api.listPlatformMappings, {}, async (request) =>
      envelope(request, await workspaces.platformMappings(requireActor(request.caller), request.params.id, request.query)),
    );

    serveEndpoint(app, api.getWalletSettings, {}, async (request) =>
      envelope(request, await workspaces.getWalletSettings(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(
      app,
      api.updateWalletSettings,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.walletSettingsUpdate } },
      async (request) => envelope(request, await workspaces.updateWalletSettings(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(
      app,
      api.replaceWalletSettings,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.walletSettingsUpdate } },
      async (request) => envelope(request, await workspaces.replaceWalletSettings(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(app, api.listWorkspaceAuditLogs, { config: { roles: ADMIN_ROLES } }, async (request) => {
      const { entries, pagination } = await audit.listForWorkspace(requireActor(request.caller), request.params.id, request.query);
      return envelope(request, entries, pagination);
    });
  };
}

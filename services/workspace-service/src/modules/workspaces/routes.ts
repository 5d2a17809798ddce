import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, paged, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { AuditService } from '../audit/index.js';
import { acceptUploads, emptyMultipartBody, readAvatarUpload } from '../storage/index.js';
import type { WorkspacesService } from './service.js';

export function workspacesRoutes(deps: { workspaces: WorkspacesService; audit: AuditService }) {
  const { workspaces, audit } = deps;
  return async (app: HttpApp) => {
    await acceptUploads(app);

    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listWorkspaces, async (request) => {
        const { workspaces: list, pagination } = await workspaces.list(requireActor(request.caller), request.query);
        return paged(list, pagination);
      }),
      route(api.createWorkspace, async (request) => workspaces.create(request.caller, request.body)),
      route(api.getMyWorkspace, async (request) => workspaces.getMe(requireActor(request.caller))),
      // ADMINs only, as PUT /workspaces/{id}: a CLIENT changed the workspace's name, e-mail,
      // webhookUrl and walletProvider here (issue 28 item 6).
      route(api.updateMyWorkspace, async (request) => workspaces.updateMe(request.caller, request.body)),
      route(api.getWorkspace, async (request) => workspaces.get(requireActor(request.caller), request.params.id)),
      route(api.updateWorkspace, async (request) => workspaces.update(request.caller, request.params.id, request.body)),
      route(api.deleteWorkspace, async (request, reply) => {
        await workspaces.delete(request.caller, request.params.id);
        return reply.code(204).send(null);
      }),
      route(
        api.uploadWorkspaceAvatar,
        async (request) => workspaces.uploadAvatar(request.caller, request.params.id, await readAvatarUpload(request)),
        { preValidation: emptyMultipartBody },
      ),
      route(api.deleteWorkspaceAvatar, async (request, reply) => {
        await workspaces.deleteAvatar(request.caller, request.params.id);
        return reply.code(204).send(null);
      }),
      route(api.getWorkspaceBilling, async (request) => workspaces.getBilling(requireActor(request.caller), request.params.id)),
      route(api.updateWorkspaceBilling, async (request) => workspaces.updateBilling(request.caller, request.params.id, request.body)),
      route(api.listPlatformMappings, async (request) =>
        workspaces.platformMappings(requireActor(request.caller), request.params.id, request.query),
      ),
      route(api.getWalletSettings, async (request) => workspaces.getWalletSettings(requireActor(request.caller), request.params.id)),
      route(api.updateWalletSettings, async (request) => workspaces.updateWalletSettings(request.caller, request.params.id, request.body)),
      route(api.replaceWalletSettings, async (request) =>
        workspaces.replaceWalletSettings(request.caller, request.params.id, request.body),
      ),
      route(api.listWorkspaceAuditLogs, async (request) => {
        const { entries, pagination } = await audit.listForWorkspace(requireActor(request.caller), request.params.id, request.query);
        return paged(entries, pagination);
      }),
    ]);
  };
}

import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, paged, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { AuditService } from '../audit/index.js';
import { acceptUploads, emptyMultipartBody, readAvatarUpload } from '../storage/index.js';
import type { UsersService } from './service.js';

export function usersRoutes(deps: { users: UsersService; audit: AuditService }) {
  const { users, audit } = deps;
  return async (app: HttpApp) => {
    await acceptUploads(app);

    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listUsers, async (request) => {
        const { users: list, pagination } = await users.list(requireActor(request.caller), request.query);
        return paged(list, pagination);
      }),
      route(api.createUser, async (request) => users.create(request.caller, request.body)),
      route(api.getMyUser, async (request) => users.me(requireActor(request.caller))),
      route(api.updateMyUser, async (request) => users.updateMe(request.caller, request.body)),
      route(api.changeMyPassword, async (request) => users.changePassword(request.caller, request.body)),
      route(api.uploadMyAvatar, async (request) => users.uploadAvatar(request.caller, await readAvatarUpload(request)), {
        preValidation: emptyMultipartBody,
      }),
      route(api.deleteMyAvatar, async (request, reply) => {
        await users.deleteAvatar(request.caller);
        return reply.code(204).send(null);
      }),
      route(api.getUser, async (request) => users.get(requireActor(request.caller), request.params.id)),
      route(api.updateUser, async (request) => users.update(request.caller, request.params.id, request.body)),
      route(api.deleteUser, async (request) => users.delete(request.caller, request.params.id)),
      route(api.listUserAuditLogs, async (request) => {
        const { entries, pagination } = await audit.listForUser(requireActor(request.caller), request.params.id, request.query);
        return paged(entries, pagination);
      }),
    ]);
  };
}

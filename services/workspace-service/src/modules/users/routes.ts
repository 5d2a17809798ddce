import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { ADMIN_ROLES, requireActor } from '../access/index.js';
import { AUDIT, type AuditService } from '../audit/index.js';
import { acceptUploads, multipartPlaceholder, readAvatarUpload } from '../storage/index.js';
import type { UsersService } from './service.js';

export function usersRoutes(deps: { users: UsersService; audit: AuditService }) {
  const { users, audit } = deps;
  return async (app: HttpApp) => {
    await acceptUploads(app);

    serveEndpoint(app, api.listUsers, { config: { roles: ADMIN_ROLES } }, async (request) => {
      const { users: list, pagination } = await users.list(requireActor(request.caller), request.query);
      return envelope(request, list, pagination);
    });

    serveEndpoint(app, api.createUser, { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.userCreate } }, async (request, reply) =>
      reply.code(201).send(envelope(request, await users.create(request.caller, request.body))),
    );

    serveEndpoint(app, api.getMyUser, { config: { tier: 'high' } }, async (request) =>
      envelope(request, await users.me(requireActor(request.caller))),
    );

    serveEndpoint(app, api.updateMyUser, { config: { audit: AUDIT.profileUpdate } }, async (request) =>
      envelope(request, await users.updateMe(request.caller, request.body)),
    );

    serveEndpoint(app, api.changeMyPassword, { config: { audit: AUDIT.passwordChange } }, async (request) =>
      envelope(request, await users.changePassword(request.caller, request.body)),
    );

    serveEndpoint(
      app,
      api.uploadMyAvatar,
      { config: { audit: AUDIT.userAvatarUpload }, preValidation: multipartPlaceholder },
      async (request) => envelope(request, await users.uploadAvatar(request.caller, await readAvatarUpload(request))),
    );

    serveEndpoint(app, api.deleteMyAvatar, { config: { audit: AUDIT.userAvatarDelete } }, async (request, reply) => {
      await users.deleteAvatar(request.caller);
      return reply.code(204).send(null);
    });

    serveEndpoint(app, api.getUser, { config: { roles: ADMIN_ROLES } }, async (request) =>
      envelope(request, await users.get(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(app, api.updateUser, { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.userUpdate } }, async (request) =>
      envelope(request, await users.update(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(app, api.deleteUser, { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.userDelete } }, async (request) =>
      envelope(request, await users.delete(request.caller, request.params.id)),
    );

    serveEndpoint(app, api.listUserAuditLogs, { config: { roles: ADMIN_ROLES } }, async (request) => {
      const { entries, pagination } = await audit.listForUser(requireActor(request.caller), request.params.id, request.query);
      return envelope(request, entries, pagination);
    });
  };
}

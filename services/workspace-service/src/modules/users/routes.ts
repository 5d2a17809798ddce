import {
  AuditLogEntry,
  ChangePasswordBody,
  CreateUserBody,
  IdParams,
  MessageResult,
  UpdateMeBody,
  UpdateUserBody,
  UserAuditLogQuery,
  UserListQuery,
  UserRecord,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { BEARER, NoContent, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { ADMIN_ROLES } from '../access/policy.js';
import { AUDIT } from '../audit/actions.js';
import type { AuditService } from '../audit/service.js';
import { AvatarUploadBody, acceptUploads, multipartPlaceholder, readAvatarUpload } from '../storage/upload.js';
import type { UsersService } from './service.js';

const TAG = 'users';

export function usersRoutes(deps: { users: UsersService; audit: AuditService }) {
  const { users, audit } = deps;
  return async (app: HttpApp) => {
    await acceptUploads(app);

    app.get(
      '/users',
      {
        config: { roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'List users',
          description: 'A SUPER_ADMIN lists every user; an ADMIN the users of its workspace (403 for another `workspaceId`). Newest first.',
          operationId: 'listUsers',
          security: BEARER,
          querystring: UserListQuery,
          response: { 200: ok(Type.Array(UserRecord)), ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const { users: list, pagination } = await users.list(requireActor(request.caller), request.query);
        return envelope(request, list, pagination);
      },
    );

    app.post(
      '/users',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.userCreate },
        schema: {
          tags: [TAG],
          summary: 'Create a user',
          description:
            '`role` is `admin` or `client`. An ADMIN creates users in its own workspace (the default); a SUPER_ADMIN in any workspace or none. ' +
            'The address counts as verified (an administrator vouches for it). The password follows the sign-up policy.',
          operationId: 'createUser',
          security: BEARER,
          body: CreateUserBody,
          response: { 201: ok(UserRecord), ...errorResponses(401, 403, 409) },
        },
      },
      async (request, reply) => reply.code(201).send(envelope(request, await users.create(request.caller, request.body))),
    );

    app.get(
      '/users/me',
      {
        config: { tier: 'high' },
        schema: {
          tags: [TAG],
          summary: 'Your own account',
          operationId: 'getMyUser',
          security: BEARER,
          response: { 200: ok(UserRecord), ...errorResponses(401, 404) },
        },
      },
      async (request) => envelope(request, await users.me(requireActor(request.caller))),
    );

    app.put(
      '/users/me',
      {
        config: { audit: AUDIT.profileUpdate },
        schema: {
          tags: [TAG],
          summary: 'Update your name',
          description: 'Only `firstName` and `lastName`; any other field is refused (400).',
          operationId: 'updateMyUser',
          security: BEARER,
          body: UpdateMeBody,
          response: { 200: ok(UserRecord), ...errorResponses(401, 404) },
        },
      },
      async (request) => envelope(request, await users.updateMe(request.caller, request.body)),
    );

    app.patch(
      '/users/me/password',
      {
        config: { audit: AUDIT.passwordChange },
        schema: {
          tags: [TAG],
          summary: 'Change your password',
          description: 'Needs the current password. Every other session of yours ends (their refresh tokens stop working).',
          operationId: 'changeMyPassword',
          security: BEARER,
          body: ChangePasswordBody,
          response: {
            200: ok(Type.Object({ message: Type.String(), otherSessionsRevoked: Type.Integer({ minimum: 0 }) })),
            ...errorResponses(401, 404),
          },
        },
      },
      async (request) => envelope(request, await users.changePassword(request.caller, request.body)),
    );

    app.post(
      '/users/me/avatar',
      {
        config: { audit: AUDIT.userAvatarUpload },
        preValidation: multipartPlaceholder,
        schema: {
          tags: [TAG],
          summary: 'Upload your avatar',
          description:
            'multipart/form-data with one part `file`: PNG, JPEG, WebP or GIF (checked from its bytes), at most 2 MiB. Replaces the previous one.',
          operationId: 'uploadMyAvatar',
          security: BEARER,
          body: AvatarUploadBody,
          response: { 200: ok(UserRecord), ...errorResponses(401, 404, 413, 415) },
        },
      },
      async (request) => envelope(request, await users.uploadAvatar(request.caller, await readAvatarUpload(request))),
    );

    app.delete(
      '/users/me/avatar',
      {
        config: { audit: AUDIT.userAvatarDelete },
        schema: {
          tags: [TAG],
          summary: 'Remove your avatar',
          operationId: 'deleteMyAvatar',
          security: BEARER,
          response: { 204: NoContent, ...errorResponses(401, 404) },
        },
      },
      async (request, reply) => {
        await users.deleteAvatar(request.caller);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/users/:id',
      {
        config: { roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'Get a user',
          description: 'An ADMIN sees the users of its workspace only: others answer 404.',
          operationId: 'getUser',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(UserRecord), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await users.get(requireActor(request.caller), request.params.id)),
    );

    app.put(
      '/users/:id',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.userUpdate },
        schema: {
          tags: [TAG],
          summary: 'Update a user',
          description:
            'Any of `email`, `password`, `firstName`, `lastName`, `role` (`admin`/`client`), `status`, `workspaceId` (`null` removes the user from ' +
            'its workspace). An ADMIN manages the users of its workspace only and cannot move them elsewhere. Nobody changes its own role, status, ' +
            'workspace or password here. A new password, or a status other than `active`, ends the user’s sessions.',
          operationId: 'updateUser',
          security: BEARER,
          params: IdParams,
          body: UpdateUserBody,
          response: { 200: ok(UserRecord), ...errorResponses(401, 403, 404, 409) },
        },
      },
      async (request) => envelope(request, await users.update(request.caller, request.params.id, request.body)),
    );

    app.delete(
      '/users/:id',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.userDelete },
        schema: {
          tags: [TAG],
          summary: 'Delete a user',
          description: 'Irreversible; the user’s sessions end. Its audit entries are kept. You cannot delete yourself.',
          operationId: 'deleteUser',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(MessageResult), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await users.delete(request.caller, request.params.id)),
    );

    app.get(
      '/users/:id/audit-logs',
      {
        config: { roles: ADMIN_ROLES },
        schema: {
          tags: [TAG, 'audit logs'],
          summary: "A user's audit entries",
          description:
            'What the user did, newest first, with the filters of GET /api/v1/audit-logs. An ADMIN sees only the entries filed under its workspace.',
          operationId: 'listUserAuditLogs',
          security: BEARER,
          params: IdParams,
          querystring: UserAuditLogQuery,
          response: { 200: ok(Type.Array(AuditLogEntry)), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const { entries, pagination } = await audit.listForUser(requireActor(request.caller), request.params.id, request.query);
        return envelope(request, entries, pagination);
      },
    );
  };
}

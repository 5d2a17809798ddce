import { Type } from '@sinclair/typebox';
import { NoContent, SuccessEnvelope as ok } from '../../common/envelope.js';
import { AuditLogEntry, UserAuditLogQuery } from '../audit.js';
import { WORKSPACE_AUDIT } from '../audit-actions.js';
import { AvatarUploadBody } from '../avatars.js';
import { IdParams, MessageResult } from '../common.js';
import { ADMIN_ROLES, UserRecord } from '../identity.js';
import { ChangePasswordBody, CreateUserBody, UpdateMeBody, UpdateUserBody, UserListQuery } from '../users.js';
import { ADMIN_CHANGE, resource } from './define.js';

// users

const endpoint = resource({ tags: ['users'] });

export const listUsers = endpoint('GET /users', {
  operationId: 'listUsers',
  summary: 'List users',
  description: 'A SUPER_ADMIN lists every user; an ADMIN the users of its workspace (403 for another `workspaceId`). Newest first.',
  roles: ADMIN_ROLES,
  querystring: UserListQuery,
  response: { 200: ok(Type.Array(UserRecord)) },
});

export const createUser = endpoint('POST /users', {
  operationId: 'createUser',
  summary: 'Create a user',
  description:
    '`role` is `admin` or `client`. An ADMIN creates users in its own workspace (the default); a SUPER_ADMIN in any workspace or none. ' +
    'The address counts as verified (an administrator vouches for it). The password follows the sign-up policy.',
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.userCreate,
  body: CreateUserBody,
  response: { 201: ok(UserRecord) },
  errors: [409],
});

export const getMyUser = endpoint('GET /users/me', {
  operationId: 'getMyUser',
  summary: 'Your own account',
  tier: 'high',
  response: { 200: ok(UserRecord) },
  errors: [404],
});

export const updateMyUser = endpoint('PUT /users/me', {
  operationId: 'updateMyUser',
  summary: 'Update your name',
  description: 'Only `firstName` and `lastName`; any other field is refused (400).',
  audit: WORKSPACE_AUDIT.profileUpdate,
  body: UpdateMeBody,
  response: { 200: ok(UserRecord) },
  errors: [404],
});

export const changeMyPassword = endpoint('PATCH /users/me/password', {
  operationId: 'changeMyPassword',
  summary: 'Change your password',
  description: 'Needs the current password. Every other session of yours ends (their refresh tokens stop working).',
  audit: WORKSPACE_AUDIT.passwordChange,
  body: ChangePasswordBody,
  response: { 200: ok(Type.Object({ message: Type.String(), otherSessionsRevoked: Type.Integer({ minimum: 0 }) })) },
  errors: [404],
});

export const uploadMyAvatar = endpoint('POST /users/me/avatar', {
  operationId: 'uploadMyAvatar',
  summary: 'Upload your avatar',
  description:
    'multipart/form-data with one part `file`: PNG, JPEG, WebP or GIF (checked from its bytes), at most 2 MiB. Replaces the previous one.',
  audit: WORKSPACE_AUDIT.userAvatarUpload,
  body: AvatarUploadBody,
  response: { 200: ok(UserRecord) },
  errors: [404, 413, 415],
});

export const deleteMyAvatar = endpoint('DELETE /users/me/avatar', {
  operationId: 'deleteMyAvatar',
  summary: 'Remove your avatar',
  audit: WORKSPACE_AUDIT.userAvatarDelete,
  response: { 204: NoContent },
  errors: [404],
});

export const getUser = endpoint('GET /users/:id', {
  operationId: 'getUser',
  summary: 'Get a user',
  description: 'An ADMIN sees the users of its workspace only: others answer 404.',
  roles: ADMIN_ROLES,
  params: IdParams,
  response: { 200: ok(UserRecord) },
  errors: [404],
});

export const updateUser = endpoint('PUT /users/:id', {
  operationId: 'updateUser',
  summary: 'Update a user',
  description:
    'Any of `email`, `password`, `firstName`, `lastName`, `role` (`admin`/`client`), `status`, `workspaceId` (`null` removes the user from ' +
    'its workspace). An ADMIN manages the users of its workspace only and cannot move them elsewhere. Nobody changes its own role, status, ' +
    'workspace or password here. A new password, or a status other than `active`, ends the user’s sessions.',
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.userUpdate,
  params: IdParams,
  body: UpdateUserBody,
  response: { 200: ok(UserRecord) },
  errors: [404, 409],
});

export const deleteUser = endpoint('DELETE /users/:id', {
  operationId: 'deleteUser',
  summary: 'Delete a user',
  description: 'Irreversible; the user’s sessions end. Its audit entries are kept. You cannot delete yourself.',
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.userDelete,
  params: IdParams,
  response: { 200: ok(MessageResult) },
  errors: [404],
});

export const listUserAuditLogs = endpoint('GET /users/:id/audit-logs', {
  operationId: 'listUserAuditLogs',
  tags: ['users', 'audit logs'],
  summary: "A user's audit entries",
  description:
    'What the user did, newest first, with the filters of GET /api/v1/audit-logs. An ADMIN sees only the entries filed under its workspace.',
  roles: ADMIN_ROLES,
  params: IdParams,
  querystring: UserAuditLogQuery,
  response: { 200: ok(Type.Array(AuditLogEntry)) },
  errors: [404],
});

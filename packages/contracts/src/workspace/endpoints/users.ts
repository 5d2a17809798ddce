import { Type } from '@sinclair/typebox';
import { NoContent, SuccessEnvelope as ok } from '../../common/envelope.js';
import { AuditLogEntry, UserAuditLogQuery } from '../audit.js';
import { WORKSPACE_AUDIT } from '../audit-actions.js';
import { AvatarUploadBody } from '../avatars.js';
import { IdParams, MessageResult } from '../common.js';
import { ADMIN_ROLES, UserRecord } from '../identity.js';
import { ChangePasswordBody, CreateUserBody, UpdateMeBody, UpdateUserBody, UserListQuery } from '../users.js';
import { endpoint } from './define.js';

// users

export const listUsers = endpoint({
  method: 'GET',
  path: '/users',
  operationId: 'listUsers',
  tags: ['users'],
  summary: 'List users',
  description: 'A SUPER_ADMIN lists every user; an ADMIN the users of its workspace (403 for another `workspaceId`). Newest first.',
  roles: ADMIN_ROLES,
  querystring: UserListQuery,
  response: { 200: ok(Type.Array(UserRecord)) },
});

export const createUser = endpoint({
  method: 'POST',
  path: '/users',
  operationId: 'createUser',
  tags: ['users'],
  summary: 'Create a user',
  description:
    '`role` is `admin` or `client`. An ADMIN creates users in its own workspace (the default); a SUPER_ADMIN in any workspace or none. ' +
    'The address counts as verified (an administrator vouches for it). The password follows the sign-up policy.',
  roles: ADMIN_ROLES,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.userCreate,
  body: CreateUserBody,
  response: { 201: ok(UserRecord) },
  errors: [409],
});

export const getMyUser = endpoint({
  method: 'GET',
  path: '/users/me',
  operationId: 'getMyUser',
  tags: ['users'],
  summary: 'Your own account',
  tier: 'high',
  response: { 200: ok(UserRecord) },
  errors: [404],
});

export const updateMyUser = endpoint({
  method: 'PUT',
  path: '/users/me',
  operationId: 'updateMyUser',
  tags: ['users'],
  summary: 'Update your name',
  description: 'Only `firstName` and `lastName`; any other field is refused (400).',
  audit: WORKSPACE_AUDIT.profileUpdate,
  body: UpdateMeBody,
  response: { 200: ok(UserRecord) },
  errors: [404],
});

export const changeMyPassword = endpoint({
  method: 'PATCH',
  path: '/users/me/password',
  operationId: 'changeMyPassword',
  tags: ['users'],
  summary: 'Change your password',
  description: 'Needs the current password. Every other session of yours ends (their refresh tokens stop working).',
  audit: WORKSPACE_AUDIT.passwordChange,
  body: ChangePasswordBody,
  response: { 200: ok(Type.Object({ message: Type.String(), otherSessionsRevoked: Type.Integer({ minimum: 0 }) })) },
  errors: [404],
});

export const uploadMyAvatar = endpoint({
  method: 'POST',
  path: '/users/me/avatar',
  operationId: 'uploadMyAvatar',
  tags: ['users'],
  summary: 'Upload your avatar',
  description:
    'multipart/form-data with one part `file`: PNG, JPEG, WebP or GIF (checked from its bytes), at most 2 MiB. Replaces the previous one.',
  audit: WORKSPACE_AUDIT.userAvatarUpload,
  body: AvatarUploadBody,
  response: { 200: ok(UserRecord) },
  errors: [404, 413, 415],
});

export const deleteMyAvatar = endpoint({
  method: 'DELETE',
  path: '/users/me/avatar',
  operationId: 'deleteMyAvatar',
  tags: ['users'],
  summary: 'Remove your avatar',
  audit: WORKSPACE_AUDIT.userAvatarDelete,
  response: { 204: NoContent },
  errors: [404],
});

export const getUser = endpoint({
  method: 'GET',
  path: '/users/:id',
  operationId: 'getUser',
  tags: ['users'],
  summary: 'Get a user',
  description: 'An ADMIN sees the users of its workspace only: others answer 404.',
  roles: ADMIN_ROLES,
  params: IdParams,
  response: { 200: ok(UserRecord) },
  errors: [404],
});

export const updateUser = endpoint({
  method: 'PUT',
  path: '/users/:id',
  operationId: 'updateUser',
  tags: ['users'],
  summary: 'Update a user',
  description:
    'Any of `email`, `password`, `firstName`, `lastName`, `role` (`admin`/`client`), `status`, `workspaceId` (`null` removes the user from ' +
    'its workspace). An ADMIN manages the users of its workspace only and cannot move them elsewhere. Nobody changes its own role, status, ' +
    'workspace or password here. A new password, or a status other than `active`, ends the user’s sessions.',
  roles: ADMIN_ROLES,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.userUpdate,
  params: IdParams,
  body: UpdateUserBody,
  response: { 200: ok(UserRecord) },
  errors: [404, 409],
});

export const deleteUser = endpoint({
  method: 'DELETE',
  path: '/users/:id',
  operationId: 'deleteUser',
  tags: ['users'],
  summary: 'Delete a user',
  description: 'Irreversible; the user’s sessions end. Its audit entries are kept. You cannot delete yourself.',
  roles: ADMIN_ROLES,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.userDelete,
  params: IdParams,
  response: { 200: ok(MessageResult) },
  errors: [404],
});

export const listUserAuditLogs = endpoint({
  method: 'GET',
  path: '/users/:id/audit-logs',
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

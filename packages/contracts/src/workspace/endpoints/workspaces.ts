import { Type } from '@sinclair/typebox';
import { NoContent, SuccessEnvelope as ok } from '../../common/envelope.js';
import { AuditLogEntry, WorkspaceAuditLogQuery } from '../audit.js';
import { WORKSPACE_AUDIT } from '../audit-actions.js';
import { AvatarUploadBody } from '../avatars.js';
import { IdParams } from '../common.js';
import { ADMIN_ROLES } from '../identity.js';
import {
  CreateWorkspaceBody,
  PlatformMapping,
  PlatformMappingQuery,
  ReplaceWalletSettingsBody,
  UpdateBillingBody,
  UpdateWalletSettingsBody,
  UpdateWorkspaceBody,
  WalletSettings,
  WorkspaceBilling,
  WorkspaceListQuery,
  WorkspaceRecord,
} from '../workspaces.js';
import { ADMIN_CHANGE, resource } from './define.js';

// workspaces

const endpoint = resource({ tags: ['workspaces'] });

export const listWorkspaces = endpoint('GET /workspaces', {
  operationId: 'listWorkspaces',
  summary: 'List workspaces',
  description: 'A SUPER_ADMIN lists every workspace; an ADMIN its own (none before it created one). Newest first.',
  roles: ADMIN_ROLES,
  querystring: WorkspaceListQuery,
  response: { 200: ok(Type.Array(WorkspaceRecord)) },
});

export const createWorkspace = endpoint('POST /workspaces', {
  operationId: 'createWorkspace',
  summary: 'Create a workspace',
  description:
    'A new workspace is `pending` (only a SUPER_ADMIN may give another `status`). The slug is generated from the name when omitted ' +
    '(with a random suffix if taken); a given slug that exists answers 409. An ADMIN without a workspace becomes its first member; ' +
    'an ADMIN that already belongs to one gets 409 (a user belongs to one workspace).',
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.workspaceCreate,
  body: CreateWorkspaceBody,
  response: { 201: ok(WorkspaceRecord) },
  errors: [409],
});

export const getMyWorkspace = endpoint('GET /workspaces/me', {
  operationId: 'getMyWorkspace',
  summary: 'Your workspace',
  response: { 200: ok(WorkspaceRecord) },
  errors: [404],
});

export const updateMyWorkspace = endpoint('PUT /workspaces/me', {
  operationId: 'updateMyWorkspace',
  summary: 'Update your workspace',
  description: 'An ADMIN of the workspace (or a SUPER_ADMIN); other members get 403. `status` is set by a SUPER_ADMIN only (403).',
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.workspaceUpdate,
  body: UpdateWorkspaceBody,
  response: { 200: ok(WorkspaceRecord) },
  errors: [404],
});

export const getWorkspace = endpoint('GET /workspaces/:id', {
  operationId: 'getWorkspace',
  summary: 'Get a workspace',
  description: 'Members of the workspace and SUPER_ADMINs; anyone else gets 403.',
  params: IdParams,
  response: { 200: ok(WorkspaceRecord) },
  errors: [403, 404],
});

export const updateWorkspace = endpoint('PUT /workspaces/:id', {
  operationId: 'updateWorkspace',
  summary: 'Update a workspace',
  description: [
    'An ADMIN of the workspace or a SUPER_ADMIN; `status` is set by a SUPER_ADMIN only.',
    '`active` approves the workspace (credentials are issued to active workspaces only). A move to any other status',
    '(`suspended`, `inactive`, back to `pending`) deactivates its payments platforms (API keys, OAuth tokens) before the answer',
    "when payments answers, retried until it does; a `suspended` or `inactive` workspace's members are refused (403) on every route.",
    'Reactivation does not restore the old credentials: issue new ones.',
  ].join(' '),
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.workspaceUpdate,
  params: IdParams,
  body: UpdateWorkspaceBody,
  response: { 200: ok(WorkspaceRecord) },
  errors: [404],
});

export const deleteWorkspace = endpoint('DELETE /workspaces/:id', {
  operationId: 'deleteWorkspace',
  summary: 'Delete a workspace (irreversible)',
  description:
    'Deletes the workspace and its data: billing, wallet settings, platform mappings, avatar. Its members remain as users without a ' +
    'workspace. Audit entries are kept (readable by SUPER_ADMINs).',
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.workspaceDelete,
  params: IdParams,
  response: { 204: NoContent },
  errors: [404],
});

export const uploadWorkspaceAvatar = endpoint('POST /workspaces/:id/avatar', {
  operationId: 'uploadWorkspaceAvatar',
  summary: 'Upload the workspace avatar',
  description: 'multipart/form-data with one part `file`: PNG, JPEG, WebP or GIF (checked from its bytes), at most 2 MiB.',
  roles: ADMIN_ROLES,
  audit: WORKSPACE_AUDIT.workspaceAvatarUpload,
  params: IdParams,
  body: AvatarUploadBody,
  response: { 200: ok(WorkspaceRecord) },
  errors: [404, 413, 415],
});

export const deleteWorkspaceAvatar = endpoint('DELETE /workspaces/:id/avatar', {
  operationId: 'deleteWorkspaceAvatar',
  summary: 'Remove the workspace avatar',
  roles: ADMIN_ROLES,
  audit: WORKSPACE_AUDIT.workspaceAvatarDelete,
  params: IdParams,
  response: { 204: NoContent },
  errors: [404],
});

export const getWorkspaceBilling = endpoint('GET /workspaces/:id/billing', {
  operationId: 'getWorkspaceBilling',
  summary: 'Billing of the workspace',
  description: 'Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(WorkspaceBilling) },
  errors: [403, 404],
});

export const updateWorkspaceBilling = endpoint('PATCH /workspaces/:id/billing', {
  operationId: 'updateWorkspaceBilling',
  summary: 'Update billing of the workspace',
  description:
    'Contact fields (`billingEmail`, `companyName`, `taxId`): an ADMIN of the workspace. `billingEnabled` and `plan`: SUPER_ADMIN only.',
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.billingUpdate,
  params: IdParams,
  body: UpdateBillingBody,
  response: { 200: ok(WorkspaceBilling) },
  errors: [404],
});

export const listPlatformMappings = endpoint('GET /workspaces/:id/platform-mappings', {
  operationId: 'listPlatformMappings',
  summary: 'Payments platforms of the workspace',
  description:
    'The links between the workspace and its payments platforms (each sandbox credential is one platform). Members and SUPER_ADMINs. Newest first.',
  params: IdParams,
  querystring: PlatformMappingQuery,
  response: { 200: ok(Type.Array(PlatformMapping)) },
  errors: [403, 404],
});

export const getWalletSettings = endpoint('GET /workspaces/:id/wallet-settings', {
  operationId: 'getWalletSettings',
  summary: 'Wallet settings of the workspace',
  description: 'Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(WalletSettings) },
  errors: [403, 404],
});

export const updateWalletSettings = endpoint('PATCH /workspaces/:id/wallet-settings', {
  operationId: 'updateWalletSettings',
  summary: 'Update wallet settings of the workspace',
  description: 'An ADMIN of the workspace or a SUPER_ADMIN. `defaultNetwork` must be one of `enabledNetworks` when that list is not empty.',
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.walletSettingsUpdate,
  params: IdParams,
  body: UpdateWalletSettingsBody,
  response: { 200: ok(WalletSettings) },
  errors: [404],
});

export const replaceWalletSettings = endpoint('PUT /workspaces/:id/wallet-settings', {
  operationId: 'replaceWalletSettings',
  summary: 'Replace wallet settings of the workspace',
  description:
    'An ADMIN of the workspace or a SUPER_ADMIN. Replaces the whole record: a field left out is reset to its default (`null`, `[]` or `false`); PATCH merges instead. `defaultNetwork` must be one of `enabledNetworks` when that list is not empty. Audited as `workspace.wallet_settings_update`.',
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.walletSettingsUpdate,
  params: IdParams,
  body: ReplaceWalletSettingsBody,
  response: { 200: ok(WalletSettings) },
  errors: [404],
});

export const listWorkspaceAuditLogs = endpoint('GET /workspaces/:id/audit-logs', {
  operationId: 'listWorkspaceAuditLogs',
  tags: ['workspaces', 'audit logs'],
  summary: "The workspace's audit entries",
  description:
    'Acts on the workspace and by its members, newest first, with the filters of GET /api/v1/audit-logs. An ADMIN of the workspace or a SUPER_ADMIN.',
  roles: ADMIN_ROLES,
  params: IdParams,
  querystring: WorkspaceAuditLogQuery,
  response: { 200: ok(Type.Array(AuditLogEntry)) },
  errors: [404],
});

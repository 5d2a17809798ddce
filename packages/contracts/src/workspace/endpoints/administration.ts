import { Type } from '@sinclair/typebox';
import {
  CreateWorkspaceOAuthClientBody,
  OAuthClientStats,
  RevokedTokens,
  SANDBOX_CREDENTIAL_LIMITS,
  SandboxCredentialParams,
  SandboxCredentialSummary,
  UpdateWorkspaceOAuthClientBody,
  WorkspaceOAuthClient,
  WorkspaceOAuthClientList,
  WorkspaceOAuthClientParams,
  WorkspaceOAuthClientWithSecret,
} from '../../commands/forwarding.js';
import { NoContent, SuccessEnvelope as ok } from '../../common/envelope.js';
import { SandboxCredential } from '../../payments/access.js';
import {
  AUDIT_EXPORT_MAX_ROWS,
  AuditExportQuery,
  AuditLogEntry,
  AuditLogQuery,
  AuditStats,
  AuditStatsQuery,
  UserAuditLogQuery,
  WorkspaceAuditLogQuery,
} from '../audit.js';
import { AvatarFileParams, AvatarFileResponse, AvatarUploadBody } from '../avatars.js';
import { OAuthScopeInfo } from '../catalog.js';
import { IdParams, MessageResult } from '../common.js';
import {
  LoginBody,
  LogoutBody,
  RefreshBody,
  ResendCodeBody,
  ResendCodeResult,
  SessionTokens,
  SignupBody,
  SignupResult,
  UserRecord,
  VerifyCodeBody,
  VerifyCodeResult,
} from '../identity.js';
import {
  BulkGlobalSettingsBody,
  BulkGlobalSettingsResult,
  GlobalSettingListQuery,
  Setting,
  SettingKeyParams,
  SettingList,
  SettingListQuery,
  SettingScopeQuery,
  UpdateSettingBody,
  UpsertSettingBody,
} from '../settings.js';
import {
  CreateWorkspaceTransactionBody,
  GlobalTransactionList,
  GlobalTransactionsQuery,
  SubmitEscrowHashResult,
  WorkspaceSubmitEscrowHashBody,
  WorkspaceTransaction,
  WorkspaceTransactionList,
  WorkspaceTransactionParams,
  WorkspaceTransactionStats,
  WorkspaceTransactionsQuery,
} from '../transactions.js';
import { ChangePasswordBody, CreateUserBody, UpdateMeBody, UpdateUserBody, UserListQuery } from '../users.js';
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
import { endpoint, publicEndpoint, WORKSPACE_KEY } from './define.js';

// users

export const listUsers = endpoint({
  method: 'GET',
  path: '/users',
  operationId: 'listUsers',
  tags: ['users'],
  summary: 'List users',
  description: 'A SUPER_ADMIN lists every user; an ADMIN the users of its workspace (403 for another `workspaceId`). Newest first.',
  querystring: UserListQuery,
  response: { 200: ok(Type.Array(UserRecord)) },
  errors: [401, 403],
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
  body: CreateUserBody,
  response: { 201: ok(UserRecord) },
  errors: [401, 403, 409],
});

export const getMyUser = endpoint({
  method: 'GET',
  path: '/users/me',
  operationId: 'getMyUser',
  tags: ['users'],
  summary: 'Your own account',
  response: { 200: ok(UserRecord) },
  errors: [401, 404],
});

export const updateMyUser = endpoint({
  method: 'PUT',
  path: '/users/me',
  operationId: 'updateMyUser',
  tags: ['users'],
  summary: 'Update your name',
  description: 'Only `firstName` and `lastName`; any other field is refused (400).',
  body: UpdateMeBody,
  response: { 200: ok(UserRecord) },
  errors: [401, 404],
});

export const changeMyPassword = endpoint({
  method: 'PATCH',
  path: '/users/me/password',
  operationId: 'changeMyPassword',
  tags: ['users'],
  summary: 'Change your password',
  description: 'Needs the current password. Every other session of yours ends (their refresh tokens stop working).',
  body: ChangePasswordBody,
  response: { 200: ok(Type.Object({ message: Type.String(), otherSessionsRevoked: Type.Integer({ minimum: 0 }) })) },
  errors: [401, 404],
});

export const uploadMyAvatar = endpoint({
  method: 'POST',
  path: '/users/me/avatar',
  operationId: 'uploadMyAvatar',
  tags: ['users'],
  summary: 'Upload your avatar',
  description:
    'multipart/form-data with one part `file`: PNG, JPEG, WebP or GIF (checked from its bytes), at most 2 MiB. Replaces the previous one.',
  body: AvatarUploadBody,
  response: { 200: ok(UserRecord) },
  errors: [401, 404, 413, 415],
});

export const deleteMyAvatar = endpoint({
  method: 'DELETE',
  path: '/users/me/avatar',
  operationId: 'deleteMyAvatar',
  tags: ['users'],
  summary: 'Remove your avatar',
  response: { 204: NoContent },
  errors: [401, 404],
});

export const getUser = endpoint({
  method: 'GET',
  path: '/users/:id',
  operationId: 'getUser',
  tags: ['users'],
  summary: 'Get a user',
  description: 'An ADMIN sees the users of its workspace only: others answer 404.',
  params: IdParams,
  response: { 200: ok(UserRecord) },
  errors: [401, 403, 404],
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
  params: IdParams,
  body: UpdateUserBody,
  response: { 200: ok(UserRecord) },
  errors: [401, 403, 404, 409],
});

export const deleteUser = endpoint({
  method: 'DELETE',
  path: '/users/:id',
  operationId: 'deleteUser',
  tags: ['users'],
  summary: 'Delete a user',
  description: 'Irreversible; the user’s sessions end. Its audit entries are kept. You cannot delete yourself.',
  params: IdParams,
  response: { 200: ok(MessageResult) },
  errors: [401, 403, 404],
});

export const listUserAuditLogs = endpoint({
  method: 'GET',
  path: '/users/:id/audit-logs',
  operationId: 'listUserAuditLogs',
  tags: ['users', 'audit logs'],
  summary: "A user's audit entries",
  description:
    'What the user did, newest first, with the filters of GET /api/v1/audit-logs. An ADMIN sees only the entries filed under its workspace.',
  params: IdParams,
  querystring: UserAuditLogQuery,
  response: { 200: ok(Type.Array(AuditLogEntry)) },
  errors: [401, 403, 404],
});

// workspaces

export const listWorkspaces = endpoint({
  method: 'GET',
  path: '/workspaces',
  operationId: 'listWorkspaces',
  tags: ['workspaces'],
  summary: 'List workspaces',
  description: 'A SUPER_ADMIN lists every workspace; an ADMIN its own (none before it created one). Newest first.',
  querystring: WorkspaceListQuery,
  response: { 200: ok(Type.Array(WorkspaceRecord)) },
  errors: [401, 403],
});

export const createWorkspace = endpoint({
  method: 'POST',
  path: '/workspaces',
  operationId: 'createWorkspace',
  tags: ['workspaces'],
  summary: 'Create a workspace',
  description:
    'A new workspace is `pending` (only a SUPER_ADMIN may give another `status`). The slug is generated from the name when omitted ' +
    '(with a random suffix if taken); a given slug that exists answers 409. An ADMIN without a workspace becomes its first member; ' +
    'an ADMIN that already belongs to one gets 409 (a user belongs to one workspace).',
  body: CreateWorkspaceBody,
  response: { 201: ok(WorkspaceRecord) },
  errors: [401, 403, 409],
});

export const getMyWorkspace = endpoint({
  method: 'GET',
  path: '/workspaces/me',
  operationId: 'getMyWorkspace',
  tags: ['workspaces'],
  summary: 'Your workspace',
  response: { 200: ok(WorkspaceRecord) },
  errors: [401, 404],
});

export const updateMyWorkspace = endpoint({
  method: 'PUT',
  path: '/workspaces/me',
  operationId: 'updateMyWorkspace',
  tags: ['workspaces'],
  summary: 'Update your workspace',
  description: 'An ADMIN of the workspace (or a SUPER_ADMIN); other members get 403. `status` is set by a SUPER_ADMIN only (403).',
  body: UpdateWorkspaceBody,
  response: { 200: ok(WorkspaceRecord) },
  errors: [401, 403, 404],
});

export const getWorkspace = endpoint({
  method: 'GET',
  path: '/workspaces/:id',
  operationId: 'getWorkspace',
  tags: ['workspaces'],
  summary: 'Get a workspace',
  description: 'Members of the workspace and SUPER_ADMINs; anyone else gets 403.',
  params: IdParams,
  response: { 200: ok(WorkspaceRecord) },
  errors: [401, 403, 404],
});

export const updateWorkspace = endpoint({
  method: 'PUT',
  path: '/workspaces/:id',
  operationId: 'updateWorkspace',
  tags: ['workspaces'],
  summary: 'Update a workspace',
  description: [
    'An ADMIN of the workspace or a SUPER_ADMIN; `status` is set by a SUPER_ADMIN only.',
    '`active` approves the workspace (credentials are issued to active workspaces only). A move to any other status',
    '(`suspended`, `inactive`, back to `pending`) deactivates its payments platforms (API keys, OAuth tokens) before the answer',
    "when payments answers, retried until it does; a `suspended` or `inactive` workspace's members are refused (403) on every route.",
    'Reactivation does not restore the old credentials: issue new ones.',
  ].join(' '),
  params: IdParams,
  body: UpdateWorkspaceBody,
  response: { 200: ok(WorkspaceRecord) },
  errors: [401, 403, 404],
});

export const deleteWorkspace = endpoint({
  method: 'DELETE',
  path: '/workspaces/:id',
  operationId: 'deleteWorkspace',
  tags: ['workspaces'],
  summary: 'Delete a workspace (irreversible)',
  description:
    'Deletes the workspace and its data: billing, wallet settings, platform mappings, avatar. Its members remain as users without a ' +
    'workspace. Audit entries are kept (readable by SUPER_ADMINs).',
  params: IdParams,
  response: { 204: NoContent },
  errors: [401, 403, 404],
});

export const uploadWorkspaceAvatar = endpoint({
  method: 'POST',
  path: '/workspaces/:id/avatar',
  operationId: 'uploadWorkspaceAvatar',
  tags: ['workspaces'],
  summary: 'Upload the workspace avatar',
  description: 'multipart/form-data with one part `file`: PNG, JPEG, WebP or GIF (checked from its bytes), at most 2 MiB.',
  params: IdParams,
  body: AvatarUploadBody,
  response: { 200: ok(WorkspaceRecord) },
  errors: [401, 403, 404, 413, 415],
});

export const deleteWorkspaceAvatar = endpoint({
  method: 'DELETE',
  path: '/workspaces/:id/avatar',
  operationId: 'deleteWorkspaceAvatar',
  tags: ['workspaces'],
  summary: 'Remove the workspace avatar',
  params: IdParams,
  response: { 204: NoContent },
  errors: [401, 403, 404],
});

export const getWorkspaceBilling = endpoint({
  method: 'GET',
  path: '/workspaces/:id/billing',
  operationId: 'getWorkspaceBilling',
  tags: ['workspaces'],
  summary: 'Billing of the workspace',
  description: 'Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(WorkspaceBilling) },
  errors: [401, 403, 404],
});

export const updateWorkspaceBilling = endpoint({
  method: 'PATCH',
  path: '/workspaces/:id/billing',
  operationId: 'updateWorkspaceBilling',
  tags: ['workspaces'],
  summary: 'Update billing of the workspace',
  description:
    'Contact fields (`billingEmail`, `companyName`, `taxId`): an ADMIN of the workspace. `billingEnabled` and `plan`: SUPER_ADMIN only.',
  params: IdParams,
  body: UpdateBillingBody,
  response: { 200: ok(WorkspaceBilling) },
  errors: [401, 403, 404],
});

export const listPlatformMappings = endpoint({
  method: 'GET',
  path: '/workspaces/:id/platform-mappings',
  operationId: 'listPlatformMappings',
  tags: ['workspaces'],
  summary: 'Payments platforms of the workspace',
  description:
    'The links between the workspace and its payments platforms (each sandbox credential is one platform). Members and SUPER_ADMINs. Newest first.',
  params: IdParams,
  querystring: PlatformMappingQuery,
  response: { 200: ok(Type.Array(PlatformMapping)) },
  errors: [401, 403, 404],
});

export const getWalletSettings = endpoint({
  method: 'GET',
  path: '/workspaces/:id/wallet-settings',
  operationId: 'getWalletSettings',
  tags: ['workspaces'],
  summary: 'Wallet settings of the workspace',
  description: 'Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(WalletSettings) },
  errors: [401, 403, 404],
});

export const updateWalletSettings = endpoint({
  method: 'PATCH',
  path: '/workspaces/:id/wallet-settings',
  operationId: 'updateWalletSettings',
  tags: ['workspaces'],
  summary: 'Update wallet settings of the workspace',
  description: 'An ADMIN of the workspace or a SUPER_ADMIN. `defaultNetwork` must be one of `enabledNetworks` when that list is not empty.',
  params: IdParams,
  body: UpdateWalletSettingsBody,
  response: { 200: ok(WalletSettings) },
  errors: [401, 403, 404],
});

export const replaceWalletSettings = endpoint({
  method: 'PUT',
  path: '/workspaces/:id/wallet-settings',
  operationId: 'replaceWalletSettings',
  tags: ['workspaces'],
  summary: 'Replace wallet settings of the workspace',
  description:
    'An ADMIN of the workspace or a SUPER_ADMIN. Replaces the whole record: a field left out is reset to its default (`null`, `[]` or `false`); PATCH merges instead. `defaultNetwork` must be one of `enabledNetworks` when that list is not empty. Audited as `workspace.wallet_settings_update`.',
  params: IdParams,
  body: ReplaceWalletSettingsBody,
  response: { 200: ok(WalletSettings) },
  errors: [401, 403, 404],
});

export const listWorkspaceAuditLogs = endpoint({
  method: 'GET',
  path: '/workspaces/:id/audit-logs',
  operationId: 'listWorkspaceAuditLogs',
  tags: ['workspaces', 'audit logs'],
  summary: "The workspace's audit entries",
  description:
    'Acts on the workspace and by its members, newest first, with the filters of GET /api/v1/audit-logs. An ADMIN of the workspace or a SUPER_ADMIN.',
  params: IdParams,
  querystring: WorkspaceAuditLogQuery,
  response: { 200: ok(Type.Array(AuditLogEntry)) },
  errors: [401, 403, 404],
});

// sessions

export const signup = publicEndpoint({
  method: 'POST',
  path: '/auth/signup',
  operationId: 'signup',
  tags: ['session'],
  summary: 'Sign up: create an account and get a verification code',
  description:
    'Creates an ADMIN account without a workspace (create one with POST /api/v1/workspaces once verified). The password needs 12 to 128 ' +
    'characters with an upper-case letter, a lower-case letter, a number and a special character. A 6-digit code valid 15 minutes is ' +
    'e-mailed; in `local` and `staging` it is also returned as `verificationCode`, in production only e-mailed. If the e-mail cannot be ' +
    'sent, nothing is created (503) and the call can be repeated.',
  body: SignupBody,
  response: { 201: ok(SignupResult) },
  errors: [409, 503],
});

export const verifyCode = publicEndpoint({
  method: 'POST',
  path: '/auth/verify-code',
  operationId: 'verifyCode',
  tags: ['session'],
  summary: 'Verify the e-mail address with the code',
  description:
    'A wrong code counts an attempt (5 per code); an expired or used-up code answers 400 `INVALID_CODE` (request another with ' +
    'POST /auth/resend-code). The code is consumed only when verification succeeds, so a failure on our side keeps it usable.',
  body: VerifyCodeBody,
  response: { 200: ok(VerifyCodeResult) },
});

export const resendCode = publicEndpoint({
  method: 'POST',
  path: '/auth/resend-code',
  operationId: 'resendCode',
  tags: ['session'],
  summary: 'Send a new verification code',
  description:
    'Replaces the code of an unverified account (at most one a minute: 429 otherwise). The answer is the same for unknown and verified ' +
    'addresses; in `local` and `staging` it carries the new code.',
  body: ResendCodeBody,
  response: { 200: ok(ResendCodeResult) },
  errors: [503],
});

// Login, refresh and logout are served at the host root (`/identity/*`) and again under `/api/v1/auth/*`:
// one operation each, under two paths and operation ids.
const login = {
  method: 'POST',
  tags: ['session'],
  summary: 'Log in with e-mail and password',
  description:
    'The e-mail is compared in lower case. Answers an access token (JWT, 3600 s) and a refresh token (single use, rotated by each refresh). ' +
    'Unverified, inactive and suspended accounts get 401; after 5 failed attempts within 15 minutes for one account from one client address, that pair backs off (1 s, doubling up to 15 minutes; 429 with Retry-After); other addresses are not affected.',
  body: LoginBody,
  response: { 200: ok(SessionTokens) },
  errors: [401],
} as const;
const refresh = {
  method: 'POST',
  tags: ['session'],
  summary: 'Exchange a refresh token for new tokens',
  description:
    'The refresh token is single use: the answer holds a new one. Presenting an already used refresh token revokes the whole session ' +
    '(every token issued since that login) and answers 401.',
  body: RefreshBody,
  response: { 200: ok(SessionTokens) },
  errors: [401],
} as const;
const logout = {
  method: 'POST',
  tags: ['session'],
  summary: 'Log out: the refresh token stops working at once',
  description:
    'Ends the session of the refresh token (every refresh token of that login). Access tokens already issued stay valid until they expire. ' +
    'Answers 200 for an unknown or already ended token too.',
  body: LogoutBody,
  response: { 200: ok(MessageResult) },
} as const;

export const identityLogin = publicEndpoint({ ...login, path: '/identity/login', operationId: 'identityLogin' });
export const identityRefresh = publicEndpoint({ ...refresh, path: '/identity/refresh', operationId: 'identityRefresh' });
export const identityLogout = publicEndpoint({ ...logout, path: '/identity/logout', operationId: 'identityLogout' });

export const identityMe = endpoint({
  method: 'GET',
  path: '/identity/me',
  operationId: 'identityMe',
  tags: ['session'],
  summary: 'The account behind the access token',
  response: { 200: ok(UserRecord) },
  errors: [401, 404],
});

export const authLogin = publicEndpoint({ ...login, path: '/auth/login', operationId: 'authLogin' });
export const authRefresh = publicEndpoint({ ...refresh, path: '/auth/refresh', operationId: 'authRefresh' });
export const authLogout = publicEndpoint({ ...logout, path: '/auth/logout', operationId: 'authLogout' });

// OAuth clients

const OAUTH_CLIENT_CALLERS = 'Members of the workspace and SUPER_ADMINs. 503 when payments does not answer.';
/** Issue 13 item 4: a minted credential is bounded by its minting member. */
const OAUTH_GRANT_BOUND =
  "A member grants only scopes its role may (`grantableBy` in GET /workspaces/{id}/oauth/scopes): a CLIENT's scopes beyond it answer 403 `FORBIDDEN` with `details.scopes`.";

export const listOAuthScopes = endpoint({
  method: 'GET',
  path: '/workspaces/:id/oauth/scopes',
  operationId: 'listOAuthScopes',
  tags: ['OAuth clients'],
  summary: 'Scopes a workspace OAuth client may hold',
  description:
    'Scope strings are `resource:action` (resource first), each granting one Payments API scope (`action:resource`). Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(Type.Array(OAuthScopeInfo)) },
  errors: [401, 403, 404],
});

export const listOAuthClients = endpoint({
  method: 'GET',
  path: '/workspaces/:id/oauth/clients',
  operationId: 'listOAuthClients',
  tags: ['OAuth clients'],
  summary: 'List OAuth clients',
  description: `The workspace's OAuth clients (on all of its platforms), newest first, as \`data.clients\`; deleted ones are gone. ${OAUTH_CLIENT_CALLERS}`,
  params: IdParams,
  response: { 200: ok(WorkspaceOAuthClientList) },
  errors: [401, 403, 404, 503],
});

export const createOAuthClient = endpoint({
  method: 'POST',
  path: '/workspaces/:id/oauth/clients',
  operationId: 'createOAuthClient',
  tags: ['OAuth clients'],
  summary: 'Create an OAuth client',
  description: [
    'A client-credentials client for the Payments API (v2 takes only its tokens). `scopes` are `resource:action` strings from',
    'GET /workspaces/{id}/oauth/scopes; the client gets the Payments API scope of each. It belongs to `platformId` (one of the',
    "workspace's active platforms) or, by default, to its newest active sandbox platform: without one, 409 `CONFLICT` (issue",
    'sandbox credentials first). Only for an `active` (operator-approved) workspace: otherwise 403 `FORBIDDEN` with',
    `\`details.reason: "workspace_not_active"\`. \`clientSecret\` is in this answer only. ${OAUTH_GRANT_BOUND} ${OAUTH_CLIENT_CALLERS}`,
  ].join(' '),
  params: IdParams,
  body: CreateWorkspaceOAuthClientBody,
  response: { 201: ok(WorkspaceOAuthClientWithSecret) },
  errors: [401, 403, 404, 409, 503],
});

export const getOAuthClient = endpoint({
  method: 'GET',
  path: '/workspaces/:id/oauth/clients/:clientId',
  operationId: 'getOAuthClient',
  tags: ['OAuth clients'],
  summary: 'Read an OAuth client',
  description: `By \`clientId\` (\`hf_client_…\`) or id. Another workspace's client answers 404. ${OAUTH_CLIENT_CALLERS}`,
  params: WorkspaceOAuthClientParams,
  response: { 200: ok(WorkspaceOAuthClient) },
  errors: [401, 403, 404, 503],
});

export const updateOAuthClient = endpoint({
  method: 'PATCH',
  path: '/workspaces/:id/oauth/clients/:clientId',
  operationId: 'updateOAuthClient',
  tags: ['OAuth clients'],
  summary: 'Change an OAuth client',
  description: `\`name\`, \`description\`, \`scopes\` (narrowed scopes apply to its existing tokens at once), \`isActive\` (\`false\` revokes all its tokens). ${OAUTH_GRANT_BOUND} A CLIENT may not change a client holding a scope beyond its role (403). ${OAUTH_CLIENT_CALLERS}`,
  params: WorkspaceOAuthClientParams,
  body: UpdateWorkspaceOAuthClientBody,
  response: { 200: ok(WorkspaceOAuthClient) },
  errors: [401, 403, 404, 503],
});

export const deleteOAuthClient = endpoint({
  method: 'DELETE',
  path: '/workspaces/:id/oauth/clients/:clientId',
  operationId: 'deleteOAuthClient',
  tags: ['OAuth clients'],
  summary: 'Delete an OAuth client',
  description: `Deletes the client and revokes all its tokens at once. ${OAUTH_CLIENT_CALLERS}`,
  params: WorkspaceOAuthClientParams,
  response: { 204: NoContent },
  errors: [401, 403, 404, 503],
});

export const revokeOAuthClientTokens = endpoint({
  method: 'POST',
  path: '/workspaces/:id/oauth/clients/:clientId/revoke-tokens',
  operationId: 'revokeOAuthClientTokens',
  tags: ['OAuth clients'],
  summary: "Revoke an OAuth client's tokens",
  description: `Revokes every unexpired token of the client (the client keeps working: it can obtain new ones). \`data.count\` says how many. ${OAUTH_CLIENT_CALLERS}`,
  params: WorkspaceOAuthClientParams,
  response: { 200: ok(RevokedTokens) },
  errors: [401, 403, 404, 503],
});

export const getOAuthClientStats = endpoint({
  method: 'GET',
  path: '/workspaces/:id/oauth/clients/:clientId/stats',
  operationId: 'getOAuthClientStats',
  tags: ['OAuth clients'],
  summary: "An OAuth client's token counts",
  description: `\`totalTokens\` ever issued, \`activeTokens\` still usable (unrevoked, unexpired), \`revokedTokens\`. ${OAUTH_CLIENT_CALLERS}`,
  params: WorkspaceOAuthClientParams,
  response: { 200: ok(OAuthClientStats) },
  errors: [401, 403, 404, 503],
});

// transactions (docs/workspace-transactions.md)

const TRANSACTION_STATUSES =
  'Statuses are upper-case: PENDING (pending, risk_review, pending_user_action), ESCROWED, IN_REVIEW (in_review, disputed), COMPLETED, FAILED, CANCELLED (refunded, rescinded). Amounts are exact decimal strings.';
const PAYMENTS_UNAVAILABLE = '503 when payments does not answer.';

export const listWorkspaceTransactions = endpoint({
  method: 'GET',
  path: '/workspaces/:id/transactions',
  operationId: 'listWorkspaceTransactions',
  tags: ['Transactions'],
  summary: "List a workspace's transactions",
  description: [
    "Transactions on the workspace's platforms (its platform mappings, revoked ones included), from or to an address it has",
    "proven control of (the accounts of its built-in PLATFORM wallet, customers' auto-created ones included; never a",
    'CUSTODY_A or SIWE-linked address, which proves nothing), or naming one in `metadata.walletAddress`,',
    '`metadata.senderWalletAddress` or `metadata.recipientWalletAddress`; newest first, each with `_platformId` and `_platformName`.',
    `\`status\` filters by the upper-case value. ${TRANSACTION_STATUSES} Members of the workspace and SUPER_ADMINs. ${PAYMENTS_UNAVAILABLE}`,
  ].join(' '),
  params: IdParams,
  querystring: WorkspaceTransactionsQuery,
  response: { 200: ok(WorkspaceTransactionList) },
  errors: [401, 403, 404, 503],
});

export const createWorkspaceTransaction = endpoint({
  method: 'POST',
  path: '/workspaces/:id/transactions',
  operationId: 'createWorkspaceTransaction',
  tags: ['Transactions'],
  summary: 'Create a transaction',
  description: [
    "Forwarded to payments under the workspace's default platform: its newest active production platform, else its newest",
    'active sandbox platform (409 `CONFLICT` without one: issue sandbox credentials first). `amount` is a decimal string',
    '(0.01 to 1,000,000), `network` a network name (a mainnet is coerced to its testnet outside production; a testnet is',
    'refused in production). `currency` defaults to USDC, `orchestrationType` to raw; `customerId` must be a customer of the',
    `workspace (404). ${TRANSACTION_STATUSES} Members of the workspace and SUPER_ADMINs. ${PAYMENTS_UNAVAILABLE}`,
  ].join(' '),
  params: IdParams,
  body: CreateWorkspaceTransactionBody,
  response: { 200: ok(Type.Object({ transaction: WorkspaceTransaction })) },
  errors: [401, 403, 404, 409, 503],
});

export const getWorkspaceTransaction = endpoint({
  method: 'GET',
  path: '/workspaces/:id/transactions/:txId',
  operationId: 'getWorkspaceTransaction',
  tags: ['Transactions'],
  summary: 'Read a transaction with the workspace key',
  description: [
    "`X-API-Key`: a Payments API key of one of the workspace's platforms, with `read:transactions` (403 `INSUFFICIENT_SCOPE`).",
    "A key of another workspace, or a transaction outside the workspace's list, answers 404.",
    `${TRANSACTION_STATUSES} ${PAYMENTS_UNAVAILABLE}`,
  ].join(' '),
  security: WORKSPACE_KEY,
  params: WorkspaceTransactionParams,
  response: { 200: ok(WorkspaceTransaction) },
  errors: [401, 403, 404, 503],
});

export const submitWorkspaceTransactionEscrowHash = endpoint({
  method: 'POST',
  path: '/workspaces/:id/transactions/:txId/submit-escrow-hash',
  operationId: 'submitWorkspaceTransactionEscrowHash',
  tags: ['Transactions'],
  summary: "Submit a transaction's escrow hash with the workspace key",
  description: [
    'The hash of the escrow call the sender signed. `X-API-Key`: a Payments API key of the workspace with `write:transactions`.',
    "Only a transaction on one of the workspace's platforms can be moved (404 otherwise, and for another workspace's key).",
    `${PAYMENTS_UNAVAILABLE}`,
  ].join(' '),
  security: WORKSPACE_KEY,
  params: WorkspaceTransactionParams,
  body: WorkspaceSubmitEscrowHashBody,
  response: { 200: ok(SubmitEscrowHashResult) },
  errors: [401, 403, 404, 409, 503],
});

export const listTransactions = endpoint({
  method: 'GET',
  path: '/transactions',
  operationId: 'listTransactions',
  tags: ['Transactions'],
  summary: 'List transactions across connected platforms',
  description: [
    'SUPER_ADMIN: every platform connected to any workspace; anyone else: the platforms of its own workspace (none without',
    'one). `meta.platformCount` is how many platforms were searched. `walletAddress` matches the sender or the receiver.',
    `${TRANSACTION_STATUSES} ${PAYMENTS_UNAVAILABLE}`,
  ].join(' '),
  querystring: GlobalTransactionsQuery,
  response: { 200: ok(GlobalTransactionList) },
  errors: [401, 503],
});

export const getTransactionStats = endpoint({
  method: 'GET',
  path: '/transactions/stats',
  operationId: 'getTransactionStats',
  tags: ['Transactions'],
  summary: 'Transaction statistics',
  description: `Per upper-case status \`{count, total_amount}\` (exact decimal string) over the platforms GET /transactions searches. ${PAYMENTS_UNAVAILABLE}`,
  response: { 200: ok(WorkspaceTransactionStats) },
  errors: [401, 503],
});

export const getTransaction = endpoint({
  method: 'GET',
  path: '/transactions/:id',
  operationId: 'getTransaction',
  tags: ['Transactions'],
  summary: 'Read a transaction across connected platforms',
  description: `Searched across the platforms GET /transactions searches; 404 outside them. ${TRANSACTION_STATUSES} ${PAYMENTS_UNAVAILABLE}`,
  params: IdParams,
  response: { 200: ok(WorkspaceTransaction) },
  errors: [401, 404, 503],
});

// settings

const SETTINGS_SCOPE =
  "The settings of one workspace: an ADMIN's own (a `workspaceId` of another answers 403); a SUPER_ADMIN names the workspace " +
  'with `workspaceId` (required for one). CLIENTs get 403.';
const ENCRYPTED_SETTINGS = 'Encrypted values are write-only: answers show an empty string.';

export const listSettings = endpoint({
  method: 'GET',
  path: '/settings',
  operationId: 'listSettings',
  tags: ['settings'],
  summary: "List the workspace's settings",
  description: `Ordered by category, then key; \`category\` filters. ${SETTINGS_SCOPE} ${ENCRYPTED_SETTINGS}`,
  querystring: SettingListQuery,
  response: { 200: ok(SettingList) },
  errors: [401, 403, 404],
});

export const upsertSetting = endpoint({
  method: 'POST',
  path: '/settings',
  operationId: 'upsertSetting',
  tags: ['settings'],
  summary: 'Create or update a setting',
  description:
    'Creates `key` in the workspace, or updates it when it exists (201 either way): `value` is replaced; `category`, ' +
    '`description` and `isEncrypted` keep their stored values when left out (a new setting: `general`, null, false). ' +
    `${SETTINGS_SCOPE} ${ENCRYPTED_SETTINGS}`,
  querystring: SettingScopeQuery,
  body: UpsertSettingBody,
  response: { 201: ok(Setting) },
  errors: [401, 403, 404],
});

export const getSetting = endpoint({
  method: 'GET',
  path: '/settings/:key',
  operationId: 'getSetting',
  tags: ['settings'],
  summary: 'Get a setting',
  description: `${SETTINGS_SCOPE} ${ENCRYPTED_SETTINGS}`,
  params: SettingKeyParams,
  querystring: SettingScopeQuery,
  response: { 200: ok(Setting) },
  errors: [401, 403, 404],
});

export const updateSetting = endpoint({
  method: 'PUT',
  path: '/settings/:key',
  operationId: 'updateSetting',
  tags: ['settings'],
  summary: 'Update a setting',
  description:
    '`value` is required and replaces the stored one; `category`, `description` and `isEncrypted` keep their stored values ' +
    `when left out. An unknown key answers 404 (POST /settings creates). ${SETTINGS_SCOPE} ${ENCRYPTED_SETTINGS}`,
  params: SettingKeyParams,
  querystring: SettingScopeQuery,
  body: UpdateSettingBody,
  response: { 200: ok(Setting) },
  errors: [401, 403, 404],
});

export const listGlobalSettings = endpoint({
  method: 'GET',
  path: '/global-settings',
  operationId: 'listGlobalSettings',
  tags: ['settings'],
  summary: 'List the global settings',
  description: `Platform-wide settings, the same for every workspace, in the shape of GET /settings. ADMINs and SUPER_ADMINs read them. ${ENCRYPTED_SETTINGS}`,
  querystring: GlobalSettingListQuery,
  response: { 200: ok(SettingList) },
  errors: [401, 403],
});

export const bulkUpsertGlobalSettings = endpoint({
  method: 'POST',
  path: '/global-settings/bulk',
  operationId: 'bulkUpsertGlobalSettings',
  tags: ['settings'],
  summary: 'Create or update global settings in bulk',
  description:
    'Up to 100 settings, each created or updated like POST /settings, all in one transaction (one bad item saves none; a key ' +
    `may appear once). SUPER_ADMIN only. ${ENCRYPTED_SETTINGS}`,
  body: BulkGlobalSettingsBody,
  response: { 200: ok(BulkGlobalSettingsResult) },
  errors: [401, 403],
});

// audit logs

const AUDIT_SCOPE = 'A SUPER_ADMIN reads every entry; an ADMIN the entries filed under its workspace.';

export const listAuditLogs = endpoint({
  method: 'GET',
  path: '/audit-logs',
  operationId: 'listAuditLogs',
  tags: ['audit logs'],
  summary: 'List audit entries',
  description: `Newest first. ${AUDIT_SCOPE} Filters: see docs/audit-logs.md.`,
  querystring: AuditLogQuery,
  response: { 200: ok(Type.Array(AuditLogEntry)) },
  errors: [401, 403],
});

export const exportAuditLogs = endpoint({
  method: 'GET',
  path: '/audit-logs/export',
  operationId: 'exportAuditLogs',
  tags: ['audit logs'],
  summary: 'Export audit entries as a CSV or JSON file',
  description:
    `The entries matching the filters, newest first, at most \`limit\` (default and maximum ${AUDIT_EXPORT_MAX_ROWS}); ` +
    '`X-Export-Truncated: true` says more matched (narrow with `from`/`to`). `format=csv` (default) or `format=json` (an array). ' +
    `CSV cells that a spreadsheet would run as a formula start with an apostrophe. ${AUDIT_SCOPE}`,
  querystring: AuditExportQuery,
  response: {
    200: {
      description: 'The file (Content-Disposition: attachment)',
      content: {
        'text/csv': { schema: { type: 'string' } },
        'application/json': { schema: Type.Array(AuditLogEntry) },
      },
    },
  },
  errors: [401, 403],
});

export const auditLogStats = endpoint({
  method: 'GET',
  path: '/audit-logs/stats',
  operationId: 'auditLogStats',
  tags: ['audit logs'],
  summary: 'Audit statistics',
  description: `Counts of the entries matching the filters: totals, per action, per resource type, per UTC day, the 10 most active users. ${AUDIT_SCOPE}`,
  querystring: AuditStatsQuery,
  response: { 200: ok(AuditStats) },
  errors: [401, 403],
});

export const getAuditLog = endpoint({
  method: 'GET',
  path: '/audit-logs/:id',
  operationId: 'getAuditLog',
  tags: ['audit logs'],
  summary: 'Get an audit entry',
  description: `${AUDIT_SCOPE} Entries outside that scope answer 404.`,
  params: IdParams,
  response: { 200: ok(AuditLogEntry) },
  errors: [401, 403, 404],
});

// sandbox credentials

export const listSandboxCredentials = endpoint({
  method: 'GET',
  path: '/workspaces/:id/sandbox-credentials',
  operationId: 'listSandboxCredentials',
  tags: ['sandbox credentials'],
  summary: 'List sandbox credentials',
  description:
    "The workspace's sandbox credentials, newest first, active and revoked, without key material (`apiKeyHint` and the OAuth `clientId`s identify them). Members and SUPER_ADMINs. 503 when payments does not answer.",
  params: IdParams,
  response: { 200: ok(Type.Array(SandboxCredentialSummary)) },
  errors: [401, 403, 404, 503],
});

export const issueSandboxCredentials = endpoint({
  method: 'POST',
  path: '/workspaces/:id/sandbox-credentials',
  operationId: 'issueSandboxCredentials',
  tags: ['sandbox credentials'],
  summary: 'Issue sandbox credentials',
  description: [
    'Payments mints a sandbox platform for the workspace with a v1 API key (`apiKey`) and an OAuth client for v2 (`oauthClient`).',
    'Both secrets are in this answer only; Holdfast keeps hashes. No body. An ADMIN of the workspace or a SUPER_ADMIN.',
    'Only for an `active` workspace: a new (`pending`) workspace gets credentials once a Holdfast operator approves it (sets `status: active`);',
    'until then, and for a `suspended` or `inactive` one, 403 `FORBIDDEN` with `details.reason: "workspace_not_active"` and nothing is minted.',
    `At most ${SANDBOX_CREDENTIAL_LIMITS.active} active per workspace (409 \`CONFLICT\`) and ${SANDBOX_CREDENTIAL_LIMITS.issuedPerWindow} issued per hour (429 \`RATE_LIMIT_EXCEEDED\` with \`Retry-After\`; revoked ones count).`,
    '503 `UPSTREAM_UNAVAILABLE` when payments did not answer: if it issued credentials anyway they are revoked within about a minute, and the attempt counts against the limits until then.',
  ].join(' '),
  params: IdParams,
  response: { 201: ok(SandboxCredential) },
  errors: [401, 403, 404, 409, 503],
});

export const revokeSandboxCredentials = endpoint({
  method: 'DELETE',
  path: '/workspaces/:id/sandbox-credentials/:platformId',
  operationId: 'revokeSandboxCredentials',
  tags: ['sandbox credentials'],
  summary: 'Revoke sandbox credentials',
  description:
    "Payments deactivates the platform: its API key stops working and its OAuth clients' tokens are revoked, on every instance within a second; the platform's webhooks are deactivated. 404 for a credential that is not the workspace's or already revoked; 503 (nothing changed) when payments does not answer. An ADMIN of the workspace or a SUPER_ADMIN.",
  params: SandboxCredentialParams,
  response: { 204: NoContent },
  errors: [401, 403, 404, 503],
});

// avatars (host root)

export const getAvatar = publicEndpoint({
  method: 'GET',
  path: '/avatars/:file',
  operationId: 'getAvatar',
  tags: ['files'],
  summary: 'An uploaded avatar image',
  description: 'Avatar paths (`avatarPath` of users and workspaces) point here. The file never changes: a new upload gets a new name.',
  params: AvatarFileParams,
  response: { 200: AvatarFileResponse },
  errors: [404],
});

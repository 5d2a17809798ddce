// The Workspace API: identity and sessions, users, workspaces, audit logs, catalogs, customers,
// wallets, integrations, notifications, settings, and its transaction views.
export * from './audit.js';
export * from './audit-actions.js';
export * from './avatars.js';
export * from './catalog.js';
export * from './common.js';
export * from './customers.js';
export { WORKSPACE_ACCESS, type WorkspaceAccess, type WorkspaceEndpoint } from './endpoints/define.js';
export * as workspaceEndpoints from './endpoints/index.js';
export * from './identity.js';
export * from './integrations.js';
export * from './notifications.js';
export * from './settings.js';
export * from './transactions.js';
export * from './users.js';
export * from './wallets.js';
export * from './workspaces.js';

// The Workspace API's endpoint catalogue (see define.ts), one file per resource mirroring the
// service's modules; imported as `workspaceEndpoints`.
export * from './audit.js';
export * from './customers.js';
export { BEARER, CUSTOMER_BEARER, INTERNAL_KEY, WORKSPACE_KEY } from './define.js';
export * from './integrations.js';
export * from './notifications.js';
export * from './oauth-clients.js';
export * from './sandbox-credentials.js';
export * from './sessions.js';
export * from './settings.js';
export * from './storage.js';
export * from './transactions.js';
export * from './users.js';
export * from './wallets.js';
export * from './webhooks.js';
export * from './workspaces.js';

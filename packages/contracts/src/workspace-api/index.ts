// Workspace API schemas (sessions, users, workspaces, audit logs, catalogs): issue 7.
export * from './audit.js';
export * from './catalog.js';
export * from './common.js';
export * from './identity.js';
export * from './users.js';
export * from './workspaces.js';

// The Workspace API's endpoint catalogue (see define.ts); imported as `workspaceEndpoints`.
export * from './administration.js';
export * from './customers.js';
export { BEARER, CUSTOMER_BEARER, INTERNAL_KEY, WORKSPACE_KEY } from './define.js';

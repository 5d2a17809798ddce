export { type WorkspaceConfig, workspaceConfigFrom } from './config.js';
export { createWorkspaceService, type WorkspaceOverrides } from './service.js';

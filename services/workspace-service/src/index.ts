export { type WorkspaceConfig, workspaceConfigFrom } from './config.js';
export { createWorkspaceService } from './service.js';

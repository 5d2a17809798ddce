import { runProcess } from '@holdfast/runtime';
import { loadWorkspaceConfig, SERVICE_NAME } from './config.js';
import { createWorkspaceService } from './service.js';

await runProcess({
  serviceName: SERVICE_NAME,
  loadConfig: loadWorkspaceConfig,
  port: (c) => c.WORKSPACE_PORT,
  create: createWorkspaceService,
});

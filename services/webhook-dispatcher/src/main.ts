import { runProcess } from '@holdfast/runtime';
import { loadDispatcherConfig, SERVICE_NAME } from './config.js';
import { createDispatcherService } from './service.js';

await runProcess({
  serviceName: SERVICE_NAME,
  loadConfig: loadDispatcherConfig,
  port: (c) => c.DISPATCHER_PORT,
  create: createDispatcherService,
});

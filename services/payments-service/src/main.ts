import { runProcess } from '@holdfast/runtime';
import { loadPaymentsConfig, SERVICE_NAME } from './config.js';
import { createPaymentsService } from './service.js';

await runProcess({
  serviceName: SERVICE_NAME,
  loadConfig: loadPaymentsConfig,
  port: (c) => c.PAYMENTS_PORT,
  create: createPaymentsService,
});

import { exitOnUnhandled, runUntilSignalled } from '@holdfast/http-kit';
import { createLogger } from '@holdfast/logging';
import { loadPaymentsConfig, SERVICE_NAME } from './config.js';
import { createPaymentsService } from './service.js';

const config = loadPaymentsConfig();
const logger = createLogger({ service: SERVICE_NAME, level: config.LOG_LEVEL });
exitOnUnhandled(logger);

const service = await createPaymentsService(config, logger);
await runUntilSignalled({
  app: service.app,
  host: config.HOST,
  port: config.PAYMENTS_PORT,
  logger,
  onListening: service.startWorkers,
  closers: service.closers,
  shutdownTimeoutMs: config.shutdownTimeoutMs,
});

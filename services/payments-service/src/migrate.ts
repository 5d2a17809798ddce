import { fileURLToPath } from 'node:url';
import { runMigrations } from '@holdfast/db';
import { createLogger } from '@holdfast/logging';
import { loadPaymentsConfig, SERVICE_NAME } from './config.js';
import { SCHEMA_NAME } from './db/schema.js';

/** Applies payments' committed migrations (also run by ./scripts/start and a container's init step). */
const config = loadPaymentsConfig();
const logger = createLogger({ service: SERVICE_NAME, level: config.LOG_LEVEL });
await runMigrations({
  url: config.DATABASE_URL,
  schemaName: SCHEMA_NAME,
  migrationsFolder: fileURLToPath(new URL('../drizzle', import.meta.url)),
  logger,
});

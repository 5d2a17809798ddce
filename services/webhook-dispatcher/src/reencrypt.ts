import { runReencryptOf } from '@holdfast/runtime';
import { loadDispatcherConfig, SERVICE_NAME } from './config.js';
import { SCHEMA_NAME } from './db/schema.js';
import { SEALED_COLUMNS } from './db/sealed-columns.js';

// `pnpm --filter @holdfast/webhook-dispatcher reencrypt` (docs/operations.md#rotating-data_encryption_key).
await runReencryptOf({
  serviceName: SERVICE_NAME,
  schemaName: SCHEMA_NAME,
  loadConfig: loadDispatcherConfig,
  columns: SEALED_COLUMNS,
});

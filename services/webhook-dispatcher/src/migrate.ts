import { runMigrationsOf } from '@holdfast/runtime';
import { loadDispatcherConfig, SERVICE_NAME } from './config.js';
import { SCHEMA_NAME } from './db/schema.js';

await runMigrationsOf({ serviceName: SERVICE_NAME, schemaName: SCHEMA_NAME, loadConfig: loadDispatcherConfig, moduleUrl: import.meta.url });

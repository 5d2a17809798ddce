import { runMigrationsOf } from '@holdfast/runtime';
import { loadWorkspaceConfig, SERVICE_NAME } from './config.js';
import { SCHEMA_NAME } from './db/schema.js';

await runMigrationsOf({ serviceName: SERVICE_NAME, schemaName: SCHEMA_NAME, loadConfig: loadWorkspaceConfig, moduleUrl: import.meta.url });

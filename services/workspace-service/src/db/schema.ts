// Every table of workspace-service, for drizzle (queries) and drizzle-kit (migrations).
import { outboxTable, rateLimitCountersTable } from '@holdfast/db';
import { workspaceSchema } from './pg-schema.js';

// drizzle-kit writes CREATE SCHEMA only for an exported pgSchema.
export { SCHEMA_NAME, workspaceSchema } from './pg-schema.js';
export const outbox = outboxTable(workspaceSchema);
export const rateLimitCounters = rateLimitCountersTable(workspaceSchema);

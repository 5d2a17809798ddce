// Every table of webhook-dispatcher, for drizzle (queries) and drizzle-kit (migrations).
export * from '../modules/deliveries/tables.js';
export * from '../modules/intake/tables.js';
export * from '../modules/subscriptions/tables.js';
// drizzle-kit writes CREATE SCHEMA only for an exported pgSchema.
export { SCHEMA_NAME, webhooksSchema } from './pg-schema.js';

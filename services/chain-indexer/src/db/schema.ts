// Every table of chain-indexer, for drizzle (queries) and drizzle-kit (migrations).
export * from '../modules/cursors/tables.js';
// drizzle-kit writes CREATE SCHEMA only for an exported pgSchema.
export { indexerSchema, SCHEMA_NAME } from './pg-schema.js';

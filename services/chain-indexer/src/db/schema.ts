// Every table of chain-indexer, for drizzle (queries) and drizzle-kit (migrations).
export * from '../modules/indexing/tables.js';
// drizzle-kit writes CREATE SCHEMA only for an exported pgSchema.
export { indexerSchema, SCHEMA_NAME } from './pg-schema.js';

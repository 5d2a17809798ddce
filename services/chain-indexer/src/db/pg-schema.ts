import { pgSchema } from 'drizzle-orm/pg-core';

/** The one PostgreSQL schema chain-indexer owns; every table of the service lives in it. */
export const SCHEMA_NAME = 'indexer';
export const indexerSchema = pgSchema(SCHEMA_NAME);

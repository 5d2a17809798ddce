import { pgSchema } from 'drizzle-orm/pg-core';

/** The one PostgreSQL schema workspace-service owns; every table of the service lives in it. */
export const SCHEMA_NAME = 'workspace';
export const workspaceSchema = pgSchema(SCHEMA_NAME);

import { pgSchema } from 'drizzle-orm/pg-core';

/** The one PostgreSQL schema webhook-dispatcher owns; every table of the service lives in it. */
export const SCHEMA_NAME = 'webhooks';
export const webhooksSchema = pgSchema(SCHEMA_NAME);

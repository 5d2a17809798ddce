import { pgSchema } from 'drizzle-orm/pg-core';

/** The one PostgreSQL schema payments-service owns; every table of the service lives in it. */
export const SCHEMA_NAME = 'payments';
export const paymentsSchema = pgSchema(SCHEMA_NAME);

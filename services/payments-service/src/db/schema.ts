import { outboxTable } from '@holdfast/db';
import { pgSchema } from 'drizzle-orm/pg-core';

/** The one PostgreSQL schema payments-service owns. Every table of the service lives in it. */
export const paymentsSchema = pgSchema('payments');
export const SCHEMA_NAME = 'payments';

export const outbox = outboxTable(paymentsSchema);

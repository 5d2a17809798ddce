import { jsonb, timestamp } from 'drizzle-orm/pg-core';

// Columns the services' tables spell the same way (engineering.md, "Database access").

/** A point in time: `timestamptz`, read and written as a `Date` (engineering.md, "Time"). */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** When the row was written. */
export const createdAt = () => timestamptz('created_at').notNull().defaultNow();

/** When the row last changed (the repository sets it on every update). */
export const updatedAt = () => timestamptz('updated_at').notNull().defaultNow();

/**
 * The same `timestamptz` typed as the ISO 8601 text of an answer: payments-service's tables, whose
 * queries are postgres.js templates and whose API answers ISO strings.
 */
export const timestamptzString = (name: string) => timestamp(name, { withTimezone: true, mode: 'string' });

/** `createdAt()` of a table with `timestamptzString` columns. */
export const createdAtString = () => timestamptzString('created_at').notNull().defaultNow();

/** `updatedAt()` of a table with `timestamptzString` columns. */
export const updatedAtString = () => timestamptzString('updated_at').notNull().defaultNow();

/** Free-form JSON a caller attaches to the row, `{}` when none. */
export const metadataColumn = () => jsonb('metadata').$type<Record<string, unknown>>().notNull().default({});

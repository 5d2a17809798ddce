import { type AnyPgColumn, jsonb, timestamp, uuid } from 'drizzle-orm/pg-core';

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

/**
 * A row's parent: the `uuid` id of a row of another table (`parentId`, a function so that a table may
 * name one declared after it), which the row needs. The parent cannot be deleted while rows refer to
 * it (no ON DELETE action): payments' platforms and transactions, which are kept for good.
 */
export const reference = (name: string, parentId: () => AnyPgColumn) => uuid(name).notNull().references(parentId);

/** `cascadingReference` of a row that may have no parent (a global setting, a shared contract). */
export const optionalCascadingReference = (name: string, parentId: () => AnyPgColumn) =>
  uuid(name).references(parentId, { onDelete: 'cascade' });

/**
 * A row's parent, with which the row is deleted (ON DELETE CASCADE): a workspace's data, a
 * subscription's deliveries. Chain `.primaryKey()` for a row that extends its parent one to one.
 */
export const cascadingReference = (name: string, parentId: () => AnyPgColumn) => optionalCascadingReference(name, parentId).notNull();

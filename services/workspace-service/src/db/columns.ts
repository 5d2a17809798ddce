import { jsonb, timestamp } from 'drizzle-orm/pg-core';

// Columns every table of the service spells the same way.

/** A point in time: `timestamptz`, read and written as a `Date` (engineering.md, "Time"). */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** When the row was written. */
export const createdAt = () => timestamptz('created_at').notNull().defaultNow();

/** When the row last changed (the repository sets it on every update). */
export const updatedAt = () => timestamptz('updated_at').notNull().defaultNow();

/** Free-form JSON a caller attaches to the row, `{}` when none. */
export const metadataColumn = () => jsonb('metadata').$type<Record<string, unknown>>().notNull().default({});

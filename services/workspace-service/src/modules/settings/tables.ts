import { createdAt, optionalCascadingReference, updatedAt } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, check, index, text, unique, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';
import { workspaces } from '../workspaces/tables.js';

/**
 * Key/value settings: a workspace's own (`workspace_id` set) or platform-wide (`workspace_id`
 * null, the global settings). A key is unique within its scope (nulls not distinct: one global
 * row per key). An encrypted value is sealed with AES-256-GCM bound to the row id and never
 * returned.
 */
export const settings = workspaceSchema.table(
  'settings',
  {
    id: uuid('id').primaryKey(),
    workspaceId: optionalCascadingReference('workspace_id', () => workspaces.id),
    key: text('key').notNull(),
    /** The value, or its sealed form when `is_encrypted`. */
    value: text('value').notNull(),
    isEncrypted: boolean('is_encrypted').notNull().default(false),
    category: text('category').notNull().default('general'),
    description: text('description'),
    createdBy: uuid('created_by'),
    updatedBy: uuid('updated_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('settings_scope_key_unique').on(t.workspaceId, t.key).nullsNotDistinct(),
    index('settings_scope_category_idx').on(t.workspaceId, t.category, t.key),
    check('settings_key_check', sql`${t.key} ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'`),
  ],
);

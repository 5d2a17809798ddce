import type { PlatformMappingKind, PlatformMappingStatus } from '@holdfast/contracts';
import { sql } from 'drizzle-orm';
import { check, index, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';
import { workspaces } from '../workspaces/tables.js';

/**
 * Workspace -> payments platform links. A platform (API key holder, OAuth clients) lives in
 * payments-service; this row says which workspace it serves. Written when sandbox (or production)
 * credentials are issued, marked revoked when they are revoked.
 */
export const platformMappings = workspaceSchema.table(
  'platform_mappings',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    platformId: uuid('platform_id').notNull(),
    kind: text('kind').$type<PlatformMappingKind>().notNull(),
    name: text('name').notNull(),
    status: text('status').$type<PlatformMappingStatus>().notNull().default('active'),
    createdBy: uuid('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('platform_mappings_platform_unique').on(t.platformId),
    index('platform_mappings_workspace_idx').on(t.workspaceId, t.kind, t.createdAt),
    check('platform_mappings_kind_check', sql`${t.kind} in ('sandbox', 'production')`),
    check('platform_mappings_status_check', sql`${t.status} in ('active', 'revoked')`),
  ],
);

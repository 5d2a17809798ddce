import { createdAt, timestamptz } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { check, index, text, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';
import { workspaceIdColumn } from '../workspaces/tables.js';

export const ISSUANCE_STATUSES = ['pending', 'completed', 'failed', 'abandoned'] as const;
export type IssuanceStatus = (typeof ISSUANCE_STATUSES)[number];

/**
 * Each request for sandbox credentials, written (and counted against the limits) before payments
 * is asked to mint them. `pending` until the answer is recorded: `completed` (the platform is
 * mapped), `failed` (payments minted nothing), `abandoned` (payments minted a platform that was
 * then deactivated because its mapping could not be written). The name is unique per issuance:
 * it finds the platform in payments when the answer was lost.
 */
export const sandboxIssuances = workspaceSchema.table(
  'sandbox_issuances',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceIdColumn(),
    name: text('name').notNull(),
    requestedBy: uuid('requested_by'),
    status: text('status').$type<IssuanceStatus>().notNull().default('pending'),
    platformId: uuid('platform_id'),
    createdAt: createdAt(),
    resolvedAt: timestamptz('resolved_at'),
  },
  (t) => [
    index('sandbox_issuances_workspace_idx').on(t.workspaceId, t.status),
    check('sandbox_issuances_status_check', sql`${t.status} in ('pending', 'completed', 'failed', 'abandoned')`),
  ],
);

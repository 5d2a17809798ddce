import { createdAt, metadataColumn } from '@holdfast/db';
import { bigserial, boolean, index, jsonb, text, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';

/**
 * The audit trail: one row per mutating call (success or refusal). No foreign keys on purpose:
 * entries outlive the users and workspaces they name.
 */
export const auditLogs = workspaceSchema.table(
  'audit_logs',
  {
    /** Insertion order, for stable paging among entries of the same millisecond. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    id: uuid('id').primaryKey(),
    userId: uuid('user_id'),
    workspaceId: uuid('workspace_id'),
    action: text('action').notNull(),
    resourceType: text('resource_type').notNull(),
    resourceId: text('resource_id'),
    details: text('details'),
    changes: jsonb('changes').$type<Record<string, unknown>>(),
    success: boolean('success').notNull(),
    errorMessage: text('error_message'),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    metadata: metadataColumn(),
    createdAt: createdAt(),
  },
  (t) => [
    index('audit_logs_created_idx').on(t.createdAt, t.seq),
    index('audit_logs_workspace_idx').on(t.workspaceId, t.createdAt),
    index('audit_logs_user_idx').on(t.userId, t.createdAt),
    index('audit_logs_action_idx').on(t.action, t.createdAt),
  ],
);

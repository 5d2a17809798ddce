import { createdAt, metadataColumn, timestamptz, updatedAt } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { check, index, jsonb, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';
import { workspaceIdColumn } from '../workspaces/tables.js';

/** Outcome of the last check of the stored config: what `status` is derived from (with `disabled_at`). */
export type IntegrationCheckState = 'unchecked' | 'passed' | 'failed';

/**
 * A workspace's integrations: at most one per catalog kind (`integration_id`, a kind of
 * INTEGRATION_CATALOG in contracts; the catalog lives in code, so there is no foreign key).
 * `config` holds the non-secret fields; the secret ones are sealed together in `secrets_sealed`
 * (AES-256-GCM, bound to the row id) and never leave the service.
 */
export const workspaceIntegrations = workspaceSchema.table(
  'workspace_integrations',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceIdColumn(),
    integrationId: uuid('integration_id').notNull(),
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    secretsSealed: text('secrets_sealed'),
    /** Names of the secret fields that are set (names are not secret): answers mask these. */
    secretFields: text('secret_fields').array().notNull().default(sql`'{}'::text[]`),
    checkState: text('check_state').$type<IntegrationCheckState>().notNull().default('unchecked'),
    errorMessage: text('error_message'),
    lastValidatedAt: timestamptz('last_validated_at'),
    disabledAt: timestamptz('disabled_at'),
    metadata: metadataColumn(),
    createdBy: uuid('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('workspace_integrations_kind_unique').on(t.workspaceId, t.integrationId),
    index('workspace_integrations_workspace_idx').on(t.workspaceId, t.createdAt),
    check('workspace_integrations_check_state_check', sql`${t.checkState} in ('unchecked', 'passed', 'failed')`),
  ],
);

import type { ExternalWalletType } from '@holdfast/contracts';
import { createdAt, updatedAt } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, check, jsonb, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../../db/pg-schema.js';
import { workspaceIdColumn } from '../../workspaces/tables.js';

/**
 * Browser wallet connectors a workspace offers its customers, one row per (workspace, type).
 * `settings` holds the public fields (projectId, appName, appLogoUrl); the RPC provider key is
 * sealed apart. Deleted with the workspace (ON DELETE CASCADE).
 */
export const externalWalletConfigs = workspaceSchema.table(
  'external_wallet_configs',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceIdColumn(),
    providerType: text('provider_type').$type<ExternalWalletType>().notNull(),
    isEnabled: boolean('is_enabled').notNull().default(false),
    allowedNetworks: jsonb('allowed_networks').$type<string[]>().notNull().default([]),
    allowedTemplateIds: jsonb('allowed_template_ids').$type<string[]>().notNull().default([]),
    settings: jsonb('settings').$type<{ projectId?: string; appName?: string; appLogoUrl?: string }>().notNull().default({}),
    rpcProviderApiKeySealed: text('rpc_provider_api_key_sealed'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('external_wallet_configs_type_idx').on(t.workspaceId, t.providerType),
    check(
      'external_wallet_configs_type_ck',
      sql`provider_type in ('EXTERNAL_WALLET_1', 'EXTERNAL_WALLET_2', 'EXTERNAL_WALLET_3', 'EXTERNAL_WALLET_4')`,
    ),
  ],
);
export type ExternalWalletConfigRow = typeof externalWalletConfigs.$inferSelect;

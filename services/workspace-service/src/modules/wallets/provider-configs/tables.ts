import type { CustodyProviderType, Network } from '@holdfast/contracts';
import { createdAt, metadataColumn, optionalCascadingReference, updatedAt } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../../db/pg-schema.js';
import { workspaces } from '../../workspaces/tables.js';

/**
 * Custody vendor configurations, per workspace or global. `config_sealed` holds the credential
 * object sealed with AES-256-GCM (bound to the row id); it never leaves the service.
 * A workspace's configs go with it (ON DELETE CASCADE).
 */
export const walletProviderConfigs = workspaceSchema.table(
  'wallet_provider_configs',
  {
    id: uuid('id').primaryKey(),
    workspaceId: optionalCascadingReference('workspace_id', () => workspaces.id),
    isGlobal: boolean('is_global').notNull().default(false),
    providerType: text('provider_type').$type<CustodyProviderType>().notNull(),
    providerName: text('provider_name').notNull(),
    walletSetId: text('wallet_set_id'),
    defaultWalletId: text('default_wallet_id'),
    isActive: boolean('is_active').notNull().default(true),
    isDefault: boolean('is_default').notNull().default(false),
    supportedNetworks: jsonb('supported_networks').$type<Network[]>().notNull().default([]),
    metadata: metadataColumn(),
    configSealed: text('config_sealed').notNull(),
    version: integer('version').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  () => [
    check('wallet_provider_configs_scope_ck', sql`is_global = (workspace_id is null)`),
    check('wallet_provider_configs_type_ck', sql`provider_type in ('CUSTODY_A', 'CUSTODY_B', 'CUSTODY_C', 'CUSTODY_D')`),
    // One default per scope: per workspace, and one among the global configs (the nil uuid stands for them).
    uniqueIndex('wallet_provider_configs_one_default_idx')
      .on(sql`coalesce(workspace_id, '00000000-0000-0000-0000-000000000000'::uuid)`)
      .where(sql`is_default`),
    index('wallet_provider_configs_scope_idx').on(sql`workspace_id`, sql`provider_type`),
  ],
);
export type WalletProviderConfigRow = typeof walletProviderConfigs.$inferSelect;

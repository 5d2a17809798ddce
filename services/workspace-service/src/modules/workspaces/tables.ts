import type {
  BillingPlan,
  Currency,
  Network,
  PlatformMappingKind,
  PlatformMappingStatus,
  WalletProvider,
  WorkspaceStatus,
} from '@holdfast/contracts';
import { cascadingReference, createdAt, metadataColumn, timestamptz, updatedAt } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, check, index, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';

/**
 * Tenants. Every table holding a workspace's data references this one with ON DELETE CASCADE, so
 * deleting a workspace removes its data in one statement (audit logs excepted: they are the trace).
 */
export const workspaces = workspaceSchema.table(
  'workspaces',
  {
    id: uuid('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    email: text('email').notNull(),
    status: text('status').$type<WorkspaceStatus>().notNull().default('pending'),
    avatarPath: text('avatar_path'),
    webhookUrl: text('webhook_url'),
    walletProvider: text('wallet_provider').$type<WalletProvider>(),
    walletId: text('wallet_id'),
    custodyCOrganizationId: text('custody_c_organization_id'),
    metadata: metadataColumn(),
    billingEnabled: boolean('billing_enabled').notNull().default(false),
    createdBy: uuid('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('workspaces_slug_unique').on(t.slug),
    index('workspaces_created_idx').on(t.createdAt, t.id),
    check('workspaces_status_check', sql`${t.status} in ('active', 'inactive', 'suspended', 'pending')`),
    check('workspaces_slug_check', sql`${t.slug} ~ '^[a-z0-9-]+$' and length(${t.slug}) <= 255`),
  ],
);

/** The workspace a row belongs to: the row is deleted with it. */
export const workspaceIdColumn = () => cascadingReference('workspace_id', () => workspaces.id);

/** Billing of a workspace; a missing row means the defaults (plan `sandbox`, no contact details). */
export const workspaceBilling = workspaceSchema.table('workspace_billing', {
  workspaceId: workspaceIdColumn().primaryKey(),
  plan: text('plan').$type<BillingPlan>().notNull().default('sandbox'),
  billingEmail: text('billing_email'),
  companyName: text('company_name'),
  taxId: text('tax_id'),
  updatedBy: uuid('updated_by'),
  updatedAt: updatedAt(),
});

/** Wallet settings beyond the provider fields kept on the workspace; a missing row means the defaults. */
export const workspaceWalletSettings = workspaceSchema.table('workspace_wallet_settings', {
  workspaceId: workspaceIdColumn().primaryKey(),
  defaultNetwork: text('default_network').$type<Network>(),
  enabledNetworks: text('enabled_networks').array().$type<Network[]>().notNull().default(sql`'{}'::text[]`),
  defaultCurrency: text('default_currency').$type<Currency>(),
  autoCreateCustomerWallets: boolean('auto_create_customer_wallets').notNull().default(false),
  updatedBy: uuid('updated_by'),
  updatedAt: updatedAt(),
});

/**
 * Workspace -> payments platform links. A platform (API key holder, OAuth clients) lives in
 * payments-service; this row says which workspace it serves. Written when sandbox (or production)
 * credentials are issued, marked revoked when they are revoked.
 */
export const platformMappings = workspaceSchema.table(
  'platform_mappings',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceIdColumn(),
    platformId: uuid('platform_id').notNull(),
    kind: text('kind').$type<PlatformMappingKind>().notNull(),
    name: text('name').notNull(),
    status: text('status').$type<PlatformMappingStatus>().notNull().default('active'),
    createdBy: uuid('created_by'),
    createdAt: createdAt(),
    revokedAt: timestamptz('revoked_at'),
  },
  (t) => [
    uniqueIndex('platform_mappings_platform_unique').on(t.platformId),
    index('platform_mappings_workspace_idx').on(t.workspaceId, t.kind, t.createdAt),
    check('platform_mappings_kind_check', sql`${t.kind} in ('sandbox', 'production')`),
    check('platform_mappings_status_check', sql`${t.status} in ('active', 'revoked')`),
  ],
);

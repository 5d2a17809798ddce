import type { V1Scope } from '@holdfast/contracts';
import { createdAtString, reference, timestamptzString, updatedAtString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';

/** A platform: the holder of one API key and of OAuth clients; optionally a workspace's. */
export const platforms = paymentsSchema.table(
  'platforms',
  {
    id: uuid('id').primaryKey(),
    name: text('name').notNull(),
    workspaceId: uuid('workspace_id'),
    sandbox: boolean('sandbox').notNull().default(false),
    /** The platform PAYMENTS_BOOTSTRAP_API_KEY ensures at start (at most one). */
    bootstrap: boolean('bootstrap').notNull().default(false),
    webhookUrl: text('webhook_url'),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    scopes: text('scopes').array().$type<V1Scope[]>().notNull(),
    isActive: boolean('is_active').notNull().default(true),
    deactivatedAt: timestamptzString('deactivated_at'),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [
    index('platforms_workspace_idx').on(t.workspaceId, t.createdAt),
    uniqueIndex('platforms_bootstrap_unique').on(t.bootstrap).where(sql`bootstrap`),
  ],
);

/** The platform a row belongs to. */
export const platformIdColumn = () => reference('platform_id', () => platforms.id);

/**
 * API keys, stored only as SHA-256 of the key (keys carry 256 random bits; see
 * docs/adr/0002-credential-verification.md). A platform has one current key; regenerating
 * revokes the old one.
 */
export const apiKeys = paymentsSchema.table(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    platformId: platformIdColumn(),
    keyHash: text('key_hash').notNull(),
    /** `hf_test_Ab3d…x9Qz`: enough to recognise a key, useless to use it. */
    hint: text('hint').notNull(),
    createdAt: createdAtString(),
    revokedAt: timestamptzString('revoked_at'),
  },
  (t) => [
    uniqueIndex('api_keys_hash_unique').on(t.keyHash),
    uniqueIndex('api_keys_one_current_per_platform').on(t.platformId).where(sql`revoked_at is null`),
  ],
);

import type { GrantType, Scope } from '@holdfast/contracts';
import { createdAtString, reference, timestamptzString, updatedAtString } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, index, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { platformIdColumn } from '../platforms/tables.js';

/** OAuth 2.0 clients of a platform; the secret is stored only as its SHA-256. */
export const oauthClients = paymentsSchema.table(
  'oauth_clients',
  {
    id: uuid('id').primaryKey(),
    clientId: text('client_id').notNull(),
    secretHash: text('secret_hash').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    platformId: platformIdColumn(),
    /** The platform's workspace, copied so a workspace's clients are one indexed lookup. */
    workspaceId: uuid('workspace_id'),
    scopes: text('scopes').array().$type<Scope[]>().notNull(),
    grantTypes: text('grant_types').array().$type<GrantType[]>().notNull(),
    redirectUris: text('redirect_uris').array().notNull().default(sql`'{}'::text[]`),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
    /** Deleted clients are kept for their tokens' history and are invisible everywhere. */
    deletedAt: timestamptzString('deleted_at'),
  },
  (t) => [
    uniqueIndex('oauth_clients_client_id_unique').on(t.clientId),
    index('oauth_clients_workspace_idx').on(t.workspaceId, t.createdAt),
    index('oauth_clients_platform_idx').on(t.platformId),
  ],
);

/** Opaque access tokens (client credentials grant), stored only as SHA-256 of the token. */
export const oauthTokens = paymentsSchema.table(
  'oauth_tokens',
  {
    id: uuid('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    clientPk: reference('client_pk', () => oauthClients.id),
    platformId: uuid('platform_id').notNull(),
    scopes: text('scopes').array().$type<Scope[]>().notNull(),
    issuedAt: timestamptzString('issued_at').notNull().defaultNow(),
    expiresAt: timestamptzString('expires_at').notNull(),
    revokedAt: timestamptzString('revoked_at'),
  },
  (t) => [
    uniqueIndex('oauth_tokens_hash_unique').on(t.tokenHash),
    index('oauth_tokens_client_idx').on(t.clientPk, t.expiresAt),
    index('oauth_tokens_platform_live_idx').on(t.platformId).where(sql`revoked_at is null`),
    /** The retention sweeper's scan (modules/retention). */
    index('oauth_tokens_expires_idx').on(t.expiresAt),
  ],
);

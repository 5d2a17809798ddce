import type { CustomerStatus } from '@holdfast/contracts';
import { sql } from 'drizzle-orm';
import { boolean, check, date, index, jsonb, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';
import { workspaces } from '../workspaces/tables.js';

/**
 * A workspace's customers: created by its administrators (no password: they cannot log in) or
 * registered by themselves (with a password). The e-mail address is unique within the workspace;
 * the same person may be a customer of several workspaces, as separate records.
 */
export const customers = workspaceSchema.table(
  'customers',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    externalId: text('external_id'),
    /** Lower-cased on the way in. */
    email: text('email').notNull(),
    /** argon2id, as for users; null for a customer an administrator created. */
    passwordHash: text('password_hash'),
    firstName: text('first_name'),
    lastName: text('last_name'),
    phoneNumber: text('phone_number'),
    dateOfBirth: date('date_of_birth', { mode: 'string' }),
    address: text('address'),
    city: text('city'),
    state: text('state'),
    postalCode: text('postal_code'),
    country: text('country'),
    status: text('status').$type<CustomerStatus>().notNull().default('active'),
    emailVerified: boolean('email_verified').notNull().default(false),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    lastLoginAt: timestamp('last_login_at', { withTimezone: true, mode: 'date' }),
    createdBy: uuid('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('customers_workspace_email_unique').on(t.workspaceId, t.email),
    uniqueIndex('customers_workspace_external_id_unique').on(t.workspaceId, t.externalId).where(sql`${t.externalId} is not null`),
    index('customers_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id),
    index('customers_created_idx').on(t.createdAt, t.id),
    check('customers_status_check', sql`${t.status} in ('active', 'inactive', 'suspended', 'pending')`),
    check('customers_email_lower_check', sql`${t.email} = lower(${t.email})`),
  ],
);

/**
 * A customer's login: the family of refresh tokens it issued (the same model as user sessions,
 * docs/workspace-sessions-and-roles.md). Revoking it retires every token of the family.
 */
export const customerSessions = workspaceSchema.table(
  'customer_sessions',
  {
    id: uuid('id').primaryKey(),
    customerId: uuid('customer_id')
      .notNull()
      .references(() => customers.id, { onDelete: 'cascade' }),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    revokedReason: text('revoked_reason'),
  },
  (t) => [index('customer_sessions_customer_idx').on(t.customerId)],
);

/** Customer refresh tokens, stored only as SHA-256 hashes; used once (`rotatedAt`). */
export const customerRefreshTokens = workspaceSchema.table(
  'customer_refresh_tokens',
  {
    id: uuid('id').primaryKey(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => customerSessions.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    rotatedAt: timestamp('rotated_at', { withTimezone: true, mode: 'date' }),
    replacedBy: uuid('replaced_by'),
  },
  (t) => [
    uniqueIndex('customer_refresh_tokens_hash_unique').on(t.tokenHash),
    index('customer_refresh_tokens_session_idx').on(t.sessionId),
    /** The retention sweeper's scan (modules/retention). */
    index('customer_refresh_tokens_expires_idx').on(t.expiresAt),
  ],
);

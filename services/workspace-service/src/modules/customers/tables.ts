import type { CustomerStatus } from '@holdfast/contracts';
import { cascadingReference, createdAt, metadataColumn, timestamptz, updatedAt } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, check, date, index, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';
import { refreshTokenTable, sessionColumns } from '../sessions/tables.js';
import { workspaceIdColumn } from '../workspaces/tables.js';

/**
 * A workspace's customers: created by its administrators (no password: they cannot log in) or
 * registered by themselves (with a password). The e-mail address is unique within the workspace;
 * the same person may be a customer of several workspaces, as separate records.
 */
export const customers = workspaceSchema.table(
  'customers',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceIdColumn(),
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
    metadata: metadataColumn(),
    lastLoginAt: timestamptz('last_login_at'),
    createdBy: uuid('created_by'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
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
    customerId: cascadingReference('customer_id', () => customers.id),
    ...sessionColumns(),
  },
  (t) => [index('customer_sessions_customer_idx').on(t.customerId)],
);

/** Customer refresh tokens: the same as users' (`rotatedAt` marks one spent). */
export const customerRefreshTokens = refreshTokenTable('customer_refresh_tokens', customerSessions);

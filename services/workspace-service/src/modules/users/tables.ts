import type { UserRole, UserStatus } from '@holdfast/contracts';
import { createdAt, timestamptz, updatedAt } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';
import { workspaces } from '../workspaces/tables.js';

/** What a self-service sign-up told us, kept for the operators who review new accounts. */
export interface SignupDetails {
  companyName?: string;
  intendedUseCase?: string;
  waitlistReason?: string;
}

/** People who use the Workspace API. A user belongs to at most one workspace. */
export const users = workspaceSchema.table(
  'users',
  {
    id: uuid('id').primaryKey(),
    /** Lower-cased on the way in; unique. */
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    role: text('role').$type<UserRole>().notNull(),
    status: text('status').$type<UserStatus>().notNull().default('active'),
    workspaceId: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'set null' }),
    emailVerified: boolean('email_verified').notNull().default(false),
    avatarPath: text('avatar_path'),
    signupDetails: jsonb('signup_details').$type<SignupDetails>(),
    lastLoginAt: timestamptz('last_login_at'),
    passwordChangedAt: timestamptz('password_changed_at').notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(t.email),
    index('users_workspace_idx').on(t.workspaceId, t.createdAt),
    check('users_role_check', sql`${t.role} in ('SUPER_ADMIN', 'ADMIN', 'CLIENT')`),
    check('users_status_check', sql`${t.status} in ('active', 'inactive', 'suspended')`),
    check('users_email_lower_check', sql`${t.email} = lower(${t.email})`),
  ],
);

import type { SessionEnvironment } from '@holdfast/contracts';
import { index, integer, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';
import { users } from '../users/tables.js';

/**
 * A login: the family of refresh tokens it issued. Revoking the session (logout, reuse of a
 * rotated token, password change, suspension) retires every token of the family at once.
 */
export const sessions = workspaceSchema.table(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    environment: text('environment').$type<SessionEnvironment>().notNull(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    revokedReason: text('revoked_reason'),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

/** Refresh tokens, stored only as SHA-256 hashes. A token is used once; `rotatedAt` marks it spent. */
export const refreshTokens = workspaceSchema.table(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    rotatedAt: timestamp('rotated_at', { withTimezone: true, mode: 'date' }),
    replacedBy: uuid('replaced_by'),
  },
  (t) => [
    uniqueIndex('refresh_tokens_hash_unique').on(t.tokenHash),
    index('refresh_tokens_session_idx').on(t.sessionId),
    /** The retention sweeper's scan (modules/retention). */
    index('refresh_tokens_expires_idx').on(t.expiresAt),
  ],
);

/** E-mail verification codes (6 digits), stored as keyed hashes; one live code per user. */
export const verificationCodes = workspaceSchema.table('verification_codes', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  codeHash: text('code_hash').notNull(),
  attempts: integer('attempts').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
});

/**
 * Failed logins per account and client address (`email_hash` is SHA-256 of both, customers' with
 * their workspace): from the 5th failure within 15 minutes each failure locks that pair for 1 s,
 * 2 s, 4 s... up to 15 minutes. Failures from an attacker's address never lock the owner out.
 */
export const loginThrottles = workspaceSchema.table('login_throttles', {
  emailHash: text('email_hash').primaryKey(),
  failures: integer('failures').notNull(),
  windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
  lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
});

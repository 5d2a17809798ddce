import type { SessionEnvironment } from '@holdfast/contracts';
import { cascadingReference, createdAt, timestamptz } from '@holdfast/db';
import type { BuildColumns } from 'drizzle-orm';
import { type AnyPgColumn, index, integer, type PgTableWithColumns, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';
import { users } from '../users/tables.js';

/** What a session of either kind (a user's, a customer's) records besides whose it is. */
export const sessionColumns = () => ({
  ipAddress: text('ip_address'),
  userAgent: text('user_agent'),
  createdAt: createdAt(),
  lastUsedAt: timestamptz('last_used_at').notNull().defaultNow(),
  revokedAt: timestamptz('revoked_at'),
  revokedReason: text('revoked_reason'),
});

/**
 * The refresh tokens of one kind of session (table `name`), stored only as SHA-256 hashes. A token
 * is used once; `rotatedAt` marks it spent.
 */
export function refreshTokenTable<TName extends string>(name: TName, sessionTable: { id: AnyPgColumn }) {
  return workspaceSchema.table(
    name,
    {
      id: uuid('id').primaryKey(),
      sessionId: cascadingReference('session_id', () => sessionTable.id),
      tokenHash: text('token_hash').notNull(),
      createdAt: createdAt(),
      expiresAt: timestamptz('expires_at').notNull(),
      rotatedAt: timestamptz('rotated_at'),
      replacedBy: uuid('replaced_by'),
    },
    (t) => [
      uniqueIndex(`${name}_hash_unique`).on(t.tokenHash),
      index(`${name}_session_idx`).on(t.sessionId),
      /** The retention sweeper's scan (modules/retention). */
      index(`${name}_expires_idx`).on(t.expiresAt),
    ],
  );
}

/**
 * A session table of either kind (users' `sessions`, customers' `customer_sessions`) as the
 * statements both run see it: its `id` and sessionColumns(). Both tables are of this type.
 */
export type SessionFamilyTable = PgTableWithColumns<{
  name: string;
  schema: string | undefined;
  dialect: 'pg';
  columns: BuildColumns<string, { id: ReturnType<ReturnType<typeof uuid>['primaryKey']> } & ReturnType<typeof sessionColumns>, 'pg'>;
}>;

/** A refresh-token table of either kind: refreshTokenTable() of any name. */
export type RefreshTokenFamilyTable = ReturnType<typeof refreshTokenTable<string>>;

/**
 * A login: the family of refresh tokens it issued. Revoking the session (logout, reuse of a
 * rotated token, password change, suspension) retires every token of the family at once.
 */
export const sessions = workspaceSchema.table(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    userId: cascadingReference('user_id', () => users.id),
    environment: text('environment').$type<SessionEnvironment>().notNull(),
    ...sessionColumns(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

export const refreshTokens = refreshTokenTable('refresh_tokens', sessions);

/**
 * E-mail verification codes (6 digits), stored as keyed hashes; one live code per user. The account's
 * totals outlive each code (`codes_issued`, `failed_total`): a new code every minute reset the 5
 * attempts, so the million codes could be tried 5 a minute for ever.
 */
export const verificationCodes = workspaceSchema.table('verification_codes', {
  userId: cascadingReference('user_id', () => users.id).primaryKey(),
  codeHash: text('code_hash').notNull(),
  attempts: integer('attempts').notNull().default(0),
  /** Codes this account was sent (sign-up and resends): at most VERIFICATION_CODES_PER_ACCOUNT. */
  codesIssued: integer('codes_issued').notNull().default(1),
  /** Wrong codes over all of them: at most VERIFICATION_FAILURES_PER_ACCOUNT. */
  failedTotal: integer('failed_total').notNull().default(0),
  createdAt: createdAt(),
  expiresAt: timestamptz('expires_at').notNull(),
});

/**
 * Failed logins per account and client address (`email_hash` is SHA-256 of both, customers' with
 * their workspace): from the 5th failure within 15 minutes each failure locks that pair for 1 s,
 * 2 s, 4 s... up to 15 minutes. Failures from an attacker's address never lock the owner out.
 */
export const loginThrottles = workspaceSchema.table('login_throttles', {
  emailHash: text('email_hash').primaryKey(),
  failures: integer('failures').notNull(),
  windowStart: timestamptz('window_start').notNull(),
  lockedUntil: timestamptz('locked_until'),
});

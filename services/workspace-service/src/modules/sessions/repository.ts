import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { findRow, insertRow } from '../../db/queries.js';
import type { Executor } from '../../db/store.js';
import type { PrincipalChanges } from '../access/index.js';
import { users } from '../users/index.js';
import { workspaces } from '../workspaces/index.js';
import {
  loginThrottles,
  type RefreshTokenFamilyTable,
  refreshTokens,
  type SessionFamilyTable,
  sessions,
  verificationCodes,
} from './tables.js';

export type SessionRow = typeof sessions.$inferSelect;
export type RefreshTokenRow = typeof refreshTokens.$inferSelect;
export type VerificationCodeRow = typeof verificationCodes.$inferSelect;

/** Failed logins of one account from one client address before the back-off starts. */
export const LOGIN_FAILURE_LIMIT = 5;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;
/** The longest back-off: it doubles from 1 s with each failure past the limit, up to this. */
export const LOGIN_LOCK_MS = 15 * 60_000;

/**
 * A family of sessions and their refresh tokens: users' or customers', both built from
 * sessionColumns() and refreshTokenTable(), so both are of the family types of sessions/tables.ts.
 */
interface SessionFamily {
  sessions: SessionFamilyTable;
  tokens: RefreshTokenFamilyTable;
}

/** The statements both session families run the same way. */
export function sessionFamilyStatements(db: Executor, family: SessionFamily) {
  const { sessions: s, tokens: t } = family;
  return {
    insertRefreshToken: async (row: RefreshTokenFamilyTable['$inferInsert']): Promise<void> => {
      await db.insert(t).values(row);
    },

    markRotated: async (tokenId: string, replacedBy: string): Promise<void> => {
      await db.update(t).set({ rotatedAt: new Date(), replacedBy }).where(eq(t.id, tokenId));
    },

    /** Ends the session unless it already ended. */
    revokeSession: async (id: string, reason: string): Promise<void> => {
      await db
        .update(s)
        .set({ revokedAt: new Date(), revokedReason: reason })
        .where(and(eq(s.id, id), isNull(s.revokedAt)));
    },
  };
}

/** `principals`: told of every session revoked (in the revoking transaction), for the principal cache. */
export function createSessionsRepository(db: Executor, principals: PrincipalChanges) {
  const family = sessionFamilyStatements(db, { sessions, tokens: refreshTokens });
  return {
    insertRefreshToken: family.insertRefreshToken,
    markRotated: family.markRotated,

    createSession: async (row: typeof sessions.$inferInsert): Promise<SessionRow> => {
      return insertRow(db, sessions, row);
    },

    /** The token with its session, locked for the rest of the transaction (two refreshes of one token serialise). */
    findTokenForUpdate: async (tokenHash: string): Promise<{ token: RefreshTokenRow; session: SessionRow } | undefined> => {
      const [row] = await db
        .select({ token: refreshTokens, session: sessions })
        .from(refreshTokens)
        .innerJoin(sessions, eq(sessions.id, refreshTokens.sessionId))
        .where(eq(refreshTokens.tokenHash, tokenHash))
        .for('update');
      return row;
    },

    touchSession: async (id: string, patch: { environment?: SessionRow['environment'] }): Promise<void> => {
      await db
        .update(sessions)
        .set({ lastUsedAt: new Date(), ...patch })
        .where(eq(sessions.id, id));
    },

    revokeSession: async (id: string, reason: string): Promise<void> => {
      await family.revokeSession(id, reason);
      await principals.changed(db, [`session:${id}`]);
    },

    /** Ends every session of a user (password change, suspension), optionally but one. Returns how many. */
    revokeUserSessions: async (userId: string, reason: string, exceptSessionId?: string): Promise<number> => {
      const rows = await db
        .update(sessions)
        .set({ revokedAt: new Date(), revokedReason: reason })
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), exceptSessionId ? ne(sessions.id, exceptSessionId) : undefined))
        .returning({ id: sessions.id });
      await principals.changed(db, [`user:${userId}`]);
      return rows.length;
    },

    /** The user behind a token and the token's session (in one query; `sessionId` is null when that session does not exist). */
    findActor: async (userId: string, sessionId: string) => {
      const [row] = await db
        .select({
          id: users.id,
          email: users.email,
          role: users.role,
          status: users.status,
          workspaceId: users.workspaceId,
          workspaceStatus: workspaces.status,
          sessionId: sessions.id,
          sessionRevokedReason: sessions.revokedReason,
          sessionRevokedAt: sessions.revokedAt,
        })
        .from(users)
        .leftJoin(workspaces, eq(workspaces.id, users.workspaceId))
        .leftJoin(sessions, and(eq(sessions.id, sessionId), eq(sessions.userId, users.id)))
        .where(eq(users.id, userId));
      return row;
    },

    saveVerificationCode: async (userId: string, codeHash: string, expiresAt: Date): Promise<void> => {
      await db
        .insert(verificationCodes)
        .values({ userId, codeHash, expiresAt, attempts: 0 })
        // A new code resets its own attempts, never the account's totals.
        .onConflictDoUpdate({
          target: verificationCodes.userId,
          set: { codeHash, expiresAt, attempts: 0, createdAt: new Date(), codesIssued: sql`${verificationCodes.codesIssued} + 1` },
        });
    },

    findVerificationCodeForUpdate: async (userId: string): Promise<VerificationCodeRow | undefined> => {
      return findRow(db, verificationCodes, eq(verificationCodes.userId, userId), 'update');
    },

    countVerificationAttempt: async (userId: string): Promise<void> => {
      await db
        .update(verificationCodes)
        .set({ attempts: sql`${verificationCodes.attempts} + 1`, failedTotal: sql`${verificationCodes.failedTotal} + 1` })
        .where(eq(verificationCodes.userId, userId));
    },

    deleteVerificationCode: async (userId: string): Promise<void> => {
      await db.delete(verificationCodes).where(eq(verificationCodes.userId, userId));
    },

    /** When the address is locked after too many failed logins: until when. */
    loginLockedUntil: async (emailHash: string): Promise<Date | null> => {
      const [row] = await db
        .select({ lockedUntil: loginThrottles.lockedUntil })
        .from(loginThrottles)
        .where(eq(loginThrottles.emailHash, emailHash));
      return row?.lockedUntil && row.lockedUntil.getTime() > Date.now() ? row.lockedUntil : null;
    },

    /**
     * Counts a failed login (a fresh window when the last one is over); from the limit on, each
     * failure locks the key for 1 s, 2 s, 4 s... up to LOGIN_LOCK_MS (exponential back-off).
     */
    recordLoginFailure: async (emailHash: string): Promise<void> => {
      const windowSeconds = LOGIN_FAILURE_WINDOW_MS / 1000;
      const lockSeconds = LOGIN_LOCK_MS / 1000;
      await db.execute(sql`
        insert into ${loginThrottles} (email_hash, failures, window_start, locked_until)
        values (${emailHash}, 1, now(), null)
        on conflict (email_hash) do update set
          failures = case when ${loginThrottles.windowStart} < now() - make_interval(secs => ${windowSeconds})
            then 1 else ${loginThrottles.failures} + 1 end,
          window_start = case when ${loginThrottles.windowStart} < now() - make_interval(secs => ${windowSeconds})
            then now() else ${loginThrottles.windowStart} end,
          locked_until = case
            when ${loginThrottles.windowStart} >= now() - make_interval(secs => ${windowSeconds})
              and ${loginThrottles.failures} + 1 >= ${LOGIN_FAILURE_LIMIT}
            then now() + make_interval(secs => least(power(2, ${loginThrottles.failures} + 1 - ${LOGIN_FAILURE_LIMIT}), ${lockSeconds}))
            else ${loginThrottles.lockedUntil} end`);
    },

    clearLoginFailures: async (emailHash: string): Promise<void> => {
      await db.delete(loginThrottles).where(eq(loginThrottles.emailHash, emailHash));
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;

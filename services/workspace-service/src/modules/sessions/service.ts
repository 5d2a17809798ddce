import {
  type AppEnv,
  AppError,
  conflict,
  type LoginBody,
  type LogoutBody,
  notFound,
  type RefreshBody,
  type SessionEnvironment,
  type SessionTokens,
  type SignupBody,
  type UserRecord,
  unauthorized,
  uuidv7,
  type VerifyCodeBody,
  validationError,
} from '@holdfast/contracts';
import { clientAddressGroup } from '@holdfast/http-kit';
import type { Logger } from '@holdfast/logging';
import { safeEqual, sha256 } from '@holdfast/secrets';
import type { Store } from '../../db/store.js';
import {
  type AccessClaims,
  type AccessTokens,
  type Actor,
  assertSessionLive,
  type Caller,
  createTimingEqualiser,
  hashPassword,
  issueRefreshToken,
  loginLockedError,
  newVerificationCode,
  type PrincipalCache,
  passwordPolicyErrors,
  refreshTokenHash,
  refuseRefresh,
  rotateRefreshToken,
  verifyPassword,
} from '../access/index.js';
import { AUDIT, type AuditRepository, type AuditService, diffChanges } from '../audit/index.js';
import { type Mailer, MailerError } from '../mailer/index.js';
import { auditedUser, isDuplicateEmail, normalizeEmail, toUserRecord, type UserRow, type UsersRepository } from '../users/index.js';
import { closedWorkspaceError, isClosedWorkspace } from '../workspaces/index.js';
import type { SessionsRepository } from './repository.js';

export const VERIFICATION_CODE_TTL_MS = 15 * 60_000;
export const VERIFICATION_MAX_ATTEMPTS = 5;
export const VERIFICATION_RESEND_COOLDOWN_MS = 60_000;
/**
 * The account's ceilings over all its codes: at most 10 codes and 20 wrong ones, ever (unverified
 * accounts are removed by retention; an operator can verify one by hand). Before, each new code
 * reset the attempts: 5 guesses a minute without end.
 */
export const VERIFICATION_CODES_PER_ACCOUNT = 10;
export const VERIFICATION_FAILURES_PER_ACCOUNT = 20;

export interface SessionsRepos {
  users: UsersRepository;
  sessions: SessionsRepository;
  audit: AuditRepository;
}

export interface SessionsDeps {
  store: Store<SessionsRepos>;
  audit: AuditService;
  tokens: AccessTokens;
  mailer: Mailer;
  hashCode: (userId: string, code: string) => string;
  appEnv: AppEnv;
  refreshTokenTtlMs: number;
  logger: Logger;
  /** Keeps the user and session behind an access token between requests (revocations drop them at once). */
  principals: Pick<PrincipalCache, 'lookup'>;
}

const invalidCode = () => new AppError('INVALID_CODE', 'The verification code is wrong, expired or used up; request a new one');
/** User refresh tokens: `hfr_` + 32 random bytes. */
const REFRESH_TOKEN_PREFIX = 'hfr_';

function sameHash(a: string, b: string): boolean {
  return safeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/**
 * The throttle key of a user login: the account and the client address together, so failures from
 * an attacker's address back off that address only and never lock the owner out from its own.
 */
function loginThrottleKey(email: string, clientAddress: string | null): string {
  // An IPv6 client by its /64: one host holds a whole /64 and would otherwise get a fresh back-off per address.
  return sha256(`user:${email}|${clientAddress ? clientAddressGroup(clientAddress) : 'unknown'}`);
}

/**
 * Sign-up with e-mail verification, logins, refresh-token rotation with reuse detection, logout,
 * and the identity of a bearer. Access tokens are JWTs (1 hour); refresh tokens are opaque, stored
 * hashed, single use, grouped per login in a session whose revocation retires them all.
 */
export function createSessionsService(deps: SessionsDeps) {
  const { store, audit, tokens } = deps;
  /** Codes are shown in answers only where no real inbox is involved. */
  const returnsCodes = deps.appEnv !== 'production';
  const verifyAgainstNothing = createTimingEqualiser();

  async function deliverCode(email: string, code: string): Promise<void> {
    try {
      await deps.mailer.send({
        to: email,
        subject: 'Your Holdfast verification code',
        text: `Your Holdfast verification code is ${code}. It expires in ${VERIFICATION_CODE_TTL_MS / 60_000} minutes.\n\nIf you did not sign up, ignore this e-mail.`,
        tag: 'verification_code',
      });
    } catch (error) {
      if (error instanceof MailerError) {
        throw new AppError('SERVICE_UNAVAILABLE', 'The verification e-mail could not be sent; nothing was changed, try again', undefined, {
          'Retry-After': '5',
        });
      }
      throw error;
    }
  }

  /** A new session (refresh-token family) for the user, with its first tokens. */
  async function openSession(repos: SessionsRepos, caller: Caller, user: UserRow, environment: SessionEnvironment) {
    const session = await repos.sessions.createSession({
      id: uuidv7(),
      userId: user.id,
      environment,
      ipAddress: caller.ipAddress,
      userAgent: caller.userAgent,
    });
    const issued = await issueTokens(repos, user, session.id, environment);
    return { session, ...issued };
  }

  const refreshOptions = { ttlMs: deps.refreshTokenTtlMs, prefix: REFRESH_TOKEN_PREFIX };

  async function issueTokens(repos: SessionsRepos, user: UserRow, sessionId: string, environment: SessionEnvironment) {
    const issued = await issueRefreshToken(repos.sessions, sessionId, refreshOptions);
    const accessToken = tokens.sign({ sub: user.id, sid: sessionId, env: environment, typ: 'access' });
    return { ...issued, accessToken };
  }

  function sessionResult(
    user: UserRow,
    issued: { accessToken: string; refreshToken: string; refreshTokenExpiresAt: Date },
    environment: SessionEnvironment,
  ): SessionTokens {
    return {
      user: toUserRecord(user),
      accessToken: issued.accessToken,
      refreshToken: issued.refreshToken,
      tokenType: 'Bearer',
      expiresIn: tokens.expiresInSeconds,
      refreshTokenExpiresAt: issued.refreshTokenExpiresAt.toISOString(),
      environment,
    };
  }

  return {
    /** Creates an ADMIN without a workspace, unverified, and issues a code (sent by e-mail; shown outside production). */
    signup: async (caller: Caller, body: SignupBody) => {
      const email = normalizeEmail(body.email);
      const problems = passwordPolicyErrors(body.password, 'password');
      if (problems.length > 0) throw validationError(problems);
      const passwordHash = await hashPassword(body.password);
      const code = newVerificationCode();
      const expiresAt = new Date(Date.now() + VERIFICATION_CODE_TTL_MS);
      try {
        const user = await store.transaction(async (repos) => {
          if (await repos.users.findByEmail(email)) throw conflict('An account with this e-mail already exists', { field: 'email' });
          const row = await repos.users.insert({
            id: uuidv7(),
            email,
            passwordHash,
            firstName: body.firstName,
            lastName: body.lastName,
            role: 'ADMIN',
            status: 'active',
            workspaceId: null,
            emailVerified: false,
            signupDetails: {
              ...(body.companyName !== undefined ? { companyName: body.companyName } : {}),
              ...(body.intendedUseCase !== undefined ? { intendedUseCase: body.intendedUseCase } : {}),
              ...(body.waitlistReason !== undefined ? { waitlistReason: body.waitlistReason } : {}),
            },
          });
          await repos.sessions.saveVerificationCode(row.id, deps.hashCode(row.id, code), expiresAt);
          await audit.record(repos, caller, AUDIT.signup, {
            userId: row.id,
            workspaceId: null,
            resourceId: row.id,
            details: `Signed up as ${email}`,
            changes: diffChanges({}, auditedUser(row)),
            metadata: { signupDetails: row.signupDetails },
          });
          // Last, so a mail that cannot be sent undoes the sign-up and the client can simply retry.
          await deliverCode(email, code);
          return row;
        });
        return {
          user: toUserRecord(user),
          verificationExpiresAt: expiresAt.toISOString(),
          ...(returnsCodes ? { verificationCode: code } : {}),
        };
      } catch (error) {
        if (isDuplicateEmail(error)) throw conflict('An account with this e-mail already exists', { field: 'email' });
        throw error;
      }
    },

    /**
     * Confirms the e-mail address. A wrong code counts an attempt (5 at most); the code is consumed
     * only by the transaction that verifies, so a failure on our side leaves it usable.
     */
    verifyCode: async (caller: Caller, body: VerifyCodeBody) => {
      const email = normalizeEmail(body.email);
      const outcome = await store.transaction(async (repos) => {
        const user = await repos.users.findByEmail(email);
        if (!user) return { ok: false as const, user: undefined };
        if (user.emailVerified) {
          await audit.record(repos, caller, AUDIT.verifyEmail, {
            userId: user.id,
            workspaceId: user.workspaceId,
            resourceId: user.id,
            details: `${email} was already verified`,
          });
          return { ok: true as const, user };
        }
        const stored = await repos.sessions.findVerificationCodeForUpdate(user.id);
        if (
          !stored ||
          stored.expiresAt.getTime() <= Date.now() ||
          stored.attempts >= VERIFICATION_MAX_ATTEMPTS ||
          stored.failedTotal >= VERIFICATION_FAILURES_PER_ACCOUNT
        ) {
          return { ok: false as const, user };
        }
        if (!sameHash(deps.hashCode(user.id, body.code), stored.codeHash)) {
          await repos.sessions.countVerificationAttempt(user.id);
          return { ok: false as const, user };
        }
        await repos.sessions.deleteVerificationCode(user.id);
        const verified = await repos.users.update(user.id, { emailVerified: true });
        await audit.record(repos, caller, AUDIT.verifyEmail, {
          userId: user.id,
          workspaceId: user.workspaceId,
          resourceId: user.id,
          details: `Verified ${email}`,
          changes: diffChanges({ emailVerified: false }, { emailVerified: true }),
        });
        return { ok: true as const, user: verified };
      });
      if (!outcome.ok) {
        await audit.recordFailure(caller, AUDIT.verifyEmail, {
          userId: outcome.user?.id ?? null,
          workspaceId: outcome.user?.workspaceId ?? null,
          resourceId: outcome.user?.id ?? null,
          errorMessage: invalidCode().message,
          statusCode: 400,
          errorCode: 'INVALID_CODE',
          metadata: { email },
        });
        throw invalidCode();
      }
      return { email, emailVerified: true as const };
    },

    /** A new code for an unverified account (at most one a minute). Unknown or verified addresses get the same answer. */
    resendCode: async (caller: Caller, body: { email: string }) => {
      const email = normalizeEmail(body.email);
      const message = 'If an unverified account exists for this address, a new code was sent';
      const code = newVerificationCode();
      const expiresAt = new Date(Date.now() + VERIFICATION_CODE_TTL_MS);
      const sent = await store.transaction(async (repos) => {
        const user = await repos.users.findByEmail(email);
        if (!user || user.emailVerified) {
          await audit.record(repos, caller, AUDIT.resendCode, {
            userId: user?.id ?? null,
            workspaceId: null,
            details: 'No code sent',
            metadata: { email },
          });
          return false;
        }
        const previous = await repos.sessions.findVerificationCodeForUpdate(user.id);
        if (
          previous &&
          (previous.codesIssued >= VERIFICATION_CODES_PER_ACCOUNT || previous.failedTotal >= VERIFICATION_FAILURES_PER_ACCOUNT)
        ) {
          // The same answer as for an unknown address: the ceiling is not announced to whoever asks.
          await audit.record(repos, caller, AUDIT.resendCode, {
            userId: user.id,
            workspaceId: user.workspaceId,
            resourceId: user.id,
            details: 'No code sent: the account reached its verification code ceiling',
            metadata: { email, codesIssued: previous.codesIssued, failedTotal: previous.failedTotal },
          });
          return false;
        }
        const waitMs = previous ? previous.createdAt.getTime() + VERIFICATION_RESEND_COOLDOWN_MS - Date.now() : 0;
        if (waitMs > 0) {
          const seconds = Math.ceil(waitMs / 1000);
          throw new AppError(
            'RATE_LIMIT_EXCEEDED',
            `A code was sent less than a minute ago; retry in ${seconds} s`,
            { retryAfterSeconds: seconds },
            {
              'Retry-After': String(seconds),
            },
          );
        }
        await repos.sessions.saveVerificationCode(user.id, deps.hashCode(user.id, code), expiresAt);
        await audit.record(repos, caller, AUDIT.resendCode, {
          userId: user.id,
          workspaceId: user.workspaceId,
          resourceId: user.id,
          details: `New verification code for ${email}`,
        });
        await deliverCode(email, code);
        return true;
      });
      return sent && returnsCodes ? { message, verificationExpiresAt: expiresAt.toISOString(), verificationCode: code } : { message };
    },

    login: async (caller: Caller, body: LoginBody): Promise<SessionTokens> => {
      const email = normalizeEmail(body.email);
      const key = loginThrottleKey(email, caller.ipAddress);
      const environment = body.environment ?? 'sandbox';
      const refuse = async (error: AppError, user: UserRow | undefined) => {
        await audit.recordFailure(caller, AUDIT.login, {
          userId: user?.id ?? null,
          workspaceId: user?.workspaceId ?? null,
          errorMessage: error.message,
          statusCode: error.statusCode,
          errorCode: error.code,
          metadata: { email },
        });
        return error;
      };

      const lockedUntil = await store.repos.sessions.loginLockedUntil(key);
      if (lockedUntil) throw await refuse(loginLockedError(lockedUntil), undefined);
      const user = await store.repos.users.findByEmail(email);
      let passwordOk = false;
      if (user) passwordOk = await verifyPassword(user.passwordHash, body.password);
      else await verifyAgainstNothing(body.password);
      if (!user || !passwordOk) {
        await store.repos.sessions.recordLoginFailure(key);
        throw await refuse(new AppError('INVALID_CREDENTIALS', 'Invalid e-mail or password'), user);
      }
      if (!user.emailVerified) {
        throw await refuse(
          new AppError('UNAUTHORIZED', 'The e-mail address is not verified yet; POST /auth/verify-code first', {
            reason: 'email_not_verified',
          }),
          user,
        );
      }
      if (user.status !== 'active') {
        throw await refuse(new AppError('UNAUTHORIZED', `The account is ${user.status}`, { reason: `account_${user.status}` }), user);
      }
      await store.repos.sessions.clearLoginFailures(key);
      return store.transaction(async (repos) => {
        const current = await repos.users.touchLogin(user.id);
        const opened = await openSession(repos, caller, current, environment);
        await audit.record(repos, caller, AUDIT.login, {
          userId: user.id,
          workspaceId: user.workspaceId,
          resourceId: opened.session.id,
          details: `Logged in (${environment})`,
          metadata: { environment },
        });
        return sessionResult(current, opened, environment);
      });
    },

    /**
     * Rotates a refresh token. A token used a second time means it leaked (or the client lost a
     * race it should not run): the whole session is revoked and both holders must log in again.
     */
    refresh: async (caller: Caller, body: RefreshBody): Promise<SessionTokens> => {
      const outcome = await store.transaction(async (repos) => {
        const found = await repos.sessions.findTokenForUpdate(refreshTokenHash(body.refreshToken));
        const refusal = await refuseRefresh(repos.sessions, found);
        if (refusal) {
          if (!found) return { error: refusal.error };
          const facts = { userId: found.session.userId, resourceId: found.session.id };
          if (!refusal.reuse) return { error: refusal.error, facts };
          deps.logger.warn({ sessionId: found.session.id, userId: found.session.userId }, 'refresh token reuse detected; session revoked');
          return { error: refusal.error, facts: { ...facts, metadata: { reuseDetected: true } } };
        }
        const { session } = found!;
        const facts = { userId: session.userId, resourceId: session.id };
        const user = await repos.users.findById(session.userId);
        if (user?.status !== 'active' || !user.emailVerified) {
          await repos.sessions.revokeSession(session.id, 'account_unavailable');
          return { error: unauthorized('The account is unknown or not active'), facts };
        }
        const environment = body.environment ?? session.environment;
        const rotated = await rotateRefreshToken(repos.sessions, found!, refreshOptions);
        const issued = { ...rotated, accessToken: tokens.sign({ sub: user.id, sid: session.id, env: environment, typ: 'access' }) };
        await repos.sessions.touchSession(session.id, { environment });
        await audit.record(repos, caller, AUDIT.refresh, {
          userId: user.id,
          workspaceId: user.workspaceId,
          resourceId: session.id,
          details: `Refreshed the session (${environment})`,
        });
        return { result: sessionResult(user, issued, environment) };
      });
      if ('result' in outcome && outcome.result) return outcome.result;
      const error = outcome.error!;
      const facts = 'facts' in outcome ? outcome.facts : undefined;
      const user = facts ? await store.repos.users.findById(facts.userId) : undefined;
      await audit.recordFailure(caller, AUDIT.refresh, {
        ...facts,
        workspaceId: user?.workspaceId ?? null,
        userId: facts?.userId ?? null,
        errorMessage: error.message,
        statusCode: error.statusCode,
        errorCode: error.code,
      });
      throw error;
    },

    /** Ends the session of this refresh token at once (its access tokens live until they expire). Idempotent. */
    logout: async (caller: Caller, body: LogoutBody) => {
      await store.transaction(async (repos) => {
        const found = await repos.sessions.findTokenForUpdate(refreshTokenHash(body.refreshToken));
        if (found && !found.session.revokedAt) await repos.sessions.revokeSession(found.session.id, 'logout');
        const user = found ? await repos.users.findById(found.session.userId) : undefined;
        await audit.record(repos, caller, AUDIT.logout, {
          userId: user?.id ?? null,
          workspaceId: user?.workspaceId ?? null,
          resourceId: found?.session.id ?? null,
          details: found ? 'Logged out' : 'Logout with an unknown or already ended session',
        });
      });
      return { message: 'Logged out; the refresh token no longer works' };
    },

    me: async (actor: Actor): Promise<UserRecord> => {
      const user = await store.repos.users.findById(actor.id);
      if (!user) throw notFound('User');
      return toUserRecord(user);
    },

    /** The current user behind valid access-token claims, or null when it is gone or not active. */
    actorFor: async (claims: AccessClaims): Promise<Actor | null> => {
      const row = await deps.principals.lookup(
        `actor ${claims.sub} ${claims.sid}`,
        () => store.repos.sessions.findActor(claims.sub, claims.sid),
        (found) => [`user:${found.id}`, `session:${claims.sid}`, ...(found.workspaceId ? [`workspace:${found.workspaceId}` as const] : [])],
      );
      if (row?.status !== 'active') return null;
      assertSessionLive(
        { exists: row.sessionId !== null, revokedAt: row.sessionRevokedAt, revokedReason: row.sessionRevokedReason },
        'access',
      );
      // A suspended or inactive workspace's members are refused on every route (an operator is not).
      if (row.role !== 'SUPER_ADMIN' && row.workspaceStatus && isClosedWorkspace(row.workspaceStatus)) {
        throw closedWorkspaceError(row.workspaceStatus);
      }
      return { id: row.id, email: row.email, role: row.role, workspaceId: row.workspaceId, sessionId: claims.sid, environment: claims.env };
    },

    /** `WORKSPACE_BOOTSTRAP_EMAIL/PASSWORD`: makes sure this SUPER_ADMIN exists, is active and has this password. */
    ensureSuperAdmin: async (emailInput: string, password: string): Promise<'created' | 'updated' | 'unchanged'> => {
      const email = normalizeEmail(emailInput);
      const caller: Caller = {
        actor: null,
        ipAddress: null,
        userAgent: null,
        requestId: 'startup',
        method: 'STARTUP',
        path: 'WORKSPACE_BOOTSTRAP_EMAIL',
        audited: false,
      };
      const existing = await store.repos.users.findByEmail(email);
      if (!existing) {
        const passwordHash = await hashPassword(password);
        try {
          await store.transaction(async (repos) => {
            const row = await repos.users.insert({
              id: uuidv7(),
              email,
              passwordHash,
              role: 'SUPER_ADMIN',
              status: 'active',
              emailVerified: true,
              firstName: 'Super',
              lastName: 'Admin',
            });
            await audit.record(repos, caller, AUDIT.bootstrap, {
              userId: row.id,
              workspaceId: null,
              resourceId: row.id,
              details: `Bootstrap SUPER_ADMIN ${email} created`,
              changes: diffChanges({}, auditedUser(row)),
            });
          });
          return 'created';
        } catch (error) {
          // Another instance starting at the same time created it: fall through to the check below.
          if (!isDuplicateEmail(error)) throw error;
        }
      }
      const user = (await store.repos.users.findByEmail(email))!;
      const patch: Partial<UserRow> = {};
      if (user.role !== 'SUPER_ADMIN') patch.role = 'SUPER_ADMIN';
      if (user.status !== 'active') patch.status = 'active';
      if (!user.emailVerified) patch.emailVerified = true;
      const passwordMatches = await verifyPassword(user.passwordHash, password);
      if (!passwordMatches) {
        patch.passwordHash = await hashPassword(password);
        patch.passwordChangedAt = new Date();
      }
      if (Object.keys(patch).length === 0) return 'unchanged';
      await store.transaction(async (repos) => {
        const updated = await repos.users.update(user.id, patch);
        if (!passwordMatches) await repos.sessions.revokeUserSessions(user.id, 'password_changed');
        await audit.record(repos, caller, AUDIT.bootstrap, {
          userId: user.id,
          workspaceId: updated.workspaceId,
          resourceId: user.id,
          details: `Bootstrap SUPER_ADMIN ${email} updated`,
          changes: { ...diffChanges(auditedUser(user), auditedUser(updated)), ...(passwordMatches ? {} : { password: '[redacted]' }) },
        });
      });
      return 'updated';
    },
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;

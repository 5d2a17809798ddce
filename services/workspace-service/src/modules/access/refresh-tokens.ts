import { AppError, unauthorized, uuidv7 } from '@holdfast/contracts';
import { randomToken, tokenHash } from '@holdfast/secrets';

/**
 * The refresh-token model both kinds of session share (users at /identity/*, customers at
 * /workspaces/{id}/customers/auth/*): opaque tokens stored only as SHA-256, single use, grouped
 * per login in a session (a "family") whose revocation retires them all, and a token used twice
 * revoking its family. Each kind keeps its own tables; this is the logic over them.
 */

/** Where a kind of session keeps its refresh tokens. */
export interface RefreshTokenStore {
  insertRefreshToken: (row: { id: string; sessionId: string; tokenHash: string; expiresAt: Date }) => Promise<void>;
  markRotated: (tokenId: string, replacedBy: string) => Promise<void>;
  revokeSession: (sessionId: string, reason: string) => Promise<void>;
}

/** A presented token as found (locked) with its session. */
export interface PresentedToken {
  token: { id: string; expiresAt: Date; rotatedAt: Date | null };
  session: { id: string; revokedAt: Date | null };
}

export interface IssuedRefreshToken {
  refreshToken: string;
  refreshTokenId: string;
  refreshTokenExpiresAt: Date;
}

/** The hash a refresh token is stored and looked up under. */
export function refreshTokenHash(token: string): string {
  return tokenHash(token);
}

/** A new refresh token of the session, stored hashed; the token itself is returned once. */
export async function issueRefreshToken(
  store: RefreshTokenStore,
  sessionId: string,
  options: { ttlMs: number; prefix: string },
): Promise<IssuedRefreshToken> {
  const refreshToken = randomToken(options.prefix);
  const refreshTokenId = uuidv7();
  const refreshTokenExpiresAt = new Date(Date.now() + options.ttlMs);
  await store.insertRefreshToken({
    id: refreshTokenId,
    sessionId,
    tokenHash: refreshTokenHash(refreshToken),
    expiresAt: refreshTokenExpiresAt,
  });
  return { refreshToken, refreshTokenId, refreshTokenExpiresAt };
}

export type RefreshRefusal = {
  error: AppError;
  /** The token was used before: it leaked (or a client raced itself). Its session is now revoked. */
  reuse: boolean;
};

/**
 * Whether a presented refresh token may be exchanged: null when it may, else why not. A token
 * used a second time revokes its whole session (both holders must log in again). `loginHint`
 * tells the caller where to log in again.
 */
export async function refuseRefresh(
  store: RefreshTokenStore,
  found: PresentedToken | undefined,
  loginHint = 'log in again',
): Promise<RefreshRefusal | null> {
  if (!found) return { error: unauthorized(`Invalid refresh token; ${loginHint}`), reuse: false };
  if (found.session.revokedAt) return { error: unauthorized(`The session has ended; ${loginHint}`), reuse: false };
  if (found.token.rotatedAt) {
    await store.revokeSession(found.session.id, 'refresh_token_reuse');
    return {
      error: new AppError('UNAUTHORIZED', `This refresh token was already used; the session is revoked, ${loginHint}`, {
        reason: 'refresh_token_reuse',
      }),
      reuse: true,
    };
  }
  if (found.token.expiresAt.getTime() <= Date.now()) {
    return { error: new AppError('TOKEN_EXPIRED', `The refresh token has expired; ${loginHint}`), reuse: false };
  }
  return null;
}

/** Rotates: a new token in the same session, the presented one marked used and pointing at it. */
export async function rotateRefreshToken(
  store: RefreshTokenStore,
  found: PresentedToken,
  options: { ttlMs: number; prefix: string },
): Promise<IssuedRefreshToken> {
  const issued = await issueRefreshToken(store, found.session.id, options);
  await store.markRotated(found.token.id, issued.refreshTokenId);
  return issued;
}

/** 429 for an address locked after too many failed logins (users and customers alike). */
export function loginLockedError(lockedUntil: Date, what = 'this account'): AppError {
  const seconds = Math.max(1, Math.ceil((lockedUntil.getTime() - Date.now()) / 1000));
  return new AppError(
    'RATE_LIMIT_EXCEEDED',
    `Too many failed logins for ${what}; retry in ${seconds} s`,
    { retryAfterSeconds: seconds },
    { 'Retry-After': String(seconds) },
  );
}

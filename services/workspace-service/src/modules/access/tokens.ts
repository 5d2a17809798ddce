import { createHash, createHmac, randomBytes, randomInt } from 'node:crypto';
import { ACCESS_TOKEN_TTL_SECONDS, AppError, type SessionEnvironment } from '@holdfast/contracts';
import { unauthorized } from '@holdfast/http-kit';

export const TOKEN_ISSUER = 'holdfast-workspace';
/** Distinguishes user tokens from other JWTs signed with the same secret (customer sessions). */
export const TOKEN_AUDIENCE = 'holdfast:workspace-user';

/** The claims of a Workspace access token. Authorization reads the user from the database, not from these. */
export interface AccessClaims {
  sub: string;
  sid: string;
  env: SessionEnvironment;
  typ: 'access';
}

/** Signs and checks access JWTs; built on @fastify/jwt by the access plugin. */
export interface AccessTokens {
  sign: (claims: AccessClaims) => string;
  verify: (token: string) => AccessClaims;
  expiresInSeconds: number;
}

export function accessTokensFrom(jwt: { sign: (payload: object) => string; verify: <T extends object>(token: string) => T }): AccessTokens {
  return {
    expiresInSeconds: ACCESS_TOKEN_TTL_SECONDS,
    sign: (claims) => jwt.sign(claims),
    verify: (token) => {
      let claims: Partial<AccessClaims>;
      try {
        claims = jwt.verify<Partial<AccessClaims>>(token);
      } catch (error) {
        if ((error as { code?: string }).code === 'FAST_JWT_EXPIRED') {
          throw new AppError('TOKEN_EXPIRED', 'The access token has expired; refresh it with POST /identity/refresh');
        }
        throw unauthorized('Invalid access token');
      }
      if (claims.typ !== 'access' || typeof claims.sub !== 'string' || typeof claims.sid !== 'string') {
        throw unauthorized('Invalid access token');
      }
      return claims as AccessClaims;
    },
  };
}

/** An opaque refresh token: `hfr_` + 32 random bytes. Only its SHA-256 is stored. */
export function newRefreshToken(): string {
  return `hfr_${randomBytes(32).toString('base64url')}`;
}

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A 6-digit e-mail verification code. */
export function newVerificationCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/**
 * Codes are short, so a plain hash would be reversed by trying all million: they are keyed with a
 * server secret and bound to the user.
 */
export function verificationCodeHasher(secret: string): (userId: string, code: string) => string {
  const key = createHmac('sha256', secret).update('holdfast:verification-codes').digest();
  return (userId, code) => createHmac('sha256', key).update(`${userId}:${code}`).digest('hex');
}

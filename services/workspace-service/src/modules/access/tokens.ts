import { randomInt } from 'node:crypto';
import { ACCESS_TOKEN_TTL_SECONDS, AppError, type SessionEnvironment, unauthorized } from '@holdfast/contracts';
import { codeHash, purposeKey } from '@holdfast/secrets';

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

/** Customer JWTs: same issuer and key, another audience, and the workspace they are valid in. */
export const CUSTOMER_TOKEN_AUDIENCE = 'holdfast:workspace-customer';

/** The claims of a customer access token (customer self-service routes of one workspace only). */
export interface CustomerClaims {
  sub: string;
  /** The customer session (refresh-token family) the token was issued for. */
  sid: string;
  /** The workspace the token is valid in. */
  wid: string;
  typ: 'customer_access';
}

/**
 * A stolen session ends (docs/workspace-sessions-and-roles.md#when-access-tokens-stop-working):
 * every access token names its session (`sid`), and each request checks that session with the user.
 * A token whose session does not exist (never did, or was deleted) is refused: a signature alone
 * is not enough. A session revoked for any reason but `logout` (refresh-token reuse, a password
 * change or reset, the user suspended, deactivated or removed from its sessions by an admin)
 * refuses its access tokens at once; logout keeps the spec's rule: the refresh token dies, the
 * access token lives until it expires.
 */
export function assertSessionLive(
  session: { exists: boolean; revokedAt: Date | null; revokedReason: string | null },
  kind: 'access' | 'customer access',
): void {
  if (!session.exists) throw unauthorized(`This ${kind} token's session does not exist; log in again`);
  if (!session.revokedAt || session.revokedReason === 'logout') return;
  throw unauthorized(`This ${kind} token's session has ended (${session.revokedReason ?? 'revoked'}); log in again`);
}

/** Signs and checks access JWTs; built on @fastify/jwt by the access plugin. */
export interface AccessTokens {
  sign: (claims: AccessClaims) => string;
  verify: (token: string) => AccessClaims;
  expiresInSeconds: number;
}

export function accessTokensFrom(
  jwt: { sign: (payload: object) => string; verify: <T extends object>(token: string) => T },
  expiresInSeconds = ACCESS_TOKEN_TTL_SECONDS,
): AccessTokens {
  return {
    expiresInSeconds,
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

/** Signs and checks customer JWTs. */
export interface CustomerTokens {
  sign: (claims: CustomerClaims) => string;
  verify: (token: string) => CustomerClaims;
  expiresInSeconds: number;
}

type Jwt = {
  sign: (payload: object, options?: object) => string;
  verify: <T extends object>(token: string, options?: object) => T;
};

/**
 * Customer tokens on the same @fastify/jwt instance, with their own audience: a user token is
 * refused on customer routes and a customer token on user routes (each side allows only its audience).
 */
export function customerTokensFrom(jwt: Jwt, expiresInSeconds = ACCESS_TOKEN_TTL_SECONDS): CustomerTokens {
  return {
    expiresInSeconds,
    sign: (claims) => jwt.sign(claims, { aud: CUSTOMER_TOKEN_AUDIENCE }),
    verify: (token) => {
      let claims: Partial<CustomerClaims>;
      try {
        claims = jwt.verify<Partial<CustomerClaims>>(token, { allowedAud: CUSTOMER_TOKEN_AUDIENCE });
      } catch (error) {
        if ((error as { code?: string }).code === 'FAST_JWT_EXPIRED') {
          throw new AppError(
            'TOKEN_EXPIRED',
            'The customer access token has expired; refresh it with POST /workspaces/{id}/customers/auth/refresh',
          );
        }
        throw unauthorized('Invalid customer access token');
      }
      if (
        claims.typ !== 'customer_access' ||
        typeof claims.sub !== 'string' ||
        typeof claims.sid !== 'string' ||
        typeof claims.wid !== 'string'
      ) {
        throw unauthorized('Invalid customer access token');
      }
      return claims as CustomerClaims;
    },
  };
}

/** A 6-digit e-mail verification code. */
export function newVerificationCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/**
 * Workspace's keys, each for one purpose, derived from JWT_SECRET (purposeKey: HKDF-SHA256): the
 * access-token signing key and the verification-code MAC key. JWT_SECRET itself keys nothing; the
 * code MAC used to be keyed by it, the access tokens' signing secret.
 */
export function workspaceKeys(root: string): { accessTokens: Buffer; verificationCodes: Buffer } {
  return { accessTokens: purposeKey(root, 'workspace:access-tokens'), verificationCodes: purposeKey(root, 'workspace:verification-codes') };
}

/**
 * Codes are short, so a plain hash would be reversed by trying all million: they are keyed with a
 * server key (workspaceKeys().verificationCodes) and bound to the user.
 */
export function verificationCodeHasher(key: Buffer): (userId: string, code: string) => string {
  return (userId, code) => codeHash(key, 'verification-codes', userId, code);
}

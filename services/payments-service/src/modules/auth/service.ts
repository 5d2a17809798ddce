import { type AppEnv, AppError, withinPlatformScopes } from '@holdfast/contracts';
import type { CredentialCache } from './cache.js';
import { credentialHash, keyMatchesEnvironment, looksLikeAccessToken, looksLikeApiKey } from './credentials.js';
import type { InvalidationFeed } from './invalidation-feed.js';
import type { Principal } from './principal.js';
import type { AuthRepository } from './repository.js';

export type AuthOutcome = { principal: Principal } | { error: AppError };

/** A verified API key is kept this long at most before being read again (revocations do not wait for it). */
const API_KEY_CACHE_MS = 5 * 60_000;

const REALM = 'realm="holdfast"';

/** 401 for a bearer token, with the RFC 6750 challenge. */
export function invalidToken(message: string, code: 'UNAUTHORIZED' | 'TOKEN_EXPIRED' = 'UNAUTHORIZED'): AppError {
  const description = message.replaceAll('"', "'");
  return new AppError(code, message, undefined, {
    'WWW-Authenticate': `Bearer ${REALM}, error="invalid_token", error_description="${description}"`,
  });
}

/**
 * Each answers in the same turn when the credential is in the cache (nearly every request) and
 * with a promise when it reads PostgreSQL: a request with a cached credential awaits nothing.
 */
export interface Authenticator {
  apiKey: (key: string) => AuthOutcome | Promise<AuthOutcome>;
  bearer: (token: string) => AuthOutcome | Promise<AuthOutcome>;
}

/**
 * Verifies API keys and access tokens. Hot path: SHA-256 of the presented secret, one lookup in
 * this instance's cache, no database round trip; the cache is used only while the invalidation
 * feed is fresh (see invalidation-feed.ts). A miss reads PostgreSQL once and caches the result.
 */
export function createAuthenticator(deps: {
  repository: AuthRepository;
  cache: CredentialCache;
  feed: Pick<InvalidationFeed, 'isFresh'>;
  appEnv: AppEnv;
}): Authenticator {
  const { repository, cache, feed } = deps;

  function cached(hash: string, now: number): Principal | undefined {
    return feed.isFresh(now) ? cache.get(hash, now) : undefined;
  }

  return {
    apiKey: (key) => {
      if (!looksLikeApiKey(key)) return { error: new AppError('UNAUTHORIZED', 'Invalid API key') };
      if (!keyMatchesEnvironment(key, deps.appEnv)) {
        const expected = deps.appEnv === 'production' ? 'hf_live_' : 'hf_test_';
        return { error: new AppError('UNAUTHORIZED', `This environment (${deps.appEnv}) takes ${expected} keys only`) };
      }
      const hash = credentialHash(key);
      const now = Date.now();
      const hit = cached(hash, now);
      if (hit) return { principal: hit };
      return lookUpApiKey(hash, now);
    },

    bearer: (token) => {
      if (!looksLikeAccessToken(token)) return { error: invalidToken('Invalid access token') };
      const hash = credentialHash(token);
      const now = Date.now();
      const hit = cached(hash, now);
      if (hit) return { principal: hit };
      return lookUpToken(hash, now);
    },
  };

  async function lookUpApiKey(hash: string, now: number): Promise<AuthOutcome> {
    const epoch = cache.epoch();
    const found = await repository.findApiKey(hash);
    if (!found) return { error: new AppError('UNAUTHORIZED', 'Invalid API key') };
    if (found.revoked) return { error: new AppError('UNAUTHORIZED', 'This API key was revoked when its platform regenerated its key') };
    if (!found.platformActive) return { error: new AppError('UNAUTHORIZED', 'The platform of this API key is deactivated') };
    const principal: Principal = {
      kind: 'api_key',
      platformId: found.platformId,
      platformName: found.platformName,
      workspaceId: found.workspaceId,
      sandbox: found.sandbox,
      scopes: found.scopes,
      billing: found.billing,
      finality: found.finality,
      keyId: found.keyId,
    };
    cache.set(hash, principal, now + API_KEY_CACHE_MS, epoch);
    return { principal };
  }

  async function lookUpToken(hash: string, now: number): Promise<AuthOutcome> {
    const epoch = cache.epoch();
    const found = await repository.findToken(hash);
    if (!found) return { error: invalidToken('Invalid access token') };
    if (found.revoked || !found.clientUsable) return { error: invalidToken('This access token was revoked') };
    if (!found.platformActive) return { error: invalidToken('The platform of this access token is deactivated') };
    if (found.expiresAtMs <= now) return { error: invalidToken('This access token has expired; request a new one', 'TOKEN_EXPIRED') };
    const clientScopes = new Set(found.clientScopes);
    const principal: Principal = {
      kind: 'oauth_token',
      platformId: found.platformId,
      platformName: found.platformName,
      workspaceId: found.workspaceId,
      sandbox: found.sandbox,
      // Checked at use: a platform cut back after the token was minted takes the power away at once
      // (its change drops cached principals of the platform on every instance).
      scopes: withinPlatformScopes(
        found.tokenScopes.filter((s) => clientScopes.has(s)),
        found.platformScopes,
      ),
      billing: found.billing,
      finality: found.finality,
      clientId: found.clientId,
      clientPk: found.clientPk,
      tokenId: found.tokenId,
      expiresAtMs: found.expiresAtMs,
    };
    cache.set(hash, principal, found.expiresAtMs, epoch);
    return { principal };
  }
}

import type { CredentialInvalidationKind } from '@holdfast/contracts';
import type { Principal } from './principal.js';

interface Entry {
  principal: Principal;
  /** The entry is not used after this (a token's expiry, or the cache's own bound for keys). */
  validUntilMs: number;
}

export interface CredentialCache {
  /** Bumped by every invalidation: a lookup that started under another epoch must not be cached. */
  epoch: () => number;
  get: (hash: string, nowMs: number) => Principal | undefined;
  set: (hash: string, principal: Principal, validUntilMs: number, epochAtLookup: number) => void;
  invalidate: (kind: CredentialInvalidationKind, ref: string) => number;
  size: () => number;
}

function matches(principal: Principal, kind: CredentialInvalidationKind, ref: string): boolean {
  switch (kind) {
    case 'platform':
      return principal.platformId === ref;
    case 'api_key':
      return principal.keyId === ref;
    case 'client':
      return principal.clientPk === ref;
    case 'token':
      return principal.tokenId === ref;
  }
}

/**
 * Verified credentials by the SHA-256 of the secret, in this process's memory, least recently
 * used dropped first. Only ever holds active credentials; invalidations remove entries by
 * platform, key, client or token.
 */
export function createCredentialCache(maxEntries = 20_000): CredentialCache {
  const entries = new Map<string, Entry>();
  let epoch = 0;
  return {
    epoch: () => epoch,
    get: (hash, nowMs) => {
      const entry = entries.get(hash);
      if (!entry) return undefined;
      entries.delete(hash);
      if (entry.validUntilMs <= nowMs) return undefined;
      entries.set(hash, entry);
      return entry.principal;
    },
    set: (hash, principal, validUntilMs, epochAtLookup) => {
      if (epochAtLookup !== epoch) return;
      entries.delete(hash);
      entries.set(hash, { principal, validUntilMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
    invalidate: (kind, ref) => {
      epoch += 1;
      let dropped = 0;
      for (const [hash, entry] of entries) {
        if (matches(entry.principal, kind, ref)) {
          entries.delete(hash);
          dropped += 1;
        }
      }
      return dropped;
    },
    size: () => entries.size,
  };
}

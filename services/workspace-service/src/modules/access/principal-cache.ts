import type { Logger } from '@holdfast/logging';
import type { Executor } from '../../db/store.js';
import { notifyPrincipalChange, PRINCIPAL_CHANGES_CHANNEL } from './repository.js';

/**
 * What a cached principal is made of, named by what can change it: `user:<id>`, `session:<id>`,
 * `customer:<id>`, `customer-session:<id>`, `workspace:<id>`.
 */
export type PrincipalRef = `${'user' | 'session' | 'customer' | 'customer-session' | 'workspace'}:${string}`;

/** Where repositories say that a principal's parts changed (inside the change's transaction). */
export interface PrincipalChanges {
  changed: (db: Executor, refs: PrincipalRef[]) => Promise<void>;
}

export interface PrincipalCache extends PrincipalChanges {
  /** Listens for changes (every instance's); the cache is used only while listening. */
  start: () => Promise<void>;
  stop: () => Promise<void>;
  /**
   * The principal row of `key`: cached, or `load()`ed. A row is stored (with the refs it is made of)
   * only when it exists and no change was announced while it was being read.
   */
  lookup: <T>(key: string, load: () => Promise<T | undefined>, refsOf: (row: T) => PrincipalRef[]) => Promise<T | undefined>;
}

/** The most entries kept: the principals active within the TTL on one instance. */
const MAX_ENTRIES = 10_000;
/** A change whose own notification never came back (rolled back, or the listener is down) stops bypassing after this. */
const PENDING_MAX_MS = 5_000;

interface Entry {
  row: unknown;
  refs: PrincipalRef[];
  expiresAt: number;
}

/**
 * The user or customer behind an access token (with its session and workspace), kept per instance
 * for at most `ttlMs`, so that an authenticated request does not read them from PostgreSQL each
 * time (docs/adr/0030-workspace-principal-cache.md). Revocation stays immediate:
 * - every change to what a principal is made of (a session revoked, a user or customer updated or
 *   deleted, a workspace changed) is announced by its repository inside the change's transaction:
 *   `pg_notify` on PRINCIPAL_CHANGES_CHANNEL, delivered to every instance when (and only if) the
 *   transaction commits; each drops the entries made of the changed refs;
 * - on the instance making the change, from the moment it is announced until its own notification
 *   comes back (after the commit), the cache is bypassed: no request there can see the old state
 *   from the cache, before or after the commit;
 * - a read that overlapped any change is not stored (an epoch counts changes);
 * - while the listening connection is being (re)established the cache is not used, and it is
 *   emptied when listening starts again; `ttlMs` bounds what a lost notification can leave behind.
 * `ttlMs` 0 turns the cache off (every request reads PostgreSQL).
 */
export function createPrincipalCache(deps: {
  sql: {
    listen: (channel: string, onNotify: (payload: string) => void, onListen: () => void) => Promise<{ unlisten: () => Promise<void> }>;
  };
  ttlMs: number;
  logger: Logger;
}): PrincipalCache {
  const entries = new Map<string, Entry>();
  /** Changes announced here whose notification has not come back yet: announcement number -> payload. */
  const pending = new Map<number, string>();
  let announced = 0;
  let epoch = 0;
  let listening = false;
  let unlisten: (() => Promise<void>) | undefined;

  function drop(refs: readonly string[]): void {
    epoch += 1;
    const changed = new Set(refs);
    for (const [key, entry] of entries) {
      if (entry.refs.some((ref) => changed.has(ref))) entries.delete(key);
    }
  }

  /** The oldest announcement of this payload is settled: its notification came back. */
  function settle(payload: string): void {
    for (const [id, waiting] of pending) {
      if (waiting === payload) {
        pending.delete(id);
        return;
      }
    }
  }

  const usable = () => deps.ttlMs > 0 && listening && pending.size === 0;

  return {
    start: async () => {
      if (deps.ttlMs <= 0) return;
      // Without a listener the cache stays off (every request reads PostgreSQL): slower, never stale.
      const listener = await deps.sql
        .listen(
          PRINCIPAL_CHANGES_CHANNEL,
          (payload) => {
            drop(payload.split(' '));
            settle(payload);
          },
          () => {
            // Called again after every reconnection: what changed meanwhile was not heard.
            entries.clear();
            epoch += 1;
            listening = true;
          },
        )
        .catch((error: unknown) => {
          deps.logger.warn({ err: error }, 'principal cache: cannot LISTEN; every request reads its principal from PostgreSQL');
          return undefined;
        });
      unlisten = listener?.unlisten;
    },
    stop: async () => {
      listening = false;
      entries.clear();
      await unlisten?.().catch((error: unknown) => deps.logger.warn({ err: error }, 'principal cache: unlisten failed'));
    },

    lookup: async (key, load, refsOf) => {
      if (usable()) {
        const hit = entries.get(key);
        if (hit && hit.expiresAt > Date.now()) return hit.row as Awaited<ReturnType<typeof load>>;
        if (hit) entries.delete(key);
      }
      const startedAt = epoch;
      const row = await load();
      if (row !== undefined && usable() && epoch === startedAt) {
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
        entries.set(key, { row, refs: refsOf(row), expiresAt: Date.now() + deps.ttlMs });
      }
      return row;
    },

    changed: async (db, refs) => {
      if (refs.length === 0) return;
      const payload = refs.join(' ');
      if (deps.ttlMs > 0) {
        const id = ++announced;
        pending.set(id, payload);
        setTimeout(() => pending.delete(id), PENDING_MAX_MS).unref();
        drop(refs);
      }
      await notifyPrincipalChange(db, payload);
    },
  };
}

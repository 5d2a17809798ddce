/**
 * Fixed-window request counters kept in this process's memory, shared with the other instances
 * through a store (Redis in the services, `createRedisWindowStore` of @holdfast/runtime) without a
 * round trip per request: ADR 25 (docs/adr/0025-rate-limit-counts-in-memory.md).
 *
 * Each instance counts its own requests at once and adds them to the store in one batch per
 * `sync()` (the owner calls it every ~100 ms); the store's answer is the key's total over every
 * instance, which becomes the instance's view. A request is decided on that view (the store's last
 * total plus this instance's counts since: never more than the true total), except where the view
 * may be too far off: a key's first request of the window on this instance, and every request in
 * the sync zone below the limit (`syncZone`), wait for the next sync (started at once) and are
 * placed by the store's own atomic total, so the last requests before the limit are decided exactly. The tolerance that follows is
 * in docs/security.md ("Rate limits across instances").
 */

/** A request's place in its window: how many requests of its key the window has seen, itself included. */
export interface WindowCount {
  count: number;
  /** When the window ends (ms since the epoch). */
  resetAtMs: number;
}

/** Counts requests per key over fixed windows (the rate limiter's store). */
export interface WindowCounter {
  /** Counts one request; `limit` lets a counter that shares counts lazily check with its store near the limit. */
  increment: (key: string, windowMs: number, limit: number) => WindowCount | Promise<WindowCount>;
  /**
   * A counter that absorbs failures of its shared store (and goes on counting per instance) reports
   * each one through the function given here, so it shows in /metrics like any store failure.
   */
  reportStoreErrorsTo?: (countError: () => void) => void;
}

/** One key's requests added by one instance since its last sync. */
export interface WindowIncrement {
  key: string;
  by: number;
  /** How long the store must keep the key: until its window ends (plus a margin for clock skew). */
  ttlMs: number;
}

/** Where instances add up their counts (atomically per key). */
export interface WindowStore {
  /** Adds each increment; answers each key's new total over every instance, and the store's clock. */
  add: (increments: WindowIncrement[]) => Promise<{ totals: number[]; nowMs: number }>;
}

export interface SharedWindowCounter extends WindowCounter {
  /** Sends the counts since the last sync to the store, learns the totals; never throws. */
  sync: () => Promise<void>;
  /** Whether the last exchange with the store succeeded (false: counting per instance). */
  shared: () => boolean;
}

export interface WindowCounterOptions {
  /** Absent: counts in memory only (one instance, tests, tools). */
  store?: WindowStore;
  /** Prefixes the store's keys (a process's own namespace). */
  namespace?: string;
  /** Asked for a sync now: a request near its limit is waiting for it. */
  requestSync?: () => void;
  /** Told when the store stops answering and when it answers again (with the error, or undefined). */
  onStoreStateChange?: (error: Error | undefined) => void;
}

interface Waiter {
  /** The request's place among this instance's counts of the batch (1-based). */
  offset: number;
  resetAtMs: number;
  resolve: (result: WindowCount) => void;
}

interface WindowEntry {
  storeKey: string;
  resetAtMs: number;
  /** The store's total at its last answer (every instance). */
  known: number;
  /** Counted here since the last sync started. */
  pending: number;
  /** Sent in the sync in progress, not yet in `known`. */
  inFlight: number;
  /** Whether the store has answered for this key at least once (until then `known` is only ours). */
  synced: boolean;
  waiters: Waiter[];
}

/**
 * The last requests before a limit, each placed by the store (exact): half the limit, and all of a
 * limit of 20 or less (the public tier's default: a login's limit is kept exactly).
 */
export function syncZone(limit: number): number {
  return Math.max(Math.ceil(limit / 2), Math.min(limit, SYNC_ZONE_MIN));
}
const SYNC_ZONE_MIN = 20;

/** Store keys outlive their window by this much, so an instance whose clock lags still finds them. */
const TTL_MARGIN_MS = 5_000;
const SWEEP_EVERY_MS = 5_000;

export function createWindowCounter(options: WindowCounterOptions = {}): SharedWindowCounter {
  const { store, namespace = 'rl' } = options;
  const entries = new Map<string, WindowEntry>();
  const dirty = new Set<WindowEntry>();
  let healthy = store !== undefined;
  let syncing = false;
  // The store's clock minus ours: every instance then cuts the same windows.
  let clockOffsetMs = 0;
  let nextSweepAt = 0;
  let countError: (() => void) | undefined;

  function sweep(now: number) {
    nextSweepAt = now + SWEEP_EVERY_MS;
    for (const [id, entry] of entries) {
      if (entry.resetAtMs + TTL_MARGIN_MS > now || entry.inFlight > 0) continue;
      entries.delete(id);
      dirty.delete(entry);
      for (const waiter of entry.waiters) waiter.resolve({ count: entry.known + waiter.offset, resetAtMs: waiter.resetAtMs });
    }
  }

  function increment(key: string, windowMs: number, limit: number): WindowCount | Promise<WindowCount> {
    const now = Date.now() + clockOffsetMs;
    if (now >= nextSweepAt) sweep(now);
    const start = Math.floor(now / windowMs) * windowMs;
    const id = `${key}@${start}`;
    let entry = entries.get(id);
    if (!entry) {
      entry = {
        storeKey: `${namespace}:${id}`,
        resetAtMs: start + windowMs,
        known: 0,
        pending: 0,
        inFlight: 0,
        synced: false,
        waiters: [],
      };
      entries.set(id, entry);
    }
    entry.pending += 1;
    if (store) dirty.add(entry);
    const view = entry.known + entry.inFlight + entry.pending;
    // Over the limit already (the view never exceeds the true total), or far from it with a view
    // the store has answered, or no store to ask: answer now. A key's first request of a window
    // here, and those in the sync zone below the limit, wait for the store to place them.
    if (!healthy || view > limit || !Number.isFinite(limit) || (entry.synced && view <= limit - syncZone(limit)))
      return { count: view, resetAtMs: entry.resetAtMs };
    const waiting = entry;
    return new Promise((resolve) => {
      waiting.waiters.push({ offset: waiting.pending, resetAtMs: waiting.resetAtMs, resolve });
      options.requestSync?.();
    });
  }

  async function sync(): Promise<void> {
    if (!store || syncing || dirty.size === 0) return;
    syncing = true;
    const batch = [...dirty];
    dirty.clear();
    const sent = batch.map((entry) => {
      const part = { by: entry.pending, waiters: entry.waiters };
      entry.inFlight += entry.pending;
      entry.pending = 0;
      entry.waiters = [];
      return part;
    });
    const local = Date.now();
    try {
      const { totals, nowMs } = await store.add(
        batch.map((entry, i) => ({
          key: entry.storeKey,
          by: sent[i]!.by,
          ttlMs: Math.max(1, entry.resetAtMs - (local + clockOffsetMs)) + TTL_MARGIN_MS,
        })),
      );
      clockOffsetMs = nowMs - Math.round((local + Date.now()) / 2);
      if (!healthy) options.onStoreStateChange?.(undefined);
      healthy = true;
      batch.forEach((entry, i) => {
        const total = totals[i] ?? 0;
        const { by, waiters } = sent[i]!;
        entry.inFlight -= by;
        entry.known = Math.max(entry.known, total);
        entry.synced = true;
        // The batch holds places total-by+1 .. total in the store's order, in this instance's order.
        for (const waiter of waiters) waiter.resolve({ count: total - by + waiter.offset, resetAtMs: waiter.resetAtMs });
      });
    } catch (error) {
      countError?.();
      if (healthy) options.onStoreStateChange?.(error as Error);
      healthy = false;
      // Kept for the next sync; meanwhile this instance decides on its own counts.
      batch.forEach((entry, i) => {
        const { by, waiters } = sent[i]!;
        entry.inFlight -= by;
        // A window that has ended is not worth sending any more.
        if (entry.resetAtMs > Date.now() + clockOffsetMs) {
          entry.pending += by;
          dirty.add(entry);
        }
        for (const waiter of waiters) waiter.resolve({ count: entry.known + waiter.offset, resetAtMs: waiter.resetAtMs });
      });
    } finally {
      syncing = false;
    }
    // Requests that arrived near their limit during this sync wait for the next one.
    if ([...dirty].some((entry) => entry.waiters.length > 0)) options.requestSync?.();
  }

  return {
    increment,
    sync,
    shared: () => healthy,
    reportStoreErrorsTo: (count) => {
      countError = count;
    },
  };
}

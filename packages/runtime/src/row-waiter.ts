import type { Sql } from '@holdfast/db';

/** A registered wait: `done` settles `true` when the key was notified, `false` at the deadline. */
export interface RowWait {
  done: Promise<boolean>;
  cancel(): void;
}

export interface RowWaiter {
  /** LISTENs on the channel; call before the first `waitFor`. */
  start(): Promise<void>;
  /**
   * Registers a wait for a NOTIFY of `key` on the channel, at most `timeoutMs`. Register it before
   * reading the row: a change committed between the read and the wait is then not missed.
   */
  waitFor(key: string, timeoutMs: number): RowWait;
  stop(): Promise<void>;
}

/**
 * A request that must answer once another instance's worker has changed a row (x402's settle
 * waits for the relayer's receipt) waits for that worker's NOTIFY instead of polling the row on a
 * sleep of its own. The notifying statement sends `pg_notify(channel, key)` in the transaction of
 * the change, so the notification arrives only once the change is committed.
 */
export function createRowWaiter(sql: Sql, channel: string): RowWaiter {
  const waiting = new Map<string, Set<(notified: boolean) => void>>();
  let unlisten: (() => Promise<void>) | undefined;

  const settle = (key: string, notified: boolean) => {
    const callbacks = waiting.get(key);
    if (!callbacks) return;
    waiting.delete(key);
    for (const callback of callbacks) callback(notified);
  };

  return {
    async start() {
      if (unlisten) return;
      unlisten = (await sql.listen(channel, (key) => settle(key, true))).unlisten;
    },

    waitFor(key, timeoutMs) {
      let finish: (notified: boolean) => void = () => {};
      const done = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => finish(false), Math.max(0, timeoutMs));
        timer.unref?.();
        finish = (notified) => {
          clearTimeout(timer);
          waiting.get(key)?.delete(finish);
          if (waiting.get(key)?.size === 0) waiting.delete(key);
          resolve(notified);
        };
        const callbacks = waiting.get(key) ?? new Set();
        callbacks.add(finish);
        waiting.set(key, callbacks);
      });
      return { done, cancel: () => finish(false) };
    },

    async stop() {
      for (const key of [...waiting.keys()]) settle(key, false);
      await unlisten?.();
      unlisten = undefined;
    },
  };
}

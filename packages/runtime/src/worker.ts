import type { Logger } from '@holdfast/logging';

/**
 * The one background-work primitive of Holdfast (docs/engineering.md, "Background work"): a loop
 * that runs `pass` again and again, sleeps `intervalMs` when there is nothing left to do, wakes
 * early on a signal (a PostgreSQL NOTIFY, a NATS message, `wake()` after a commit), backs off
 * exponentially while passes fail, and on `stop()` finishes the pass in progress (drains) before
 * it resolves. Every outbox relay, remote-task runner, retention sweeper and worker loop is one of
 * these, so they all start, stop and fail the same way.
 */
export interface PollingWorkerOptions {
  /** Names the worker in logs (`component`). */
  name: string;
  logger: Logger;
  /** The wait after a pass that found nothing more to do. */
  intervalMs: number;
  /** The longest wait after failed passes (the wait doubles from `intervalMs` per failure). */
  maxBackoffMs?: number;
  /**
   * The least time between the end of a pass and the start of the next, wake-ups included: the
   * wake-ups of a burst (one per commit) are then served by a few passes that each take all that
   * is waiting, instead of one pass each. 0 (the default): a wake-up starts a pass at once.
   */
  coalesceMs?: number;
  /**
   * One pass. `true` when more work may be waiting (the next pass starts at once), `false` to
   * sleep `intervalMs`, a number to sleep that many milliseconds instead (a pass that knows when
   * its next work is due, or waits longer in some state); a wake-up cuts any sleep short. A throw
   * is logged and the next pass waits the backoff.
   */
  pass: () => Promise<boolean | number>;
  /**
   * Subscribes to a wake-up signal, once at start; returns how to unsubscribe (called at stop, after
   * the drain).
   */
  wakeOn?: (wake: () => void) => Promise<() => Promise<void> | void>;
}

export interface PollingWorker {
  start: () => Promise<void>;
  /** Stops taking passes, waits for the pass in progress, unsubscribes. Safe to call twice. */
  stop: () => Promise<void>;
  /** Starts a pass now instead of after the sleep; never waits. A wake during a pass runs one more. */
  wake: () => void;
  /** Whether the worker was started and not stopped. */
  running: () => boolean;
}

export function createPollingWorker(options: PollingWorkerOptions): PollingWorker {
  const log = options.logger.child({ component: options.name });
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  let running = false;
  let loop: Promise<void> | undefined;
  let woken = false;
  let interrupt: (() => void) | undefined;
  let unsubscribe: (() => Promise<void> | void) | undefined;

  /** Waits `ms`; a wake-up cuts it short unless `whatever` (only stop does then). */
  function sleep(ms: number, whatever = false): Promise<void> {
    if ((woken && !whatever) || !running) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        interrupt = undefined;
        resolve();
      }
      interrupt = () => {
        if (!whatever || !running) done();
      };
    });
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (running) {
      woken = false;
      try {
        const more = await options.pass();
        failures = 0;
        if (options.coalesceMs) await sleep(options.coalesceMs, true);
        if (typeof more === 'number') await sleep(more);
        else if (!more) await sleep(options.intervalMs);
      } catch (error) {
        failures += 1;
        log.error({ err: error, failures }, `${options.name} pass failed; retrying`);
        await sleep(Math.min(options.intervalMs * 2 ** failures, maxBackoffMs));
      }
    }
  }

  const wake = () => {
    woken = true;
    interrupt?.();
  };

  return {
    wake,
    running: () => running,
    start: async () => {
      if (running) return;
      running = true;
      unsubscribe = options.wakeOn ? await options.wakeOn(wake) : undefined;
      loop = run();
    },
    stop: async () => {
      running = false;
      interrupt?.();
      await loop;
      loop = undefined;
      const leave = unsubscribe;
      unsubscribe = undefined;
      await leave?.();
    },
  };
}

/**
 * A periodic sweep (retention): one pass at start, then every `everyMs`, never two at once in a
 * process; across instances the sweep itself takes turns (an advisory lock in its repository).
 * Logs what a pass removed when it removed anything; a failed pass is logged and retried with the
 * worker's backoff.
 */
export function createRetentionSweeper(options: {
  name?: string;
  logger: Logger;
  everyMs: number;
  /** One pass: rows removed per kind, or undefined when another instance holds the turn. */
  sweep: () => Promise<object | undefined>;
}): PollingWorker {
  const log = options.logger.child({ component: options.name ?? 'retention' });
  return createPollingWorker({
    name: options.name ?? 'retention',
    logger: options.logger,
    intervalMs: options.everyMs,
    maxBackoffMs: options.everyMs,
    pass: async () => {
      const removed = await options.sweep();
      if (removed && Object.values(removed).some((n) => typeof n === 'number' && n > 0))
        log.info({ removed }, 'retention: deleted rows past their horizon');
      return false;
    },
  });
}

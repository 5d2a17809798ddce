import { createLogger } from '@holdfast/logging';
import { describe, expect, it } from 'vitest';
import { createPollingWorker, createRetentionSweeper } from '../src/worker.js';

const logger = createLogger({ service: 'worker-test', level: 'silent' });
/** Long enough that a test only sees a second pass when something woke the worker. */
const NEVER = 60 * 60 * 1000;

/** A worker whose next pass comes only when it is woken (or when its pass returns a wait). */
const wokenWorker = (name: string, job: Pick<Parameters<typeof createPollingWorker>[0], 'pass' | 'wakeOn'>) =>
  createPollingWorker({ name, logger, intervalMs: NEVER, ...job });

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('polling worker', () => {
  it('stop waits for the pass in progress (drain) and runs no pass after it', async () => {
    const inPass = deferred();
    const release = deferred();
    let passes = 0;
    let finished = 0;
    const worker = wokenWorker('drain-test', {
      pass: async () => {
        passes += 1;
        inPass.resolve();
        await release.promise;
        finished += 1;
        return true; // "more work": without the stop it would loop at once
      },
    });
    await worker.start();
    await inPass.promise;
    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(stopped).toBe(false);
    release.resolve();
    await stopping;
    expect({ passes, finished, running: worker.running() }).toEqual({ passes: 1, finished: 1, running: false });
  });

  it('sleeps when a pass finds nothing, and a wake-up starts the next pass at once', async () => {
    let passes = 0;
    let wakeFromOutside: (() => void) | undefined;
    let unsubscribed = false;
    const worker = wokenWorker('wake-test', {
      pass: async () => {
        passes += 1;
        return false;
      },
      wakeOn: async (wake) => {
        wakeFromOutside = wake;
        return () => {
          unsubscribed = true;
        };
      },
    });
    await worker.start();
    await expect.poll(() => passes).toBe(1);
    wakeFromOutside?.(); // the signal (NOTIFY, a message)
    await expect.poll(() => passes).toBe(2);
    worker.wake(); // after a commit in this process
    await expect.poll(() => passes).toBe(3);
    await worker.stop();
    expect(unsubscribed).toBe(true);
  });

  it('keeps going after a failed pass', async () => {
    let passes = 0;
    const worker = createPollingWorker({
      name: 'failure-test',
      logger,
      intervalMs: 1,
      maxBackoffMs: 5,
      pass: async () => {
        passes += 1;
        if (passes < 3) throw new Error('database unavailable');
        return false;
      },
    });
    await worker.start();
    await expect.poll(() => passes).toBeGreaterThanOrEqual(3);
    await worker.stop();
  });

  it('sleeps the wait a pass returns instead of the interval, and a wake-up still cuts it short', async () => {
    let passes = 0;
    const worker = wokenWorker('wait-test', {
      // First a short wait (the next pass comes without a wake-up), then a long one.
      pass: async () => {
        passes += 1;
        return passes === 1 ? 1 : NEVER;
      },
    });
    await worker.start();
    await expect.poll(() => passes).toBe(2);
    worker.wake();
    await expect.poll(() => passes).toBe(3);
    await worker.stop();
  });

  it('with coalesceMs, wake-ups that come during a pass and the pause after it make one more pass, not one each', async () => {
    let passes = 0;
    const inPass = deferred();
    const release = deferred();
    const worker = createPollingWorker({
      name: 'coalesce-test',
      logger,
      intervalMs: NEVER,
      coalesceMs: 50,
      pass: async () => {
        passes += 1;
        if (passes === 2) {
          inPass.resolve();
          await release.promise;
        }
        return false;
      },
    });
    await worker.start();
    await expect.poll(() => passes).toBe(1);
    worker.wake();
    await inPass.promise;
    for (let i = 0; i < 10; i++) worker.wake(); // ten commits during the second pass
    release.resolve();
    await expect.poll(() => passes).toBe(3);
    await new Promise((r) => setTimeout(r, 200));
    expect(passes).toBe(3);
    await worker.stop();
  });
});

describe('retention sweeper', () => {
  it('sweeps once at start and stops cleanly', async () => {
    const removed: Record<string, number>[] = [];
    const sweeper = createRetentionSweeper({
      logger,
      everyMs: NEVER,
      sweep: async () => {
        const pass = { rows: 2 };
        removed.push(pass);
        return pass;
      },
    });
    await sweeper.start();
    await expect.poll(() => removed.length).toBe(1);
    await sweeper.stop();
    expect(removed).toEqual([{ rows: 2 }]);
  });
});

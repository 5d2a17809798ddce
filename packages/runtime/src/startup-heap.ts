import { performance } from 'node:perf_hooks';
import type { Logger } from '@holdfast/logging';

/** How long after the workers started the start-up garbage is collected (their first passes are done by then). */
export const STARTUP_COLLECTION_DELAY_MS = 1_000;

/** V8's collector as `--expose-gc` exposes it; absent without the flag (tests, `node dist/main.js`). */
type Collector = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * Collects, once, what start-up left in the heap, in the way V8 collects when memory is short: a
 * full collection that also shrinks the young generation and compacts the old one.
 *
 * Loading the bundle and assembling the process fill the young generation to its cap (2 × 8 MiB,
 * `--max-semi-space-size=8`) and leave the old generation's pages part empty. V8 gives those pages
 * back only in a memory-reducing collection, which it starts by itself after a collection when
 * allocation slows down; an idle server allocates almost nothing, so that never came, and each
 * process held 12 to 20 MiB of start-up garbage for as long as it stayed idle
 * (docs/adr/0037-start-up-garbage-collected.md). Under load the young generation grows back to
 * its cap: only the idle footprint changes. The collection costs 40 to 110 ms of CPU, once.
 *
 * Only once the process is idle: a process that starts on work to do (the indexer's backfill of
 * thousands of events, a dispatcher's backlog) would otherwise stop for a last-resort collection
 * of a heap full of that work, then grow its shrunk young generation back under it. The indexer's
 * backfill of 4,040 events spent about a second in that collection (issue 34,
 * docs/perf/indexer-backfill-startup-collection.md). So at the delay, and every delay after it, the
 * event loop's utilization over the last delay is read: above `BUSY_UTILIZATION` the collection
 * waits for the next; a busy process's young generation is at its cap anyway.
 *
 * Runs only when the process was started with `--expose-gc` (the services' production flags);
 * without it this does nothing.
 */
export function collectStartupGarbage(
  logger: Logger,
  collect: Collector | undefined = globalThis.gc as Collector | undefined,
  delayMs = STARTUP_COLLECTION_DELAY_MS,
  utilization: () => number = eventLoopUtilizationSinceLastCall(),
): void {
  if (!collect) return;
  const check = () => {
    if (utilization() > BUSY_UTILIZATION) {
      setTimeout(check, delayMs).unref();
      return;
    }
    collectNow();
  };
  const collectNow = () => {
    const before = process.memoryUsage.rss();
    const cpuBefore = process.cpuUsage();
    collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const cpu = process.cpuUsage(cpuBefore);
    logger.debug(
      {
        rssBeforeMiB: Math.round(before / 2 ** 20),
        rssAfterMiB: Math.round(process.memoryUsage.rss() / 2 ** 20),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      },
      'start-up garbage collected',
    );
  };
  // A process that stops within the delay does not wait for it.
  setTimeout(check, delayMs).unref();
}

/** Above this share of the last delay spent running, the process is busy: the collection waits. */
export const BUSY_UTILIZATION = 0.25;

/** The event loop's utilization (0–1) since the previous call (since this was made, the first time). */
function eventLoopUtilizationSinceLastCall(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization;
  };
}

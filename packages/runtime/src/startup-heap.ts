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
 * Runs only when the process was started with `--expose-gc` (the services' production flags);
 * without it this does nothing.
 */
export function collectStartupGarbage(
  logger: Logger,
  collect: Collector | undefined = globalThis.gc as Collector | undefined,
  delayMs = STARTUP_COLLECTION_DELAY_MS,
): void {
  if (!collect) return;
  const timer = setTimeout(() => {
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
  }, delayMs);
  // A process that stops within the delay does not wait for it.
  timer.unref();
}

import { WEBHOOK_LIMITS } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import type { RetentionRepository } from './repository.js';

export const RETENTION_MS = WEBHOOK_LIMITS.retentionDays * 24 * 60 * 60 * 1000;
export const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Delivery logs, finished deliveries and received events are kept 30 days (spec, "Limits"). A
 * pass runs at start and then every hour; instances take turns through an advisory lock.
 */
export function startRetentionPurge(deps: { repository: RetentionRepository; logger: Logger; everyMs?: number; retentionMs?: number }) {
  const log = deps.logger.child({ component: 'retention' });
  const retentionMs = deps.retentionMs ?? RETENTION_MS;
  let running: Promise<void> | undefined;

  const pass = async () => {
    try {
      const purged = await deps.repository.purge(new Date(Date.now() - retentionMs));
      if (purged && (purged.attempts > 0 || purged.deliveries > 0 || purged.events > 0))
        log.info(purged, 'purged records older than the retention');
    } catch (error) {
      log.error({ err: error }, 'retention purge failed; will try again');
    }
  };
  const tick = () => {
    running ??= pass().finally(() => {
      running = undefined;
    });
  };
  tick();
  const timer = setInterval(tick, deps.everyMs ?? PURGE_EVERY_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

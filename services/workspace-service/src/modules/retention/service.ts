import type { Logger } from '@holdfast/logging';
import type { WorkspaceRetentionHorizons, WorkspaceRetentionRepository } from './repository.js';

/**
 * The retention sweeper: a pass at start, then every `everyMs`; instances take turns through an
 * advisory lock. Logs how many rows each pass removed (nothing when it removed none).
 */
export function startRetentionSweeper(deps: {
  repository: WorkspaceRetentionRepository;
  logger: Logger;
  everyMs: number;
  horizons: WorkspaceRetentionHorizons;
}) {
  const log = deps.logger.child({ component: 'retention' });
  let running: Promise<void> | undefined;

  const pass = async () => {
    try {
      const removed = await deps.repository.sweep(deps.horizons);
      if (removed && Object.values(removed).some((n) => n > 0)) log.info({ removed }, 'retention: deleted rows past their horizon');
    } catch (error) {
      log.error({ err: error }, 'retention sweep failed; will try again');
    }
  };
  const tick = () => {
    running ??= pass().finally(() => {
      running = undefined;
    });
  };
  tick();
  const timer = setInterval(tick, deps.everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

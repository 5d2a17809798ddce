import { WEBHOOK_LIMITS } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { createRetentionSweeper } from '@holdfast/runtime';
import type { RetentionRepository } from './repository.js';

export const RETENTION_MS = WEBHOOK_LIMITS.retentionDays * 24 * 60 * 60 * 1000;
export const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Delivery logs, finished deliveries and received events are kept 30 days (spec, "Limits"). A
 * pass runs at start and then every hour; instances take turns through an advisory lock.
 */
export function createRetentionPurge(deps: { repository: RetentionRepository; logger: Logger; everyMs?: number; retentionMs?: number }) {
  const retentionMs = deps.retentionMs ?? RETENTION_MS;
  return createRetentionSweeper({
    logger: deps.logger,
    everyMs: deps.everyMs ?? PURGE_EVERY_MS,
    sweep: () => deps.repository.purge(new Date(Date.now() - retentionMs)),
  });
}

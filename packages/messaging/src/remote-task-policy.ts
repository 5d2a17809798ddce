import { AppError } from '@holdfast/contracts';
import { PayloadError } from './validate.js';

/**
 * The retry policy of a process's remote tasks (commands it owes another process, kept in its own
 * `remote_tasks` table until answered: workspace ADR 10, payments ADR 15). The runners differ in
 * their storage; the policy is one, and the runner of `@holdfast/runtime` states it as its job (ADR 65).
 */
export interface RemoteTaskSettings {
  /** Longest wait between passes when nothing wakes the runner. */
  pollIntervalMs: number;
  /** First retry delay; doubles with each failed attempt up to `retryMaxMs`. */
  retryBaseMs: number;
  retryMaxMs: number;
}

export const DEFAULT_REMOTE_TASK_SETTINGS: RemoteTaskSettings = { pollIntervalMs: 5000, retryBaseMs: 2000, retryMaxMs: 5 * 60 * 1000 };

/** Tasks claimed per pass; finished tasks kept this long (for operators), purged this often. */
export const REMOTE_TASK_BATCH = 10;
export const REMOTE_TASK_KEEP_DONE_MS = 7 * 24 * 60 * 60 * 1000;
export const REMOTE_TASK_PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Retried: no answer, an outage or a bug on the other side, a database error. Given up: the other
 * side refused the command (4xx), or its payload breaks the contract (it would fail the same way).
 */
export function remoteTaskRetryable(error: unknown): boolean {
  if (error instanceof PayloadError) return false;
  return !(error instanceof AppError) || error.statusCode >= 500;
}

/** What a task row records of its last failure. */
export function remoteTaskFailure(error: unknown): string {
  if (error instanceof AppError) return `${error.code}: ${error.message}`;
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

/** Delay after the n-th failed attempt (0-based): base, 2 x base, 4 x base... capped. */
export function remoteTaskBackoffMs(settings: RemoteTaskSettings, attempts: number): number {
  return Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.min(attempts, 20));
}

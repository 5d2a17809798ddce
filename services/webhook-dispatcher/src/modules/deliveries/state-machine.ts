import type { DeliveryStatus } from '@holdfast/contracts';
import type { AttemptOutcome } from './sender.js';

/**
 * A delivery (one event to one subscription):
 *
 * | from      | event                        | to                                                             |
 * | --------- | ---------------------------- | -------------------------------------------------------------- |
 * | (none)    | event matches subscription   | pending, due now                                               |
 * | pending   | attempt answered 2xx         | succeeded                                                      |
 * | pending   | attempt answered 410         | failed; the subscription is deactivated                        |
 * | pending   | other failure, retries left  | pending, due after the schedule's next delay (or Retry-After)  |
 * | pending   | other failure, none left     | failed                                                         |
 * | any       | resend / replay              | pending, due now, retry schedule from its start (same id)      |
 *
 * `retryIndex` is the position in WEBHOOK_RETRY_SCHEDULE: with n delays a delivery gets 1 + n
 * attempts. A Retry-After (429/503) later than the schedule's delay wins.
 */
export type AttemptDecision =
  | { status: 'succeeded'; disableSubscription: false }
  | { status: 'pending'; retryIndex: number; delayMs: number; disableSubscription: false }
  | { status: 'failed'; disableSubscription: boolean };

export function decideAfterAttempt(outcome: AttemptOutcome, retryIndex: number, scheduleMs: readonly number[]): AttemptDecision {
  if (outcome.success) return { status: 'succeeded', disableSubscription: false };
  if (outcome.statusCode === 410) return { status: 'failed', disableSubscription: true };
  const delay = scheduleMs[retryIndex];
  if (delay === undefined) return { status: 'failed', disableSubscription: false };
  return { status: 'pending', retryIndex: retryIndex + 1, delayMs: Math.max(delay, outcome.retryAfterMs ?? 0), disableSubscription: false };
}

/** Whether a resend or replay may queue a delivery again: not while an attempt of it is in flight. */
export function canRequeue(status: DeliveryStatus, inFlight: boolean): boolean {
  return !(status === 'pending' && inFlight);
}

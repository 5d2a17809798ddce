import type { DeliveryStatus } from '@holdfast/contracts';
import { type Circuit, nextCircuit } from '../subscriptions/index.js';
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

/** What an attempt's result tells its subscription's breaker. */
export interface AttemptResult {
  success: boolean;
  /** A 429's or 503's Retry-After: no attempt to the subscription before it has passed. */
  retryAfterMs: number | null;
  /** The receiver answered 410 Gone. */
  disableSubscription: boolean;
}

export interface BreakerSettings {
  threshold: number;
  cooldownMs: number;
}

/**
 * What an attempt's result writes to its subscription (the repository stores it as it is):
 * the circuit, when it was opened, a pause, a deactivation.
 */
export interface SubscriptionChange {
  circuit: Circuit;
  /**
   * `opened`: opened now, HALF_OPEN after `halfOpenAfterMs`, no probe in flight; `cleared`: no
   * opening recorded and no probe (CLOSED); `kept`: as stored.
   */
  opening: { kind: 'opened'; halfOpenAfterMs: number } | { kind: 'cleared' } | { kind: 'kept' };
  /** No attempt before now + this (a later pause already stored stays). */
  pauseMs: number | null;
  /** Deactivated, with this reason to show. */
  deactivatedBecause: string | null;
}

/** Every success writes this, whatever the circuit was (the repository skips rows already so). */
export const SUBSCRIPTION_AFTER_SUCCESS: SubscriptionChange = {
  circuit: { state: 'CLOSED', consecutiveFailures: 0 },
  opening: { kind: 'cleared' },
  pauseMs: null,
  deactivatedBecause: null,
};

/**
 * The breaker's decision after an attempt (nextCircuit's table, spec "States and transitions"),
 * from the circuit as stored (read under the subscription's row lock, so that two instances'
 * failures each count):
 *
 * | stored            | result                       | writes                                                |
 * | ----------------- | ---------------------------- | ----------------------------------------------------- |
 * | any               | success                      | SUBSCRIPTION_AFTER_SUCCESS (CLOSED, 0, opening cleared) |
 * | CLOSED, f + 1 < t | failure                      | CLOSED, f + 1                                         |
 * | CLOSED, f + 1 ≥ t | failure                      | OPEN, f + 1, opened now (HALF_OPEN after the cooldown) |
 * | OPEN              | failure                      | OPEN, f + 1, opening kept                             |
 * | HALF_OPEN         | failure (the probe)          | OPEN, f + 1, opened now                               |
 * | any               | with Retry-After             | also paused for it                                    |
 * | any               | 410                          | also deactivated                                      |
 *
 * A failure always writes: it counts.
 */
export function subscriptionAfterAttempt(stored: Circuit, result: AttemptResult, settings: BreakerSettings, now: Date): SubscriptionChange {
  if (result.success) return SUBSCRIPTION_AFTER_SUCCESS;
  const move = nextCircuit(stored, 'failure', settings.threshold);
  return {
    circuit: { state: move.state, consecutiveFailures: move.consecutiveFailures },
    opening: move.opens ? { kind: 'opened', halfOpenAfterMs: settings.cooldownMs } : { kind: 'kept' },
    pauseMs: result.retryAfterMs,
    deactivatedBecause: result.disableSubscription
      ? `The receiver answered 410 Gone on ${now.toISOString()}; set isActive to true to deliver again`
      : null,
  };
}

/** What a cooled-down OPEN circuit becomes (its next due delivery goes alone, as a probe). */
export const CIRCUIT_AFTER_COOLDOWN = nextCircuit({ state: 'OPEN', consecutiveFailures: 0 }, 'cooldown-elapsed', 1).state;

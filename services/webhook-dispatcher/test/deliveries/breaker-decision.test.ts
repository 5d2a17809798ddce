import { describe, expect, it } from 'vitest';
import {
  type AttemptResult,
  CIRCUIT_AFTER_COOLDOWN,
  SUBSCRIPTION_AFTER_SUCCESS,
  type SubscriptionChange,
  subscriptionAfterAttempt,
} from '../../src/modules/deliveries/state-machine.js';
import type { Circuit } from '../../src/modules/subscriptions/index.js';

// The breaker's decision after an attempt, without a database: the table of
// subscriptionAfterAttempt, row by row (threshold 3, cooldown 600 ms).

const settings = { threshold: 3, cooldownMs: 600 };
const now = new Date('2026-12-04T12:00:00.000Z');
const success: AttemptResult = { success: true, retryAfterMs: null, disableSubscription: false };
const failure: AttemptResult = { success: false, retryAfterMs: null, disableSubscription: false };
const opened = { kind: 'opened', halfOpenAfterMs: 600 } as const;
const kept = { kind: 'kept' } as const;
const change = (circuit: Circuit, opening: SubscriptionChange['opening'], more: Partial<SubscriptionChange> = {}): SubscriptionChange => ({
  circuit,
  opening,
  pauseMs: null,
  deactivatedBecause: null,
  ...more,
});

const cases: [string, Circuit, AttemptResult, SubscriptionChange][] = [
  ['CLOSED, success', { state: 'CLOSED', consecutiveFailures: 2 }, success, SUBSCRIPTION_AFTER_SUCCESS],
  ['OPEN, success (an attempt started before it opened)', { state: 'OPEN', consecutiveFailures: 4 }, success, SUBSCRIPTION_AFTER_SUCCESS],
  ['HALF_OPEN, the probe succeeds', { state: 'HALF_OPEN', consecutiveFailures: 3 }, success, SUBSCRIPTION_AFTER_SUCCESS],
  [
    'CLOSED, failure below the threshold',
    { state: 'CLOSED', consecutiveFailures: 0 },
    failure,
    change({ state: 'CLOSED', consecutiveFailures: 1 }, kept),
  ],
  [
    'CLOSED, the failure that reaches the threshold',
    { state: 'CLOSED', consecutiveFailures: 2 },
    failure,
    change({ state: 'OPEN', consecutiveFailures: 3 }, opened),
  ],
  [
    'OPEN, failure: the cooldown stays',
    { state: 'OPEN', consecutiveFailures: 3 },
    failure,
    change({ state: 'OPEN', consecutiveFailures: 4 }, kept),
  ],
  [
    'HALF_OPEN, the probe fails: a new cooldown',
    { state: 'HALF_OPEN', consecutiveFailures: 3 },
    failure,
    change({ state: 'OPEN', consecutiveFailures: 4 }, opened),
  ],
  [
    'CLOSED, a 429 with Retry-After: paused as well',
    { state: 'CLOSED', consecutiveFailures: 0 },
    { ...failure, retryAfterMs: 2_000 },
    change({ state: 'CLOSED', consecutiveFailures: 1 }, kept, { pauseMs: 2_000 }),
  ],
  [
    'CLOSED, a 410: deactivated as well',
    { state: 'CLOSED', consecutiveFailures: 0 },
    { ...failure, disableSubscription: true },
    change({ state: 'CLOSED', consecutiveFailures: 1 }, kept, {
      deactivatedBecause: 'The receiver answered 410 Gone on 2026-12-04T12:00:00.000Z; set isActive to true to deliver again',
    }),
  ],
];

describe('the breaker after an attempt', () => {
  it.each(cases)('%s', (_, stored, result, expected) => {
    expect(subscriptionAfterAttempt(stored, result, settings, now)).toEqual(expected);
  });

  it('closes the circuit on a success whatever it was, and clears its opening and probe', () => {
    expect(SUBSCRIPTION_AFTER_SUCCESS).toEqual(change({ state: 'CLOSED', consecutiveFailures: 0 }, { kind: 'cleared' }));
  });

  it('opens at the threshold of 1 on the first failure', () => {
    expect(subscriptionAfterAttempt({ state: 'CLOSED', consecutiveFailures: 0 }, failure, { ...settings, threshold: 1 }, now)).toEqual(
      change({ state: 'OPEN', consecutiveFailures: 1 }, opened),
    );
  });

  it('moves a cooled-down OPEN circuit to HALF_OPEN', () => {
    expect(CIRCUIT_AFTER_COOLDOWN).toBe('HALF_OPEN');
  });
});

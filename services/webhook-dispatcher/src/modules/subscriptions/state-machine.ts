import type { CircuitState } from '@holdfast/contracts';

/**
 * The circuit breaker of one subscription (spec, "States and transitions"):
 *
 * | from      | event            | to                                                        |
 * | --------- | ---------------- | --------------------------------------------------------- |
 * | CLOSED    | success          | CLOSED, failures 0                                        |
 * | CLOSED    | failure          | CLOSED, failures + 1; OPEN once failures reach threshold  |
 * | OPEN      | cooldown-elapsed | HALF_OPEN (the next due delivery is sent alone, a probe)  |
 * | OPEN      | success          | CLOSED, failures 0 (an attempt started before opening)    |
 * | OPEN      | failure          | OPEN, failures + 1, cooldown unchanged                    |
 * | HALF_OPEN | success          | CLOSED, failures 0                                        |
 * | HALF_OPEN | failure          | OPEN again, for a new cooldown                            |
 * | any       | reset            | CLOSED, failures 0                                        |
 *
 * While OPEN, deliveries are kept and wait; nothing is dropped.
 */
export type CircuitEvent = 'success' | 'failure' | 'cooldown-elapsed' | 'reset';

export interface Circuit {
  state: CircuitState;
  consecutiveFailures: number;
}

export interface CircuitMove extends Circuit {
  /** True when this move (re)opens the circuit: opened-at is now, half-open-at now + cooldown. */
  opens: boolean;
}

export function nextCircuit(circuit: Circuit, event: CircuitEvent, threshold: number): CircuitMove {
  const closed: CircuitMove = { state: 'CLOSED', consecutiveFailures: 0, opens: false };
  if (event === 'reset' || event === 'success') return closed;
  if (event === 'cooldown-elapsed') {
    return circuit.state === 'OPEN' ? { ...circuit, state: 'HALF_OPEN', opens: false } : { ...circuit, opens: false };
  }
  const failures = circuit.consecutiveFailures + 1;
  switch (circuit.state) {
    case 'CLOSED':
      return failures >= threshold
        ? { state: 'OPEN', consecutiveFailures: failures, opens: true }
        : { state: 'CLOSED', consecutiveFailures: failures, opens: false };
    case 'HALF_OPEN':
      return { state: 'OPEN', consecutiveFailures: failures, opens: true };
    case 'OPEN':
      return { state: 'OPEN', consecutiveFailures: failures, opens: false };
  }
}

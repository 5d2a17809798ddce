import { registerCountGauge } from '@holdfast/http-kit';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AttemptOutcome } from './sender.js';

export interface DeliveryMetrics {
  attemptFinished: (outcome: AttemptOutcome) => void;
  /**
   * Deliveries whose final failure was stored: counted after the commit, so a last attempt whose
   * result was lost (and which is sent again once its claim expires) is not counted twice.
   */
  deliveriesExhausted: (count: number) => void;
  inFlight: (count: number) => void;
}

/**
 * Delivery metrics on the process's /metrics (infra/observability alerts on them): attempts by
 * outcome, their duration, deliveries that used their last retry, the attempts in flight in this
 * instance, and, read at scrape time for all instances, the deliveries waiting and the
 * subscriptions by circuit state.
 */
export function registerDeliveryMetrics(
  registry: Registry,
  reads: { pendingCount: () => Promise<number>; circuitCounts: () => Promise<Record<string, number>> },
): DeliveryMetrics {
  const attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'webhook_delivery_attempt_duration_seconds',
    help: 'Time from sending a delivery to its answer or failure',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const inFlight = new Gauge({ name: 'webhook_deliveries_in_flight', help: 'Attempts in flight in this instance', registers: [registry] });
  new Gauge({
    name: 'webhook_deliveries_pending',
    help: 'Deliveries waiting for an attempt (all instances), paused ones included',
    registers: [registry],
    async collect() {
      this.set(await reads.pendingCount());
    },
  });
  const exhausted = new Counter({
    name: 'webhook_deliveries_exhausted_total',
    help: 'Deliveries that failed for good: the retry schedule ran out, or the receiver answered 410',
    registers: [registry],
  });
  registerCountGauge(registry, {
    name: 'webhook_subscriptions_by_circuit',
    help: 'Subscriptions by circuit-breaker state (CLOSED, OPEN, HALF_OPEN), all instances',
    label: 'state',
    counts: reads.circuitCounts,
  });
  return {
    attemptFinished: (outcome) => {
      attempts.inc({ outcome: outcome.success ? 'success' : 'failure' });
      duration.observe(outcome.responseTimeMs / 1000);
    },
    deliveriesExhausted: (count) => {
      if (count > 0) exhausted.inc(count);
    },
    inFlight: (count) => inFlight.set(count),
  };
}

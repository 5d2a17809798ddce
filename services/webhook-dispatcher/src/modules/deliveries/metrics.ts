import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DeliveryMetrics } from './service.js';

/**
 * Delivery metrics on the process's /metrics: attempts by outcome, their duration, the attempts in
 * flight in this instance and the deliveries waiting (all instances, read at scrape time).
 */
export function registerDeliveryMetrics(registry: Registry, pendingCount: () => Promise<number>): DeliveryMetrics {
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
      this.set(await pendingCount());
    },
  });
  return {
    attemptFinished: (outcome) => {
      attempts.inc({ outcome: outcome.success ? 'success' : 'failure' });
      duration.observe(outcome.responseTimeMs / 1000);
    },
    inFlight: (count) => inFlight.set(count),
  };
}

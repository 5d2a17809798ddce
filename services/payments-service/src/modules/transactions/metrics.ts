import type { Sql } from '@holdfast/db';
import { Gauge, type Registry } from 'prom-client';
import type { createTransactionsRepository, InFlightAtStatus } from './repository.js';

/**
 * The money in flight (infra/observability's money-in-flight dashboard and its alerts), read at
 * scrape time: transactions by non-terminal status, the age of the oldest in each, and the escrows
 * still held after their hold deadline (a release or refund is owed; once the escrow's expiry
 * period passes too, anyone can pay the receiver with `claimExpired`).
 */
export function registerTransactionMetrics(deps: {
  registry: Registry;
  sql: Sql;
  transactions: Pick<ReturnType<typeof createTransactionsRepository>, 'inFlight'>;
}) {
  // One read serves the three gauges of a scrape: each collect() asks, the first one reads.
  let pending: Promise<Record<string, InFlightAtStatus>> | null = null;
  const read = () => {
    pending ??= deps.transactions.inFlight(deps.sql).finally(() => setImmediate(() => (pending = null)));
    return pending;
  };
  const gauge = (name: string, help: string, value: (s: InFlightAtStatus) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['status'] as const,
      registers: [deps.registry],
      async collect() {
        const byStatus = await read();
        this.reset();
        for (const [status, s] of Object.entries(byStatus)) this.set({ status }, value(s));
      },
    });
  gauge('payments_transactions_in_flight', 'Transactions not at a terminal status, by status', (s) => s.count);
  gauge(
    'payments_transactions_oldest_age_seconds',
    'Seconds the oldest transaction of each non-terminal status has been at it',
    (s) => s.oldestSeconds,
  );
  gauge(
    'payments_escrows_past_hold',
    'Transactions still held after their hold deadline, by status (escrowed: a release or refund is owed; disputed/in_review: a decision is)',
    (s) => s.pastHold,
  );
}

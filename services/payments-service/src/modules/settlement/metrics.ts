import type { Sql } from '@holdfast/db';
import { registerCountGauge } from '@holdfast/http-kit';
import { Counter, type Registry } from 'prom-client';
import type { SettlementRepository } from './repository.js';

/**
 * What an SRE alerts on in payments' money movement: on-chain instructions still owed or needing
 * an operator (the commands owed to other processes: the remote-task runner's gauge), and how CHAIN events were handled (a `rejected` or
 * `conflict` outcome is a payment that needs a look).
 */
export function registerSettlementMetrics(deps: { registry: Registry; sql: Sql; settlements: SettlementRepository }) {
  const { registry, sql } = deps;
  registerCountGauge(registry, {
    name: 'payments_settlements',
    help: "On-chain instructions of the attester's worker by status (pending/sending: owed; failed/superseded: need an operator)",
    label: 'status',
    counts: () => deps.settlements.countOpenByStatus(sql),
  });
  const chainEvents = new Counter({
    name: 'payments_chain_events_total',
    help: 'CHAIN messages handled, by kind and outcome (applied, noop, ignored, rejected, conflict, correction_unapplied, duplicate)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  return {
    chainEventHandled: (kind: string, outcome: string) => chainEvents.inc({ kind, outcome }),
  };
}

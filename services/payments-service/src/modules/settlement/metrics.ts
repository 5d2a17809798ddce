import type { Sql } from '@holdfast/db';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RemoteTasksRepository } from '../remote-tasks/repository.js';
import type { SettlementRepository } from './repository.js';

/**
 * What an SRE alerts on in payments' money movement: on-chain instructions still owed or needing
 * an operator, commands owed to other processes, and how CHAIN events were handled (a `rejected` or
 * `conflict` outcome is a payment that needs a look).
 */
export function registerSettlementMetrics(deps: {
  registry: Registry;
  sql: Sql;
  settlements: SettlementRepository;
  remoteTasks: RemoteTasksRepository;
}) {
  const { registry, sql } = deps;
  new Gauge({
    name: 'payments_settlements',
    help: "On-chain instructions of the attester's worker by status (pending/sending: owed; failed/superseded: need an operator)",
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const counts = await deps.settlements.countOpenByStatus(sql);
      for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    },
  });
  new Gauge({
    name: 'payments_remote_tasks',
    help: 'Commands owed to other processes by status (pending: not yet answered; dead: refused, needs a look)',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const counts = await deps.remoteTasks.countByStatus(sql);
      this.set({ status: 'pending' }, counts.pending);
      this.set({ status: 'dead' }, counts.dead);
    },
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

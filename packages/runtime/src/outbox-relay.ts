import type { DomainEvent } from '@holdfast/contracts';
import { outboxChannel, type Sql } from '@holdfast/db';
import { contextFromCarrier, type Logger, type TraceCarrier } from '@holdfast/logging';
import { sha256 } from '@holdfast/secrets';
import { context } from '@opentelemetry/api';
import { createPollingWorker } from './worker.js';

export interface OutboxRelayOptions {
  sql: Sql;
  schemaName: string;
  /** Publishes one event and resolves once the broker has stored it (JetStream ack). */
  publish: (event: DomainEvent) => Promise<void>;
  logger: Logger;
  batchSize?: number;
  /** Upper bound on the wait between passes when no NOTIFY arrives. */
  pollIntervalMs?: number;
  /** Published rows older than this are deleted. */
  retentionMs?: number;
}

export interface OutboxRelay {
  start: () => Promise<void>;
  /** Finishes the pass in progress, then stops. */
  stop: () => Promise<void>;
  /**
   * A pass now: called after a commit in this process that appended events, so they go out without
   * waiting for the NOTIFY to come back through PostgreSQL (which still wakes every other instance).
   */
  wake: () => void;
  /** One pass now; the number of events published. For tests and tools. */
  runOnce: () => Promise<number>;
  /** Unpublished rows, for metrics and readiness. */
  backlog: () => Promise<number>;
}

const RETENTION_SWEEP_MS = 60 * 60 * 1000;

/**
 * Publishes committed outbox rows in `seq` order. One relay at a time holds the schema's advisory
 * lock for a pass, so several instances never interleave. A row is marked published only after the
 * broker acknowledged it; a crash between the two re-publishes the row, and the broker drops the
 * copy because the message id (the event id) is the same.
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const { sql, schemaName, logger } = options;
  const batchSize = options.batchSize ?? 200;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const retentionMs = options.retentionMs ?? 7 * 24 * 60 * 60 * 1000;
  const lockKey = sha256(`holdfast:outbox:${schemaName}`, 'buffer').readBigInt64BE(0).toString();
  const table = sql(`${schemaName}.outbox`);
  const log = logger.child({ component: 'outbox-relay', schema: schemaName });

  let lastSweep = 0;

  async function runOnce(): Promise<number> {
    return sql.begin(async (tx) => {
      const [lock] = await tx<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(${lockKey}::bigint) as locked`;
      if (!lock?.locked) return 0;
      const rows = await tx<{ seq: string; payload: DomainEvent; trace_context: TraceCarrier | null }[]>`
        select seq, payload, trace_context from ${table} where published_at is null order by seq limit ${batchSize}`;
      if (rows.length === 0) return 0;
      // Sent in order on one connection, acknowledged in any order. Each publish runs in the trace
      // context stored with its row, so the event continues the trace of the change that wrote it.
      const results = await Promise.allSettled(
        rows.map((row) => context.with(contextFromCarrier(row.trace_context), () => options.publish(row.payload))),
      );
      const published = rows.filter((_, i) => results[i]?.status === 'fulfilled').map((row) => row.seq);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) log.warn({ err: failed.reason, failed: rows.length - published.length }, 'publish failed; will retry');
      if (published.length > 0) await tx`update ${table} set published_at = now() where seq in ${tx(published)}`;
      return published.length;
    });
  }

  async function sweep(): Promise<void> {
    if (Date.now() - lastSweep < RETENTION_SWEEP_MS) return;
    lastSweep = Date.now();
    // An ISO string, not a Date: drizzle replaces the client's timestamp serializers with identity.
    const cutoff = new Date(Date.now() - retentionMs).toISOString();
    await sql`delete from ${table} where published_at is not null and published_at < ${cutoff}`;
  }

  const worker = createPollingWorker({
    name: 'outbox-relay',
    logger: log,
    intervalMs: pollIntervalMs,
    pass: async () => {
      const count = await runOnce();
      await sweep();
      return count >= batchSize;
    },
    wakeOn: async (wake) => (await sql.listen(outboxChannel(schemaName), wake)).unlisten,
  });

  return {
    runOnce,
    wake: worker.wake,
    backlog: async () => {
      const [row] = await sql<{ n: number }[]>`select count(*)::int as n from ${table} where published_at is null`;
      return row?.n ?? 0;
    },
    start: async () => {
      await worker.start();
      log.info('outbox relay started');
    },
    stop: async () => {
      await worker.stop();
      log.info('outbox relay stopped');
    },
  };
}

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
  /** The least time between two passes, wake-ups included (a burst of commits is published in few passes). */
  coalesceMs?: number;
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
 * The wait before trying again when another instance held the pass: its pass may have read the rows
 * before the commit that woke this one (a change woken by `wake()` sends no NOTIFY), so this
 * instance comes back once that pass is likely over instead of after the poll interval.
 */
const HELD_ELSEWHERE_RETRY_MS = 20;

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
  const coalesceMs = options.coalesceMs ?? 5;
  const retentionMs = options.retentionMs ?? 7 * 24 * 60 * 60 * 1000;
  const lockKey = sha256(`holdfast:outbox:${schemaName}`, 'buffer').readBigInt64BE(0).toString();
  const table = sql(`${schemaName}.outbox`);
  const log = logger.child({ component: 'outbox-relay', schema: schemaName });

  let lastSweep = 0;

  /** One pass: the number of events published, or null when another instance holds the pass. */
  async function pass(): Promise<number | null> {
    return sql.begin(async (tx) => {
      // The lock and the read in one statement: no rows are read unless the lock is held.
      const read = await tx<{ locked: boolean; seq: string | null; payload: DomainEvent; trace_context: TraceCarrier | null }[]>`
        with lock as materialized (select pg_try_advisory_xact_lock(${lockKey}::bigint) as locked)
        select lock.locked, o.seq, o.payload, o.trace_context from lock left join lateral (
          select seq, payload, trace_context from ${table} where lock.locked and published_at is null order by seq limit ${batchSize}
        ) o on true`;
      if (!read[0]?.locked) return null;
      const rows = read.filter((row): row is typeof row & { seq: string } => row.seq !== null);
      if (rows.length === 0) return 0;
      // Sent in order on one connection, acknowledged in any order. Each publish runs in the trace
      // context stored with its row, so the event continues the trace of the change that wrote it.
      const results = await Promise.allSettled(
        rows.map((row) => context.with(contextFromCarrier(row.trace_context), () => options.publish(row.payload))),
      );
      const published = rows.filter((_, i) => results[i]?.status === 'fulfilled').map((row) => row.seq);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) log.warn({ err: failed.reason, failed: rows.length - published.length }, 'publish failed; will retry');
      // One array parameter, not a list of them: the same prepared statement for every pass, however
      // many rows it published (`in (...)` made one per batch size, each planned anew on each connection).
      if (published.length > 0) await tx`update ${table} set published_at = now() where seq = any(${`{${published.join(',')}}`}::bigint[])`;
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
    coalesceMs,
    pass: async () => {
      const count = await pass();
      if (count === null) return HELD_ELSEWHERE_RETRY_MS;
      await sweep();
      return count >= batchSize;
    },
    wakeOn: async (wake) => (await sql.listen(outboxChannel(schemaName), wake)).unlisten,
  });

  return {
    runOnce: async () => (await pass()) ?? 0,
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

import type { DomainEvent } from '@holdfast/contracts';
import { activeTraceCarrier, type TraceCarrier } from '@holdfast/logging';
import { sql } from 'drizzle-orm';
import { bigserial, index, jsonb, type PgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { ISql, PendingQuery, Row } from 'postgres';

/**
 * The outbox of a process, in its own schema: a state change and the event announcing it are
 * inserted in one transaction; the relay publishes committed rows.
 */
export function outboxTable(schema: PgSchema) {
  return schema.table(
    'outbox',
    {
      seq: bigserial('seq', { mode: 'number' }).primaryKey(),
      id: text('id').notNull().unique(),
      type: text('type').notNull(),
      platformId: uuid('platform_id'),
      payload: jsonb('payload').$type<DomainEvent>().notNull(),
      /** The trace context of the change (W3C traceparent), so the relay's publish continues its trace; null when tracing is off. */
      traceContext: jsonb('trace_context').$type<TraceCarrier>(),
      createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
      publishedAt: timestamp('published_at', { withTimezone: true, mode: 'date' }),
    },
    (t) => [index('outbox_unpublished_idx').on(t.seq).where(sql`published_at is null`)],
  );
}
export type OutboxTable = ReturnType<typeof outboxTable>;

export function outboxChannel(schemaName: string): string {
  return `holdfast_outbox_${schemaName}`;
}

/**
 * Adds events to the outbox inside the caller's `sql.begin` transaction and wakes the relay when
 * (and only if) that transaction commits. The table is `outbox` of the connection's own schema (its
 * search_path). The one way to write an event: payments' repositories are postgres.js. (A change
 * made in one statement puts `outboxInsert` in it instead, and wakes its relay itself once the
 * statement returned: no NOTIFY, whose commit-time lock serializes every notifying commit.)
 */
export async function appendToOutboxSql(tx: ISql, schemaName: string, events: readonly DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  // Sent together, one round trip (postgres.js pipelines them on the transaction's connection; they run in order).
  await Promise.all([outboxInsert(tx, events), tx`select pg_notify(${outboxChannel(schemaName)}, '')`]);
}

/**
 * The insert of `events` into the outbox as a fragment of the caller's statement (a data-modifying
 * CTE of a change made in one statement), inserted only `when` that condition holds (e.g. the
 * change's row was inserted; the recordset's alias is `e`, so a condition may name `e.id`). One
 * statement whatever the number of events. Each event carries the active trace context, or its own
 * from `traceContexts` (one per event: changes of several requests made in one statement).
 */
export function outboxInsert(
  tx: ISql,
  events: readonly DomainEvent[],
  when?: PendingQuery<Row[]>,
  traceContexts?: readonly (TraceCarrier | null)[],
): PendingQuery<Row[]> {
  // The payloads go as JSON text cast to jsonb: drizzle replaces the client's json serializers
  // (`tx.json(...)` fails on a client drizzle wraps, such as every service's `database.sql`).
  const where = when ? tx`where ${when}` : tx``;
  if (traceContexts) {
    const rows = JSON.stringify(
      events.map((event, i) => ({
        id: event.id,
        type: event.type,
        platform_id: event.platformId,
        payload: event,
        trace_context: traceContexts[i] ?? null,
      })),
    );
    return tx`insert into outbox (id, type, platform_id, payload, trace_context)
      select e.id, e.type, e.platform_id, e.payload, e.trace_context
      from jsonb_to_recordset(${rows}::text::jsonb) as e(id text, type text, platform_id uuid, payload jsonb, trace_context jsonb)
      ${where}`;
  }
  const traceContext = activeTraceCarrier();
  const rows = JSON.stringify(events.map((event) => ({ id: event.id, type: event.type, platform_id: event.platformId, payload: event })));
  return tx`insert into outbox (id, type, platform_id, payload, trace_context)
    select e.id, e.type, e.platform_id, e.payload, ${traceContext ? JSON.stringify(traceContext) : null}::text::jsonb
    from jsonb_to_recordset(${rows}::text::jsonb) as e(id text, type text, platform_id uuid, payload jsonb)
    ${where}`;
}

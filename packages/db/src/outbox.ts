import type { DomainEvent } from '@holdfast/contracts';
import { sql } from 'drizzle-orm';
import type { PgTransaction } from 'drizzle-orm/pg-core';
import { bigserial, index, jsonb, type PgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { ISql } from 'postgres';

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

// biome-ignore lint/suspicious/noExplicitAny: any drizzle transaction of any schema
type AnyTransaction = PgTransaction<any, any, any>;

/**
 * Adds events to the outbox inside the caller's transaction and wakes the relay when (and only
 * if) that transaction commits.
 */
export async function appendToOutbox(tx: AnyTransaction, table: OutboxTable, schemaName: string, events: DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  await tx.insert(table).values(events.map((event) => ({ id: event.id, type: event.type, platformId: event.platformId, payload: event })));
  await tx.execute(sql`select pg_notify(${outboxChannel(schemaName)}, '')`);
}

/**
 * `appendToOutbox` for repositories written with postgres.js: inside the caller's `sql.begin`
 * transaction (the relay only sees the rows, and is only woken, once it commits). The table is
 * `outbox` of the connection's own schema (its search_path).
 */
export async function appendToOutboxSql(tx: ISql, schemaName: string, events: readonly DomainEvent[]): Promise<void> {
  if (events.length === 0) return;
  // `$n::text::jsonb`: `tx.json(...)` breaks on a service's pool, whose JSON serializers drizzle made transparent.
  await tx`
    insert into outbox (id, type, platform_id, payload)
    select e->>'id', e->>'type', (e->>'platformId')::uuid, e
    from jsonb_array_elements(${JSON.stringify(events)}::text::jsonb) with ordinality as x(e, n) order by n`;
  await tx`select pg_notify(${outboxChannel(schemaName)}, '')`;
}

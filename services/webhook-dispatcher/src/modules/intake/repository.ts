import type { DomainEvent } from '@holdfast/contracts';
import type { TraceCarrier } from '@holdfast/logging';
import type { Sql } from 'postgres';
import { DELIVERIES_WAKE_CHANNEL } from '../../db/channels.js';

export interface IntakeRepository {
  /**
   * Stores each event unless already stored and, atomically with them, one pending delivery per
   * active subscription that names the event's type and owns the event (its platform, or its
   * platform's workspace). Returns the number of new events and of deliveries created. One
   * statement, so one commit (one WAL flush) for the whole batch.
   */
  recordMany: (events: IntakeItem[]) => Promise<{ newEvents: number; deliveries: number }>;
}

/** An event taken from the stream, with the trace context it arrived in (null when tracing is off). */
export interface IntakeItem {
  event: DomainEvent;
  traceContext: TraceCarrier | null;
}

/**
 * `origin` names this process in the NOTIFY the intake sends: its own delivery worker is woken
 * directly after the commit and skips it, the other instances' workers wake on it.
 */
export function createIntakeRepository(sql: Sql, origin: string): IntakeRepository {
  return {
    recordMany: async (events) => {
      const rows = events.map(({ event, traceContext }) => ({
        id: event.id,
        type: event.type,
        platform_id: event.platformId,
        workspace_id: event.workspaceId ?? null,
        payload: event,
        occurred_at: event.createdAt,
        trace_context: traceContext,
      }));
      const [result] = await sql<{ new_events: number; deliveries: number }[]>`
        with input as (
          select * from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb)
            as x(id text, type text, platform_id uuid, workspace_id uuid, payload jsonb, occurred_at timestamptz, trace_context jsonb)
        ),
        event as (
          insert into received_events (id, type, platform_id, workspace_id, payload, occurred_at, trace_context)
          select id, type, platform_id, workspace_id, payload, occurred_at, trace_context from input
          on conflict (id) do nothing
          returning id, type, platform_id, workspace_id
        ),
        created as (
          insert into deliveries (id, subscription_id, event_id, event_type)
          select gen_random_uuid(), s.id, event.id, event.type
          from event
          join subscriptions s on s.is_active and event.type = any(s.event_types)
            and (s.platform_id = event.platform_id or s.workspace_id = event.workspace_id)
          returning 1
        ),
        woken as (
          select pg_notify(${DELIVERIES_WAKE_CHANNEL}, ${origin}) from (select 1 from created limit 1) as any_created
        )
        select (select count(*)::int from event) as new_events, (select count(*)::int from created) as deliveries,
               (select count(*) from woken) as woken`;
      return { newEvents: result?.new_events ?? 0, deliveries: result?.deliveries ?? 0 };
    },
  };
}

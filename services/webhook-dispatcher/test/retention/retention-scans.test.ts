import { fileFixture } from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { createRetentionRepository } from '../../src/modules/retention/repository.js';
import { startTestDispatcher } from '../support/dispatcher.js';

// The hourly purge deletes in batches what is older than 30 days. Each batch must reach its rows
// through the time indexes and delete them through the primary key. As "id in (batch)" the
// planner (with the plan a long-lived connection keeps, and for large batches even without it)
// hashed the batch and read the whole table to find them, and the events' batch hashed every
// delivery kept to find the events that have none: every batch read all of 30 days of every
// tenant's rows. Counted here as rows read by sequential scans in the pass's own transaction, not timed.

const KEPT = 3000;
// The instance never polls during the test; its own purge runs once, at start, on an empty database.
const dispatcher = fileFixture(() => startTestDispatcher({}, { pollIntervalMs: 600_000 }));

describe('a retention pass over 30 days of other tenants', () => {
  it('reads the old rows through their indexes, not the tables kept', async () => {
    const sql = postgres(dispatcher.db.url, { max: 1, onnotice: () => {}, connection: { search_path: 'webhooks' } });
    try {
      // Many platforms' subscriptions, each with recent events, finished deliveries and log entries (kept).
      await sql`
        insert into subscriptions (id, platform_id, url, event_types, secret_sealed)
        select gen_random_uuid(), gen_random_uuid(), 'https://receiver.example/' || g, '{transaction.created}', 'sealed'
        from generate_series(1, 100) g`;
      const history = (prefix: string, from: number, to: number, at: string, status: string) => sql`
        with subs as (select id, platform_id, row_number() over (order by id) - 1 as n from subscriptions),
        events as (
          insert into received_events (id, type, platform_id, payload, occurred_at, received_at)
          select ${prefix} || g, 'transaction.created', s.platform_id, '{}'::jsonb, ${at}::timestamptz, ${at}::timestamptz
          from generate_series(${from}::int, ${to}::int) g join subs s on s.n = g % 100
          returning id, platform_id),
        created as (
          insert into deliveries (id, subscription_id, event_id, event_type, status, attempt_count, next_attempt_at, created_at, updated_at)
          select gen_random_uuid(), s.id, e.id, 'transaction.created', ${status}, 1,
                 now() + interval '1 day', ${at}::timestamptz, ${at}::timestamptz
          from events e join subscriptions s on s.platform_id = e.platform_id
          returning id, subscription_id, event_id)
        insert into delivery_attempts (id, subscription_id, delivery_id, event_id, event_type, attempt, success, status_code,
                                       response_time_ms, request_headers, created_at)
        select gen_random_uuid(), subscription_id, id, event_id, 'transaction.created', 1, ${status} = 'succeeded', 200, 5, '{}'::jsonb,
               ${at}::timestamptz
        from created`;
      const now = new Date();
      const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();
      await history('evt_kept_', 1, KEPT, daysAgo(2), 'succeeded');
      // Older than 30 days: four delivered, one failed, one still pending (kept, with its event), and two events no subscription took.
      await history('evt_old_', 1, 4, daysAgo(40), 'succeeded');
      await history('evt_old_failed_', 1, 1, daysAgo(40), 'failed');
      await history('evt_old_pending_', 1, 1, daysAgo(40), 'pending');
      await sql`
        insert into received_events (id, type, platform_id, payload, occurred_at, received_at)
        select 'evt_old_unmatched_' || g, 'transaction.created', gen_random_uuid(), '{}'::jsonb, ${daysAgo(40)}::timestamptz,
               ${daysAgo(40)}::timestamptz
        from generate_series(1, 2) g`;
      await sql`analyze`;

      const { purged, seqRead } = await sql.begin(async (tx) => {
        // The plan a long-lived connection keeps.
        await tx`set local plan_cache_mode = force_generic_plan`;
        // The purge takes its own connection from the pool; here it is this transaction (the
        // counters below count what this transaction did).
        const conn = Object.assign((...args: Parameters<typeof tx>) => tx(...args), { release: () => {} });
        const viaTransaction = { reserve: async () => conn } as unknown as postgres.Sql;
        const purged = await createRetentionRepository(viaTransaction).purge(new Date(now.getTime() - 30 * 86_400_000));
        const [read] = await tx<{ attempts: number; deliveries: number; events: number }[]>`
          select pg_stat_get_xact_tuples_returned('webhooks.delivery_attempts'::regclass)::int as attempts,
                 pg_stat_get_xact_tuples_returned('webhooks.deliveries'::regclass)::int as deliveries,
                 pg_stat_get_xact_tuples_returned('webhooks.received_events'::regclass)::int as events`;
        return { purged, seqRead: read! };
      });

      // The six old log entries, the five old finished deliveries, and the old events without a delivery left.
      expect(purged).toEqual({ attempts: 6, deliveries: 5, events: 7 });
      const [left] = await sql<{ attempts: number; deliveries: number; events: number; old: string[] }[]>`
        select (select count(*)::int from delivery_attempts) as attempts, (select count(*)::int from deliveries) as deliveries,
               (select count(*)::int from received_events) as events,
               (select array_agg(id) from received_events where id like 'evt_old%') as old`;
      expect(left).toEqual({ attempts: KEPT, deliveries: KEPT + 1, events: KEPT + 1, old: ['evt_old_pending_1'] });
      // A sequential scan returns every row kept; the index probes return none of them.
      expect(seqRead.attempts).toBeLessThan(KEPT / 10);
      expect(seqRead.deliveries).toBeLessThan(KEPT / 10);
      expect(seqRead.events).toBeLessThan(KEPT / 10);
    } finally {
      await sql.end();
    }
  });
});

import { randomUUID } from 'node:crypto';
import { WebhookCommands } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { createDeliveriesRepository } from '../../src/modules/deliveries/repository.js';
import { startTestDispatcher } from '../support/dispatcher.js';

// A backlog that the planner has not seen: the deliveries table was last analyzed with a history and
// nothing due (a running system between bursts), then a receiver's outage left thousands of
// deliveries due. A claim pass must reach the deliveries it chose through their primary key. As a
// join filtered on the due index's predicate it walked every due delivery and compared it with each
// chosen one (20-270 ms a pass in the webhooks bench, docs/perf/dispatcher-statistics.md). Counted
// here as index tuples read in the pass's own transaction, not timed.

const BACKLOG = 2000;
// The instance never polls during the test (the pass under test is run directly).
const dispatcher = fileFixture(() => startTestDispatcher({}, { pollIntervalMs: 600_000 }));

describe('a claim pass over a backlog the statistics do not know', () => {
  it('claims its deliveries through their primary key, reading few of the due index', async () => {
    const owner = { platformId: randomUUID() };
    const { id: subscriptionId } = await dispatcher.send(WebhookCommands.create, {
      owner,
      url: 'https://receiver.example/hook',
      eventTypes: ['transaction.created'],
    });
    const sql = postgres(dispatcher.db.url, { max: 1, onnotice: () => {}, connection: { search_path: 'webhooks' } });
    try {
      // History (delivered), then statistics with nothing due, then the backlog.
      const deliveries = (from: number, to: number, status: string) => sql`
        with events as (
          insert into received_events (id, type, platform_id, payload, occurred_at)
          select 'evt_backlog_' || g, 'transaction.created', ${owner.platformId}, '{}'::jsonb, now() from generate_series(${from}::int, ${to}::int) g
          returning id)
        insert into deliveries (id, subscription_id, event_id, event_type, status, next_attempt_at)
        select gen_random_uuid(), ${subscriptionId}, id, 'transaction.created', ${status},
          now() - interval '10 seconds' + (substr(id, 13)::int) * interval '1 millisecond' from events`;
      await deliveries(1, 3000, 'succeeded');
      await sql`analyze deliveries`;
      await deliveries(3001, 3000 + BACKLOG, 'pending');

      const { claimed, dueIndexRead } = await sql.begin(async (tx) => {
        // The plan a long-lived connection keeps.
        await tx`set local plan_cache_mode = force_generic_plan`;
        const repository = createDeliveriesRepository(tx as unknown as postgres.Sql);
        const claimed = await repository.claimDue({
          freeSlots: 10,
          limit: 10,
          perSubscription: 10,
          queuePerSubscription: 0,
          leaseMs: 30_000,
          held: [],
          settlement: { results: [], transfers: [], releases: [] },
        });
        const [read] = await tx<{ n: number }[]>`
          select pg_stat_get_xact_tuples_returned('webhooks.deliveries_subscription_due_idx'::regclass)::int as n`;
        return { claimed, dueIndexRead: read!.n };
      });

      // Ten claimed, the oldest, each now leased to this claim.
      expect(claimed).toHaveLength(10);
      expect(new Set(claimed.map((d) => d.subscription_id))).toEqual(new Set([subscriptionId]));
      const [leased] = await sql<{ n: number }[]>`
        select count(*)::int as n from deliveries where claim_token is not null and claimed_until > now() and holds_slot`;
      expect(leased!.n).toBe(10);
      // The candidates' scan reads the ten it takes (and a few more); walking the backlog reads it all.
      expect(dueIndexRead).toBeLessThan(BACKLOG / 10);
    } finally {
      await sql.end();
    }
  });
});

import { randomUUID } from 'node:crypto';
import { WebhookCommands } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { createDeliveriesRepository } from '../../src/modules/deliveries/repository.js';
import { startTestDispatcher } from '../support/dispatcher.js';

// A page of a busy subscription's delivery logs, newest first. The index on (subscription, time)
// did not end in the id the page is also ordered by, so PostgreSQL read every entry the
// subscription kept (up to 30 days of them) and sorted them for each page. Counted here as rows the
// page's statements fetched from the table in their own transaction, not timed: the page reads its
// rows in order through the index, and the total is counted from the index alone.

const KEPT = 3000;
const dispatcher = fileFixture(() => startTestDispatcher({}, { pollIntervalMs: 600_000 }));

describe("a page of a busy subscription's delivery logs", () => {
  it('reads its page through the index in order, and counts the total without the rows', async () => {
    const subscribe = async () =>
      (
        await dispatcher.send(WebhookCommands.create, {
          owner: { platformId: randomUUID() },
          url: 'https://receiver.example/hook',
          eventTypes: ['transaction.created'],
        })
      ).id;
    const busy = await subscribe();
    // Other platforms' subscriptions, each with a few entries: the statistics of a real table.
    const others: string[] = [];
    for (let i = 0; i < 40; i++) others.push(await subscribe());
    const sql = postgres(dispatcher.db.url, { max: 1, onnotice: () => {}, connection: { search_path: 'webhooks' } });
    try {
      // One entry a second, some at the same time (the id orders those), every tenth a failure.
      const entries = (subscriptionId: string, n: number) => sql`
        insert into delivery_attempts (id, subscription_id, delivery_id, event_id, event_type, attempt, success, status_code,
          response_time_ms, request_headers, created_at)
        select gen_random_uuid(), ${subscriptionId}, gen_random_uuid(), 'evt_logs_' || g, 'transaction.created', 1,
          g % 10 <> 0, case when g % 10 = 0 then 500 else 200 end, 12, '{}'::jsonb,
          timestamptz '2026-11-01T00:00:00Z' + (g / 2) * interval '1 second'
        from generate_series(1, ${n}::int) g`;
      await entries(busy, KEPT);
      for (const other of others) await entries(other, 100);
      await sql`vacuum analyze delivery_attempts`;

      const { page, failures, pageRead, failuresRead } = await sql.begin(async (tx) => {
        // The plan a long-lived connection keeps.
        await tx`set local plan_cache_mode = force_generic_plan`;
        // Table rows this transaction has read so far: by sequential scans, by bitmap scans, through
        // any index of the table (an index-only scan of the total reads none of them).
        const rowsRead = async () => {
          const [row] = await tx<{ n: number }[]>`
            select (pg_stat_get_xact_tuples_returned('webhooks.delivery_attempts'::regclass)
              + pg_stat_get_xact_tuples_fetched('webhooks.delivery_attempts'::regclass)
              + (select coalesce(sum(pg_stat_get_xact_tuples_fetched(indexrelid)), 0) from pg_index
                 where indrelid = 'webhooks.delivery_attempts'::regclass))::int as n`;
          return row!.n;
        };
        const repository = createDeliveriesRepository(tx as unknown as postgres.Sql);
        const page = await repository.logs(busy, { limit: 20, offset: 20 });
        const pageRead = await rowsRead();
        const failures = await repository.logs(busy, { limit: 5, offset: 0, success: false });
        const failuresRead = (await rowsRead()) - pageRead;
        return { page, failures, pageRead, failuresRead };
      });

      const expected = await sql<{ id: string }[]>`
        select id from delivery_attempts where subscription_id = ${busy} order by created_at desc, id desc limit 20 offset 20`;
      expect(page.total).toBe(KEPT);
      expect(page.rows.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      expect(page.rows.every((r) => r.subscriptionId === busy)).toBe(true);
      expect(failures.total).toBe(KEPT / 10);
      expect(failures.rows.map((r) => [r.success, r.statusCode])).toEqual(Array(5).fill([false, 500]));
      // Reading and sorting the subscription's entries reads all of them, for each page: the page
      // reads the 40 entries up to its end, the failures page its 5.
      expect(pageRead).toBeLessThan(KEPT / 20);
      expect(failuresRead).toBeLessThan(KEPT / 20);
    } finally {
      await sql.end();
    }
  });
});

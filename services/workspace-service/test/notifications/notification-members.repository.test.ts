import { randomUUID } from 'node:crypto';
import { sql as drizzleSql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationsRepository } from '../../src/modules/notifications/repository.js';
import { insertBareWorkspace, openTestDatabase, type TestDb } from '../support/db.js';

// Every payment event of a workspace asks who its members are, with their notification choices.
// Joined to the preferences as a hash join, each event read every user's preferences of every
// workspace (2.7 ms at 15,000 users and growing with them). Each member's choices must be read through
// the preferences' primary key: counted here as rows the statement read by sequential scans of
// notification_preferences in its own transaction, not timed.

const OTHERS = 15_000;
let database: TestDb;

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe("a workspace's notification recipients", () => {
  it("are its active ADMINs and CLIENTs with their own choices, read without scanning every user's", async () => {
    const sql = database.sql;
    const workspaceId = randomUUID();
    const other = randomUUID();
    for (const id of [workspaceId, other]) {
      await insertBareWorkspace(database, id);
    }
    // Another workspace's users, each with choices of their own.
    await sql`
      with u as (
        insert into workspace.users (id, email, password_hash, role, status, workspace_id)
        select gen_random_uuid(), 'other-' || g || '@w.test', 'x', 'CLIENT', 'active', ${other}::uuid from generate_series(1, ${OTHERS}::int) g
        returning id)
      insert into workspace.notification_preferences (user_id, events) select id, '{"transaction.created": false}'::jsonb from u`;
    const user = async (role: string, status: string, events?: Record<string, boolean>) => {
      const id = randomUUID();
      await sql`insert into workspace.users (id, email, password_hash, role, status, workspace_id)
        values (${id}, ${`${id}@w.test`}, 'x', ${role}, ${status}, ${workspaceId})`;
      if (events) {
        await sql`insert into workspace.notification_preferences (user_id, events) values (${id}, ${JSON.stringify(events)}::jsonb)`;
      }
      return id;
    };
    const admin = await user('ADMIN', 'active', { 'transaction.created': false, 'dispute.created': true });
    const client = await user('CLIENT', 'active');
    await user('CLIENT', 'suspended', { 'transaction.created': true });
    await user('SUPER_ADMIN', 'active');
    await sql`analyze workspace.users`;
    await sql`analyze workspace.notification_preferences`;

    const { members, seqRead } = await database.db.transaction(async (tx) => {
      // The plan a long-lived connection keeps.
      await tx.execute(drizzleSql`set local plan_cache_mode = force_generic_plan`);
      const members = await createNotificationsRepository(tx).members(workspaceId);
      const [read] = await tx.execute<{ n: number }>(
        drizzleSql`select pg_stat_get_xact_tuples_returned('workspace.notification_preferences'::regclass)::int as n`,
      );
      return { members, seqRead: read!.n };
    });

    expect(new Map(members.map((m) => [m.userId, m.overrides]))).toEqual(
      new Map([
        [admin, { 'transaction.created': false, 'dispute.created': true }],
        [client, null],
      ]),
    );
    // A sequential scan hands every kept preference to the join; index probes read none that way.
    expect(seqRead).toBeLessThan(OTHERS / 10);
  });
});

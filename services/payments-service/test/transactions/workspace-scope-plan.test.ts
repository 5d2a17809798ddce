import { fileFixture } from '@holdfast/test-fixtures';
import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { createWorkspaceTransactionsRepository, type TransactionScope } from '../../src/modules/workspace-transactions/repository.js';
import { startPaymentsEnv } from '../support/harness.js';
import { newTenant } from '../support/transactions.js';

// Issue 16: the Workspace API's list and stats find a workspace's transactions by its platforms and
// by its addresses (from, to, or under a METADATA_ADDRESS_KEYS key, in any case). Written as one
// lower(column) = any(addresses) per column, no index served the address branches and every
// statement read every platform's transactions (6.2 ms at 7,100 rows for a workspace owning 100,
// growing with the table). They must reach the workspace's rows through indexes: no sequential scan
// of transactions, and few rows fetched, under a custom plan and under the generic plan a
// long-lived connection keeps (postgres.js prepares its statements). Counted in the statement's
// own transaction, not timed.

const OTHERS = 4000;
const e = fileFixture(() => startPaymentsEnv());
const own = fileFixture(() => newTenant(e));
const other = fileFixture(() => newTenant(e));

const A = '0xAbCdEf00000000000000000000000000000000a1';
const B = '0xABCDEF00000000000000000000000000000000B2';

describe('a workspace scope among many platforms', () => {
  it('lists and counts exactly its rows, through indexes, without reading the table', async () => {
    const insert = (n: number, platformId: string, status: string, from: string, to: string, metadata: object) => e.sql`
      insert into transactions (id, platform_id, status, amount, currency, from_address, to_address, blockchain_network,
        orchestration_type, metadata, created_at)
      values (('00000000-0000-4000-8000-' || lpad(${n}::text, 12, '0'))::uuid, ${platformId}, ${status}, ${`${n}.25`}, 'USDC',
        ${from}, ${to}, 'base-sepolia', 'escrow', ${e.sql.json(metadata as postgres.JSONValue)},
        '2026-01-01T00:00:00Z'::timestamptz + ${n}::int * interval '1 minute')`;
    const filler = (n: number) => `0x${n.toString(16).padStart(40, 'f')}`;
    // Other platforms' transactions: the many, on 40 platforms (as a table shared by many platforms
    // is; with two, PostgreSQL would rightly expect any platform to hold half the rows).
    const platforms = await e.sql<{ id: string }[]>`
      insert into platforms (id, name, scopes)
      select gen_random_uuid(), 'scope plan ' || g, '{}' from generate_series(1, 40) g returning id`;
    await e.sql`
      insert into transactions (id, platform_id, status, amount, currency, from_address, to_address, blockchain_network,
        orchestration_type, metadata, created_at)
      select gen_random_uuid(), (${e.sql.array(platforms.map((p) => p.id))}::uuid[])[1 + g % 40], 'pending', 1, 'USDC', '0x' || md5(g::text), '0x' || md5((g + 1)::text),
        'base-sepolia', 'escrow', case when g % 3 = 0 then jsonb_build_object('walletAddress', '0x' || md5((g + 2)::text)) else '{}'::jsonb end,
        '2025-01-01T00:00:00Z'::timestamptz + g * interval '1 second'
      from generate_series(1, ${OTHERS}::int) g`;
    // The workspace's: on its platform (metadata addresses count there only), and on the other
    // platform by its from or to address, in mixed case.
    await insert(1, own.platformId, 'completed', filler(1), filler(2), {});
    await insert(2, own.platformId, 'rescinded', filler(3), filler(4), { note: 'own platform' });
    await insert(3, other.platformId, 'escrowed', A.toUpperCase().replace('0X', '0x'), filler(5), {});
    await insert(4, other.platformId, 'failed', filler(6), B.toLowerCase(), {});
    await insert(5, own.platformId, 'completed', filler(7), filler(8), { walletAddress: B });
    await insert(6, own.platformId, 'disputed', filler(9), filler(10), { senderWalletAddress: A.toLowerCase() });
    await insert(7, own.platformId, 'pending', filler(11), filler(12), { recipientWalletAddress: A });
    // Not the workspace's: an address under another key, a longer address, a number, a null, and
    // another platform's metadata naming the workspace's address (issue 28 item 5: anyone can write it).
    await insert(11, other.platformId, 'pending', filler(18), filler(19), { recipientWalletAddress: A });
    await insert(8, other.platformId, 'completed', `${A}00`, filler(13), { note: A });
    await insert(9, other.platformId, 'completed', filler(14), filler(15), { walletAddress: 12 });
    await insert(10, other.platformId, 'completed', filler(16), filler(17), { senderWalletAddress: null });
    await e.sql`analyze transactions`;

    const scope: TransactionScope = { platformIds: [own.platformId], addresses: [A.toLowerCase(), B.toLowerCase()] };
    const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

    for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
      const measured = await e.sql.begin(async (tx) => {
        await tx`set local plan_cache_mode = ${tx.unsafe(mode)}`;
        const repository = createWorkspaceTransactionsRepository(tx as unknown as postgres.Sql);
        // Twice each: the second execution runs the statement postgres.js prepared.
        await repository.list(scope, {}, 1, 20);
        await repository.stats(scope);
        const before = await counters(tx);
        const page = await repository.list(scope, {}, 1, 20);
        const second = await repository.list(scope, { statuses: ['completed', 'failed', 'escrowed'] }, 2, 2);
        const stats = await repository.stats(scope);
        const got = await repository.get(scope, id(6));
        const notOurs = await repository.get(scope, id(8));
        const othersMetadata = await repository.get(scope, id(11));
        const after = await counters(tx);
        return {
          page,
          second,
          stats,
          got,
          notOurs,
          othersMetadata,
          seqScans: after.seqScans - before.seqScans,
          fetched: after.fetched - before.fetched,
        };
      });

      // Exactly the workspace's rows, newest first, with the total.
      expect(measured.page.total, mode).toBe(7);
      expect(measured.page.transactions.map((t) => t.id)).toEqual([7, 6, 5, 4, 3, 2, 1].map(id));
      expect(measured.page.transactions.find((t) => t.id === id(3))).toMatchObject({
        platformId: other.platformId,
        platformName: expect.any(String),
        status: 'escrowed',
        amount: '3.25',
        fromAddress: A.toUpperCase().replace('0X', '0x'),
      });
      expect(measured.page.transactions.find((t) => t.id === id(5))?.metadata).toEqual({ walletAddress: B });
      // Filters and pages within the scope: completed 5, 1; failed 4; escrowed 3 -> page 2 of 2 is [3, 1].
      expect(measured.second.total).toBe(4);
      expect(measured.second.transactions.map((t) => t.id)).toEqual([3, 1].map(id));
      expect(measured.stats).toEqual({
        PENDING: { count: 1, total_amount: '7.25' },
        ESCROWED: { count: 1, total_amount: '3.25' },
        IN_REVIEW: { count: 1, total_amount: '6.25' },
        COMPLETED: { count: 2, total_amount: '6.5' },
        FAILED: { count: 1, total_amount: '4.25' },
        CANCELLED: { count: 1, total_amount: '2.25' },
      });
      expect(measured.got?.id).toBe(id(6));
      expect(measured.notOurs).toBeNull();
      expect(measured.othersMetadata).toBeNull();

      // Through indexes: no statement read the table from end to end (each would read 4,010 rows).
      expect(measured.seqScans, mode).toBe(0);
      expect(measured.fetched, mode).toBeLessThan(OTHERS / 10);
    }
  });
});

/** Sequential scans of transactions and the rows read from it (by them, and by index and bitmap scans), in this transaction so far. */
async function counters(tx: postgres.TransactionSql) {
  const [row] = await tx<{ seqScans: number; fetched: number }[]>`
    select pg_stat_get_xact_numscans('transactions'::regclass)::int as "seqScans",
      (pg_stat_get_xact_tuples_returned('transactions'::regclass) + pg_stat_get_xact_tuples_fetched('transactions'::regclass))::int as fetched`;
  return row!;
}

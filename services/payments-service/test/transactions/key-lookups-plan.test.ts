import { randomUUID } from 'node:crypto';
import { fileFixture } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { ANSWER_BY_KEYS, createTransactionsRepository } from '../../src/modules/transactions/repository.js';
import { startPaymentsEnv } from '../support/harness.js';
import { newTenant } from '../support/transactions.js';

// The grouped idempotency-key lookup runs as a prepared statement, so after a few executions
// PostgreSQL may keep one generic plan for it, made from whatever statistics the table had then.
// As a plain join of the keys to `transactions`, that plan hashed the keys and read the whole table
// on every lookup (the bench's 7,000 rows: 1.3 ms a call, growing with the table). Each key must be
// probed through the key's unique index once the plan is made on a table of a few hundred rows. (On a
// table of a few rows PostgreSQL rightly scans it; autovacuum's analyze replans as the table grows.)

const e = fileFixture(() => startPaymentsEnv());
const t = fileFixture(() => newTenant(e));

describe('grouped idempotency-key lookups', () => {
  it('probe the key index under a generic plan, and answer each key its own row', async () => {
    // As in the bench: the plan is made while the table is small (300 rows, analyzed), then the table grows.
    const insertRows = (from: number, to: number) => e.sql`
      insert into transactions (id, platform_id, status, amount, currency, from_address, to_address, blockchain_network,
        orchestration_type, idempotency_key, metadata)
      select gen_random_uuid(), ${t.platformId}, 'pending', 1, 'USDC', '0x' || md5(g::text), '0x' || md5((g + 1)::text),
        'base-sepolia', 'escrow', 'plan-' || g, '{}'::jsonb
      from generate_series(${from}::int, ${to}::int) g`;
    await insertRows(1, 300);
    await e.sql`analyze transactions`;
    const plan = await e.sql.begin(async (tx) => {
      await tx`set local plan_cache_mode = force_generic_plan`;
      await tx.unsafe(
        `prepare key_lookups (uuid[], text[]) as ${ANSWER_BY_KEYS.replaceAll('$1::uuid[]', '$1').replaceAll('$2::text[]', '$2')}`,
      );
      const explain = async () =>
        (
          await tx.unsafe<{ 'QUERY PLAN': string }[]>(
            `explain execute key_lookups('{${t.platformId},${t.platformId}}', '{plan-7,plan-2999}')`,
          )
        )
          .map((l) => l['QUERY PLAN'])
          .join('\n');
      await explain();
      await insertRows(301, 3000);
      const after = await explain();
      await tx.unsafe('deallocate key_lookups');
      return after;
    });
    expect(plan).toContain('Index Scan using transactions_idempotency_unique');
    expect(plan).not.toMatch(/Seq Scan on transactions/);

    // The statement itself: each lookup's row in its place, null for a key nobody used.
    const repository = createTransactionsRepository();
    const found = await repository.findByIdempotencyKeys(e.sql, [
      { platformId: t.platformId, key: 'plan-2999' },
      { platformId: t.platformId, key: `unused-${randomUUID()}` },
      { platformId: randomUUID(), key: 'plan-7' },
      { platformId: t.platformId, key: 'plan-7' },
    ]);
    expect(found.map((row) => row?.idempotencyKey ?? null)).toEqual(['plan-2999', null, null, 'plan-7']);
    expect(found[0]).toMatchObject({ platformId: t.platformId, fromAddress: expect.stringMatching(/^0x/), status: 'pending' });
  });
});

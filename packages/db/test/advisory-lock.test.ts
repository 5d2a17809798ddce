import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTryAdvisoryLock } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

let testDb: TestDatabase;
let instanceA: postgres.Sql;
let instanceB: postgres.Sql;

beforeAll(async () => {
  testDb = await createTestDatabase();
  // Two clients = two instances of a process, each with its own pool.
  instanceA = postgres(testDb.url, { max: 2, onnotice: () => {} });
  instanceB = postgres(testDb.url, { max: 2, onnotice: () => {} });
});

afterAll(async () => {
  await Promise.all([instanceA.end(), instanceB.end()]);
  await testDb.drop();
});

/** Advisory locks held in this test's database (the server is shared: other databases are not ours). */
const heldLocks = async (sql: postgres.Sql) =>
  Number(
    (
      await sql<{ n: string }[]>`
        select count(*)::text as n from pg_locks
        where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`
    )[0]!.n,
  );

describe('withTryAdvisoryLock', () => {
  it('lets one holder in while the other skips, then frees the lock for the next pass', async () => {
    let releaseA!: () => void;
    const aMayFinish = new Promise<void>((resolve) => {
      releaseA = resolve;
    });
    let aEntered!: () => void;
    const aInside = new Promise<void>((resolve) => {
      aEntered = resolve;
    });
    const passA = withTryAdvisoryLock(instanceA, 'test:retention', async (conn) => {
      aEntered();
      await aMayFinish;
      return (await conn<{ one: number }[]>`select 1 as one`)[0]!.one;
    });
    await aInside;
    // B's try while A holds the lock: skipped, its work never runs.
    let bRan = false;
    const passB = await withTryAdvisoryLock(instanceB, 'test:retention', async () => {
      bRan = true;
      return 2;
    });
    expect(passB).toBeUndefined();
    expect(bRan).toBe(false);
    // Another name is another lock.
    expect(await withTryAdvisoryLock(instanceB, 'test:other', async () => 3)).toBe(3);
    releaseA();
    expect(await passA).toBe(1);
    // A released it (and its connection): B gets it now, and nothing is left held afterwards.
    expect(await withTryAdvisoryLock(instanceB, 'test:retention', async () => 4)).toBe(4);
    expect(await heldLocks(instanceA)).toBe(0);
  });

  it('releases the lock when the work throws', async () => {
    await expect(
      withTryAdvisoryLock(instanceA, 'test:failing', async () => {
        throw new Error('pass failed');
      }),
    ).rejects.toThrow('pass failed');
    expect(await withTryAdvisoryLock(instanceB, 'test:failing', async () => 'next')).toBe('next');
    expect(await heldLocks(instanceA)).toBe(0);
  });
});

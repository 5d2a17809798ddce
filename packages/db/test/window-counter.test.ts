import { pgSchema } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, createPostgresWindowCounter, rateLimitCountersTable } from '../src/index.js';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

rateLimitCountersTable(pgSchema('limits_test'));
let testDb: TestDatabase;
let instanceA: postgres.Sql;
let closeA: () => Promise<void>;
let instanceB: postgres.Sql;

beforeAll(async () => {
  testDb = await createTestDatabase();
  // Instance A is a service's own client (drizzle's serializers, numeric kept as strings).
  const database = createDatabase({ url: testDb.url, schemaName: 'limits_test', tables: {}, poolSize: 4, applicationName: 'limits-test' });
  instanceA = database.sql;
  closeA = database.close;
  instanceB = postgres(testDb.url, { max: 4, onnotice: () => {} });
  await instanceA.unsafe(`create schema limits_test;
    create table limits_test.rate_limit_counters (key text not null, window_start timestamptz not null, window_ms integer not null, count bigint not null, primary key (key, window_start));`);
});

afterAll(async () => {
  await Promise.all([closeA(), instanceB.end()]);
  await testDb.drop();
});

describe('PostgreSQL window counter', () => {
  it('gives two instances one count per key and window, with no lost increments under concurrency', async () => {
    const a = createPostgresWindowCounter(instanceA, 'limits_test');
    const b = createPostgresWindowCounter(instanceB, 'limits_test');
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).increment('standard:key:x', 60_000)));
    expect(results.map((r) => r.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const resetAt = results[0]!.resetAtMs;
    expect(results.every((r) => r.resetAtMs === resetAt)).toBe(true);
    expect(resetAt).toBeGreaterThan(Date.now());
    expect(resetAt).toBeLessThanOrEqual(Date.now() + 60_000);
    expect((await a.increment('standard:key:y', 60_000)).count).toBe(1);
  });
});

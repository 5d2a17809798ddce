import { createDatabase } from '@holdfast/db';
import { createTestDatabase, type TestDatabase } from '@holdfast/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRowWaiter } from '../src/row-waiter.js';

// Two connection pools stand for two instances: the waiter listens on one, the change is
// committed (with its NOTIFY) on the other.
let testDb: TestDatabase;
let listener: ReturnType<typeof createDatabase<Record<string, never>>>;
let writer: ReturnType<typeof createDatabase<Record<string, never>>>;
const channel = 'row_waiter_test';

beforeAll(async () => {
  testDb = await createTestDatabase();
  const open = (name: string) => createDatabase({ url: testDb.url, schemaName: 'public', tables: {}, poolSize: 2, applicationName: name });
  listener = open('row-waiter-listener');
  writer = open('row-waiter-writer');
});

afterAll(async () => {
  await listener.close();
  await writer.close();
  await testDb.drop();
});

describe('createRowWaiter', () => {
  it("answers true once another connection's transaction that notified the key commits, not before", async () => {
    const waiter = createRowWaiter(listener.sql, channel);
    await waiter.start();
    try {
      const wait = waiter.waitFor('row-1', 10_000);
      let notified: boolean | undefined;
      void wait.done.then((v) => {
        notified = v;
      });
      await writer.sql.begin(async (tx) => {
        await tx`select pg_notify(${channel}, 'row-1')`;
        await tx`select pg_sleep(0.2)`;
        expect(notified).toBeUndefined();
      });
      expect(await wait.done).toBe(true);
    } finally {
      await waiter.stop();
    }
  });

  it('answers false at the deadline, and a notification of another key does not wake it', async () => {
    const waiter = createRowWaiter(listener.sql, channel);
    await waiter.start();
    try {
      const wait = waiter.waitFor('row-2', 300);
      await writer.sql`select pg_notify(${channel}, 'row-3')`;
      expect(await wait.done).toBe(false);
    } finally {
      await waiter.stop();
    }
  });

  it('wakes every wait of the key, and stop ends the waits in progress with false', async () => {
    const waiter = createRowWaiter(listener.sql, channel);
    await waiter.start();
    const a = waiter.waitFor('row-4', 10_000);
    const b = waiter.waitFor('row-4', 10_000);
    await writer.sql`select pg_notify(${channel}, 'row-4')`;
    expect(await Promise.all([a.done, b.done])).toEqual([true, true]);
    const pending = waiter.waitFor('row-5', 10_000);
    await waiter.stop();
    expect(await pending.done).toBe(false);
  });
});

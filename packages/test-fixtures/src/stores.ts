import { createTestDatabase, type TestDatabase } from '@holdfast/db/testing';
import { createTestBus, type TestBus } from '@holdfast/messaging/testing';
import postgres from 'postgres';

export interface TestStores {
  db: TestDatabase;
  nats: TestBus;
  /** A client of the database for the test's own reads and writes (two connections; `searchPath` names its schema). */
  sql: postgres.Sql;
  /** Ends the client, disposes of the NATS prefix and drops the database. */
  stop: () => Promise<void>;
}

/**
 * A fresh database and NATS prefix for a test file that starts its processes itself (real
 * processes, several instances, a restart), with one client of the database for the test:
 * `const stores = fileFixture(() => createTestStores())`.
 */
export async function createTestStores(options: { searchPath?: string } = {}): Promise<TestStores> {
  const [db, nats] = await Promise.all([createTestDatabase(), createTestBus()]);
  const sql = postgres(db.url, {
    max: 2,
    onnotice: () => {},
    ...(options.searchPath ? { connection: { search_path: options.searchPath } } : {}),
  });
  return {
    db,
    nats,
    sql,
    stop: async () => {
      await sql.end();
      await nats.dispose();
      await db.drop();
    },
  };
}

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../src/testing.js';

// postgres.js 3.4.9 throws from a timer (`nextWrite`: "Cannot read properties of null (reading
// 'write')") when a connection dies under a transaction, and leaves an unhandled rejection when it
// dies while fetching types; either kills a Holdfast process (exitOnUnhandled). Our pnpm patch
// (patches/postgres@3.4.9.patch, ADR 17) turns both into a rejected query. Checked: against the
// unpatched 3.4.9 the child exits 3 with the TypeError on its first run.

const run = promisify(execFile);
const script = fileURLToPath(new URL('./fixtures/connection-loss.mjs', import.meta.url));
let testDb: TestDatabase;

beforeAll(async () => {
  testDb = await createTestDatabase();
});

afterAll(async () => {
  await testDb.drop();
});

describe('the postgres driver when server connections die mid-transaction', () => {
  it('rejects the affected queries, keeps the process alive, and answers again afterwards', async () => {
    // Run where packages/db resolves `postgres`, so the child loads the same (patched) driver.
    const { stdout } = await run(process.execPath, [script, testDb.url, 'driver-loss-test'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      timeout: 60_000,
    });
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { committed: number; rejected: number; answersAfter: boolean };
    expect(result.rejected).toBeGreaterThan(0);
    expect(result.committed).toBeGreaterThan(0);
    expect(result.answersAfter).toBe(true);
  }, 90_000);
});

import { randomUUID } from 'node:crypto';
import { AppError } from '@holdfast/contracts';
import { createDatabase, type Database } from '@holdfast/db';
import { createTestDatabase, type TestDatabase } from '@holdfast/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateRow } from '../../src/db/queries.js';
import * as tables from '../../src/db/schema.js';

let testDb: TestDatabase;
let database: Database<typeof tables>;

beforeAll(async () => {
  testDb = await createTestDatabase();
  database = createDatabase({ url: testDb.url, schemaName: 'workspace', tables, poolSize: 2, applicationName: 'test' });
});
afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});

describe('updateRow', () => {
  it('answers the row as stored, with updated_at moved', async () => {
    const id = randomUUID();
    await database.sql`insert into workspace.workspaces (id, name, slug, email) values (${id}, 'W', ${`w-${id.slice(0, 8)}`}, 'w@w.test')`;
    const updated = await updateRow(database.db, tables.workspaces, id, { name: 'Renamed' });
    expect(updated).toMatchObject({ id, name: 'Renamed' });
    const [row] = await database.sql`select name from workspace.workspaces where id = ${id}`;
    expect(row?.name).toBe('Renamed');
  });

  // A request that read the row before another deleted it: a 404 of what it names, not a 500.
  it('is NOT_FOUND when the row was deleted since it was read', async () => {
    const error = await updateRow(database.db, tables.workspaces, randomUUID(), { name: 'Gone' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', statusCode: 404 });
  });
});

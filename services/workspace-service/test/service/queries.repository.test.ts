import { randomUUID } from 'node:crypto';
import { AppError } from '@holdfast/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateRow } from '../../src/db/queries.js';
import * as tables from '../../src/db/schema.js';
import { insertBareWorkspace, openTestDatabase, type TestDb } from '../support/db.js';

let database: TestDb;

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describe('updateRow', () => {
  it('answers the row as stored, with updated_at moved', async () => {
    const id = randomUUID();
    await insertBareWorkspace(database, id);
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

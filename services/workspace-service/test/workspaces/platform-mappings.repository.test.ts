import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformMappingsRepository } from '../../src/modules/workspaces/platform-mappings.js';
import { insertBareWorkspace, openTestDatabase, type TestDb } from '../support/db.js';

// The repository the sandbox-credential operations count their limits with.
let database: TestDb;
const workspaceId = randomUUID();

beforeAll(async () => {
  database = await openTestDatabase();
  await insertBareWorkspace(database, workspaceId);
});
afterAll(async () => {
  await database?.drop();
});

describe('platform mappings repository', () => {
  it('records, counts, finds and revokes the links of a workspace', async () => {
    const repo = createPlatformMappingsRepository(database.db);
    const [a, b] = [randomUUID(), randomUUID()];
    const since = new Date(Date.now() - 1000);
    await repo.insert({ id: randomUUID(), workspaceId, platformId: a, kind: 'sandbox', name: 'sandbox 1' });
    await repo.insert({ id: randomUUID(), workspaceId, platformId: b, kind: 'sandbox', name: 'sandbox 2' });
    expect(await repo.countActive(workspaceId, 'sandbox')).toBe(2);
    expect(await repo.countActive(workspaceId, 'production')).toBe(0);
    expect(await repo.countCreatedSince(workspaceId, 'sandbox', since)).toBe(2);

    const revoked = await repo.revoke(workspaceId, a);
    expect(revoked).toMatchObject({ platformId: a, status: 'revoked' });
    expect(revoked?.revokedAt).toBeInstanceOf(Date);
    expect(await repo.revoke(workspaceId, a)).toBeUndefined();
    expect(await repo.revoke(randomUUID(), b)).toBeUndefined();
    expect(await repo.countActive(workspaceId, 'sandbox')).toBe(1);
    // Revoked credentials still count against the issuance rate.
    expect(await repo.countCreatedSince(workspaceId, 'sandbox', since)).toBe(2);
    expect((await repo.findByPlatform(workspaceId, b))?.status).toBe('active');
    expect(await repo.findByPlatform(randomUUID(), b)).toBeUndefined();
    expect((await repo.list(workspaceId, { status: 'active' })).map((m) => m.platformId)).toEqual([b]);
  });

  it('refuses a platform mapped twice, and goes away with its workspace', async () => {
    const repo = createPlatformMappingsRepository(database.db);
    const platformId = randomUUID();
    await repo.insert({ id: randomUUID(), workspaceId, platformId, kind: 'production', name: 'live' });
    await expect(repo.insert({ id: randomUUID(), workspaceId, platformId, kind: 'sandbox', name: 'again' })).rejects.toThrow();
    await database.sql`delete from workspace.workspaces where id = ${workspaceId}`;
    expect(await repo.list(workspaceId)).toEqual([]);
  });
});

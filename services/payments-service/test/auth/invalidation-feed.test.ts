import { randomUUID } from 'node:crypto';
import { createDatabase, type Database } from '@holdfast/db';
import { createTestDatabase, type TestDatabase } from '@holdfast/test-fixtures';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tables from '../../src/db/schema.js';
import { createCredentialCache } from '../../src/modules/auth/cache.js';
import type { Principal } from '../../src/modules/auth/principal.js';
import { createAuthRepository, recordInvalidation } from '../../src/modules/auth/repository.js';

// The pieces that keep cached credentials honest (ADR 2), on a real PostgreSQL.

let db: TestDatabase;
let database: Database<typeof tables>;
let other: postgres.Sql;

beforeAll(async () => {
  db = await createTestDatabase();
  database = createDatabase({ url: db.url, schemaName: 'payments', tables, poolSize: 2, applicationName: 'feed-test' });
  other = postgres(db.url, { max: 1, onnotice: () => {}, connection: { search_path: 'payments' } });
});

afterAll(async () => {
  await database?.close();
  await other?.end();
  await db?.drop();
});

describe('the invalidation table poll', () => {
  it('sees a row whose transaction began before a poll and committed after it', async () => {
    const repository = createAuthRepository(database.sql);
    const start = await repository.pollInvalidations(undefined);
    expect(start.rows).toEqual([]);
    const ref = randomUUID();
    let commit: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let inserted: () => void = () => {};
    const insertedNow = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const open = other.begin(async (tx) => {
      await recordInvalidation(tx, 'token', ref);
      inserted();
      await released;
    });
    await insertedNow;
    const during = await repository.pollInvalidations(start.xmin);
    expect(during.rows.map((r) => r.ref)).not.toContain(ref);
    commit();
    await open;
    const after = await repository.pollInvalidations(during.xmin);
    expect(after.rows).toContainEqual(expect.objectContaining({ kind: 'token', ref }));
  });
});

describe('the credential cache', () => {
  const principal = (over: Partial<Principal> = {}): Principal => ({
    kind: 'oauth_token',
    platformId: randomUUID(),
    platformName: 'p',
    workspaceId: null,
    sandbox: false,
    scopes: ['read:platform'],
    clientPk: randomUUID(),
    tokenId: randomUUID(),
    ...over,
  });

  it('drops entries by platform, client, key and token, and never stores a lookup that raced an invalidation', () => {
    const cache = createCredentialCache();
    const now = Date.now();
    const a = principal();
    const b = principal({ platformId: a.platformId });
    const c = principal();
    cache.set('a', a, now + 60_000, cache.epoch());
    cache.set('b', b, now + 60_000, cache.epoch());
    cache.set('c', c, now + 60_000, cache.epoch());
    expect(cache.invalidate('platform', a.platformId)).toBe(2);
    expect(cache.get('a', now)).toBeUndefined();
    expect(cache.get('c', now)).toBe(c);
    expect(cache.invalidate('token', c.tokenId as string)).toBe(1);
    const before = cache.epoch();
    cache.invalidate('client', randomUUID());
    cache.set('late', principal(), now + 60_000, before);
    expect(cache.get('late', now)).toBeUndefined();
  });

  it('forgets an entry once it is no longer valid, and the least recently used first when full', () => {
    const cache = createCredentialCache(2);
    const now = Date.now();
    cache.set('expiring', principal(), now + 10, cache.epoch());
    expect(cache.get('expiring', now + 10)).toBeUndefined();
    cache.set('x', principal(), now + 60_000, cache.epoch());
    cache.set('y', principal(), now + 60_000, cache.epoch());
    cache.get('x', now);
    cache.set('z', principal(), now + 60_000, cache.epoch());
    expect(cache.get('y', now)).toBeUndefined();
    expect(cache.get('x', now)).toBeDefined();
    expect(cache.size()).toBe(2);
  });
});

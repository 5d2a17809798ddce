import { randomBytes, randomUUID } from 'node:crypto';
import { PAYMENTS_COMMANDS } from '@holdfast/contracts';
import { sendCommand } from '@holdfast/messaging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  call,
  createTestBus,
  createTestDatabase,
  key,
  type Running,
  startPayments,
  type TestBus,
  type TestDatabase,
  tokenFor,
} from '../support/harness.js';

// Two payments instances on one database: the rate limits are one limit across them, and a
// revocation made on one is refused by the other within a second even when the other never hears
// the NATS broadcast (each instance here has its own NATS prefix, so only the database feed links them).

let db: TestDatabase;
let natsA: TestBus;
let natsB: TestBus;
let a: Running;
let b: Running;
const LIMITS = { RATE_LIMIT_PUBLIC: '8', RATE_LIMIT_STANDARD: '5', RATE_LIMIT_HIGH: '50', RATE_LIMIT_ADMIN: '3' };

beforeAll(async () => {
  [db, natsA, natsB] = await Promise.all([createTestDatabase(), createTestBus(), createTestBus()]);
  [a, b] = await Promise.all([startPayments(db, natsA, LIMITS), startPayments(db, natsB, LIMITS)]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all([natsA?.dispose(), natsB?.dispose()]);
  await db?.drop();
});

/** Counters use fixed one-minute windows: start a counting test well inside one. */
async function freshWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((r) => setTimeout(r, left + 200));
}

const sandbox = () => sendCommand(natsA.bus, PAYMENTS_COMMANDS.issueSandboxCredentials, { workspaceId: randomUUID() });
const randomKey = () => `hf_test_${randomBytes(32).toString('base64url')}`;

describe('revocation across instances', () => {
  it('is refused by an instance that never hears the broadcast within one second', async () => {
    const workspaceId = randomUUID();
    const cred = await sendCommand(natsA.bus, PAYMENTS_COMMANDS.issueSandboxCredentials, { workspaceId });
    const token = await tokenFor(a.url, cred.oauthClient);
    // Verified (and cached) on B first.
    expect((await call(b.url, 'GET', '/api/v1/auth/platform/me', { headers: key(cred.apiKey) })).status).toBe(200);
    expect((await call(b.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(200);
    await sendCommand(natsA.bus, PAYMENTS_COMMANDS.deactivatePlatform, { workspaceId, platformId: cred.platformId });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await call(b.url, 'GET', '/api/v1/auth/platform/me', { headers: key(cred.apiKey) })).status).toBe(401);
    expect((await call(b.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(token) })).status).toBe(401);
  });
});

describe('rate limits shared by two instances', () => {
  it('counts one credential across both instances and answers 429 with the envelope and Retry-After', async () => {
    const { apiKey } = await sandbox();
    const other = await sandbox();
    await freshWindow();
    const remaining: string[] = [];
    for (const base of [a.url, b.url, a.url, b.url, a.url]) {
      const res = await call(base, 'GET', '/api/v1/auth/platform/me', { headers: key(apiKey) });
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      remaining.push(res.headers['x-ratelimit-remaining'] as string);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const over = await call(b.url, 'GET', '/api/v1/auth/platform/me', { headers: key(apiKey) });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({
      success: false,
      data: null,
      error: { code: 'RATE_LIMIT_EXCEEDED', statusCode: 429, details: { tier: 'standard', limit: 5 } },
    });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(over.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    expect((await call(a.url, 'GET', '/api/v1/auth/platform/me', { headers: key(other.apiKey) })).status).toBe(200);
  });

  it('counts an OAuth client once whatever token it presents', async () => {
    const { oauthClient } = await sandbox();
    const tokens = [await tokenFor(a.url, oauthClient), await tokenFor(b.url, oauthClient)];
    await freshWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(
        (await call(i % 2 ? a.url : b.url, 'GET', '/api/v2/auth/platform/me', { headers: bearer(tokens[i % 2] as string) })).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('puts refused and unknown credentials on the client address, so random keys cannot escape the limit; headers on every error', async () => {
    await freshWindow();
    // Earlier refused requests of this file used the same address: start from what is left.
    const first = await call(a.url, 'GET', '/api/v1/auth/platform/me', { headers: key(randomKey()) });
    expect(first.status).toBe(401);
    let left = Number(first.headers['x-ratelimit-remaining']);
    expect(left).toBeGreaterThan(1);
    while (left > 1) {
      const res = await call(left % 2 ? a.url : b.url, 'GET', '/api/v1/auth/platform/me', { headers: key(randomKey()) });
      expect(res.status).toBe(401);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(left - 1));
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
      left -= 1;
    }
    const unknown = await call(a.url, 'GET', '/api/v1/no-such-route', { headers: key(randomKey()) });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['x-ratelimit-remaining']).toBe('0');
    const over = await call(b.url, 'GET', '/api/v1/auth/platform/me', { headers: key(randomKey()) });
    expect(over.status).toBe(429);
  });

  it('limits admin operations per credential at the admin tier, before looking at scopes', async () => {
    const { apiKey } = await sandbox();
    await freshWindow();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await call(i % 2 ? a.url : b.url, 'GET', '/api/v1/auth/platforms', { headers: key(apiKey) })).status);
    expect(statuses).toEqual([403, 403, 403, 429]);
  });

  it('counts public operations per client address whatever credential is sent', async () => {
    await freshWindow();
    // The token requests of earlier tests used the same address: start from what is left.
    const first = await call(a.url, 'GET', '/api/v2/auth/scopes', { headers: key(randomKey()) });
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('8');
    const left = Number(first.headers['x-ratelimit-remaining']);
    const statuses: number[] = [];
    for (let i = 0; i <= left; i++)
      statuses.push((await call(i % 2 ? a.url : b.url, 'GET', '/api/v2/auth/scopes', { headers: key(randomKey()) })).status);
    expect(statuses).toEqual([...Array(left).fill(200), 429]);
  });
});

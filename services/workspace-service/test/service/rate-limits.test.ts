import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSession } from '../support/fixtures.js';
import { accessClaims, type Harness, PASSWORD, SUPER_EMAIL, signJwt, startHarness, uniqueEmail } from '../support/harness.js';

// The Workspace API's limits come from the same kit as the Payments API's: same headers on every
// answer (refusals included), same 429 envelope.
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PUBLIC: '3', RATE_LIMIT_STANDARD: '4' });
});
afterAll(() => h?.stop());

describe('rate limits on the Workspace API', () => {
  it('sends the limit headers on a 401 and counts it against the caller', async () => {
    const first = await h.call('GET', '/api/v1/workspaces/me', { token: 'not-a-jwt' });
    expect(first.status).toBe(401);
    expect(first.headers['x-ratelimit-limit']).toBe('4');
    expect(first.headers['x-ratelimit-remaining']).toBe('3');
    expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
  });

  it('puts made-up and forged bearer tokens on the client address: random tokens in a loop get 429, a verified caller keeps its bucket', async () => {
    // Counters use fixed one-minute windows: run well inside one.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await new Promise((r) => setTimeout(r, left + 200));
    const now = Math.floor(Date.now() / 1000);
    const [admin] = await h.sql<{ id: string }[]>`select id from workspace.users where email = ${SUPER_EMAIL}`;
    const sessionId = await insertSession(h, admin!.id);
    const claims = (sub: string) => accessClaims(sub, sessionId, now, 600);
    // The attack: a new credential on every request (random text, or a JWT signed with a guessed
    // secret naming a real user). Counted per credential, each would open a fresh bucket.
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const token = i % 2 ? randomBytes(24).toString('base64url') : signJwt(claims(admin!.id), `guessed-secret-${i}-${randomUUID()}`);
      statuses.push((await h.call('GET', '/api/v1/workspaces/me', { token })).status);
    }
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    expect(statuses.slice(4)).toEqual([429, 429, 429, 429]);
    // A token whose signature holds counts against its user, whose bucket the forgeries did not touch.
    const verified = await h.call('GET', '/api/v1/workspaces/me', { token: signJwt(claims(admin!.id)) });
    expect(verified.status).not.toBe(429);
    expect(verified.headers['x-ratelimit-remaining']).toBe('3');
  });

  it('answers the public tier per client address with 429, Retry-After and RATE_LIMIT_EXCEEDED', async () => {
    const statuses: number[] = [];
    let last: Awaited<ReturnType<Harness['call']>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await h.call('POST', '/identity/login', { body: { email: uniqueEmail('limit'), password: PASSWORD } });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect(Number(last?.headers['retry-after'])).toBeGreaterThan(0);
    expect(last?.body).toMatchObject({
      success: false,
      data: null,
      error: { code: 'RATE_LIMIT_EXCEEDED', statusCode: 429, details: { tier: 'public', limit: 3 } },
    });
  });
});

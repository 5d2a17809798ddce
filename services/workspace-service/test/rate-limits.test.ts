import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, PASSWORD, startHarness, uniqueEmail } from './support/harness.js';

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

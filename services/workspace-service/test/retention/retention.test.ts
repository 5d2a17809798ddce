import { createHash, randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspaceRetentionRepository } from '../../src/modules/retention/repository.js';
import { registerCustomer } from '../support/customers.js';
import { buildWorld, type Harness, startHarness, type World } from '../support/harness.js';

const DAY = 24 * 3600;
const HORIZONS = { refreshTokenSeconds: 7 * DAY, nonceSeconds: DAY };

let h: Harness;
let world: World;
/** A connection bound to the service's schema, as the service's own pool is. */
let sql: postgres.Sql;
let sweep: () => ReturnType<ReturnType<typeof createWorkspaceRetentionRepository>['sweep']>;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

beforeAll(async () => {
  h = await startHarness();
  world = await buildWorld(h);
  sql = postgres(h.env.DATABASE_URL!, { max: 2, onnotice: () => {}, connection: { search_path: 'workspace' } });
  const repository = createWorkspaceRetentionRepository(sql);
  sweep = () => repository.sweep(HORIZONS);
});
afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await h?.stop();
});

/** Moves a refresh token's expiry (and its creation, and its session's) into the past. */
async function expireToken(table: 'refresh_tokens' | 'customer_refresh_tokens', token: string, secondsAgo: number) {
  await sql`update ${sql(table)} set expires_at = now() - make_interval(secs => ${secondsAgo}),
    created_at = now() - make_interval(secs => ${secondsAgo + 30 * DAY}) where token_hash = ${hashOf(token)}`;
}
async function ageSession(table: 'sessions' | 'customer_sessions', sessionId: string, seconds: number) {
  await sql`update ${sql(table)} set created_at = now() - make_interval(secs => ${seconds}) where id = ${sessionId}`;
}
async function sessionOf(table: 'refresh_tokens' | 'customer_refresh_tokens', token: string): Promise<string> {
  const [row] = await sql<{ session_id: string }[]>`select session_id from ${sql(table)} where token_hash = ${hashOf(token)}`;
  return row!.session_id;
}
const tokenKept = async (table: 'refresh_tokens' | 'customer_refresh_tokens', token: string) =>
  (await sql`select 1 from ${sql(table)} where token_hash = ${hashOf(token)}`).length === 1;
const sessionKept = async (table: 'sessions' | 'customer_sessions', id: string) =>
  (await sql`select 1 from ${sql(table)} where id = ${id}`).length === 1;

describe('user sessions and refresh tokens', () => {
  it('reuse detection works right after a rotation and a sweep', async () => {
    const first = await h.login(world.clientW1.email);
    const second = await h.call('POST', '/identity/refresh', { body: { refreshToken: first.refreshToken } });
    expect(second.status).toBe(200);

    await sweep();

    expect(await tokenKept('refresh_tokens', first.refreshToken)).toBe(true);
    const replay = await h.call('POST', '/identity/refresh', { body: { refreshToken: first.refreshToken } });
    expect(replay.status).toBe(401);
    expect(replay.body.error.details).toEqual({ reason: 'refresh_token_reuse' });
    const [session] = await sql`select revoked_reason from sessions where id = ${await sessionOf('refresh_tokens', first.refreshToken)}`;
    expect(session?.revoked_reason).toBe('refresh_token_reuse');
  });

  it('keeps a rotated token that expired within the horizon: its reuse still revokes the family', async () => {
    const first = await h.login(world.clientW1.email);
    const second = await h.call('POST', '/identity/refresh', { body: { refreshToken: first.refreshToken } });
    await expireToken('refresh_tokens', first.refreshToken, 6 * DAY);

    await sweep();

    expect(await tokenKept('refresh_tokens', first.refreshToken)).toBe(true);
    const replay = await h.call('POST', '/identity/refresh', { body: { refreshToken: first.refreshToken } });
    expect(replay.body.error.details).toEqual({ reason: 'refresh_token_reuse' });
    const newest = await h.call('POST', '/identity/refresh', { body: { refreshToken: second.body.data.refreshToken } });
    expect(newest.status).toBe(401);
  });

  it('deletes tokens 7 days past expiry, and the session once its last token is gone', async () => {
    const first = await h.login(world.clientW1.email);
    const second = await h.call('POST', '/identity/refresh', { body: { refreshToken: first.refreshToken } });
    const sessionId = await sessionOf('refresh_tokens', first.refreshToken);
    await ageSession('sessions', sessionId, 40 * DAY);
    await expireToken('refresh_tokens', first.refreshToken, 8 * DAY);

    const removed = await sweep();
    expect(removed?.refreshTokens).toBeGreaterThanOrEqual(1);
    expect(await tokenKept('refresh_tokens', first.refreshToken)).toBe(false);
    // The newest token is live: the session stays, and refreshing still works.
    expect(await sessionKept('sessions', sessionId)).toBe(true);
    const third = await h.call('POST', '/identity/refresh', { body: { refreshToken: second.body.data.refreshToken } });
    expect(third.status).toBe(200);

    // The family's tokens all past the horizon: tokens and session go.
    await expireToken('refresh_tokens', second.body.data.refreshToken, 9 * DAY);
    await expireToken('refresh_tokens', third.body.data.refreshToken, 8 * DAY);
    const again = await sweep();
    expect(again?.sessions).toBeGreaterThanOrEqual(1);
    expect(await sessionKept('sessions', sessionId)).toBe(false);
    const gone = await h.call('POST', '/identity/refresh', { body: { refreshToken: third.body.data.refreshToken } });
    expect(gone.status).toBe(401);
  });

  it('keeps a young session even when it has no token (yet)', async () => {
    const login = await h.login(world.clientW1.email);
    const sessionId = await sessionOf('refresh_tokens', login.refreshToken);
    await sql`delete from refresh_tokens where session_id = ${sessionId}`;
    await sweep();
    expect(await sessionKept('sessions', sessionId)).toBe(true);
  });
});

describe('customer sessions, wallet-link nonces, login throttles', () => {
  it('deletes customer refresh tokens and sessions past the horizon and keeps reuse detection inside it', async () => {
    const customer = await registerCustomer(h, world.w1.id);
    const path = `/api/v1/workspaces/${world.w1.id}/customers/auth/refresh`;
    const rotated = await h.call('POST', path, { body: { refreshToken: customer.refreshToken } });
    expect(rotated.status).toBe(200);
    await expireToken('customer_refresh_tokens', customer.refreshToken, 6 * DAY);
    await sweep();
    const replay = await h.call('POST', path, { body: { refreshToken: customer.refreshToken } });
    expect(replay.status).toBe(401);
    expect(replay.body.error.details).toEqual({ reason: 'refresh_token_reuse' });

    const sessionId = await sessionOf('customer_refresh_tokens', customer.refreshToken);
    await ageSession('customer_sessions', sessionId, 40 * DAY);
    await expireToken('customer_refresh_tokens', customer.refreshToken, 8 * DAY);
    await expireToken('customer_refresh_tokens', rotated.body.data.refreshToken, 8 * DAY);
    const removed = await sweep();
    expect(removed?.customerRefreshTokens).toBeGreaterThanOrEqual(2);
    expect(await sessionKept('customer_sessions', sessionId)).toBe(false);
  });

  it('deletes wallet-link nonces a day after expiry, used or not, and keeps younger ones', async () => {
    const customer = await registerCustomer(h, world.w1.id);
    const nonce = async (expiredSecondsAgo: number, used = false) => {
      const hash = hashOf(randomUUID());
      await sql`insert into wallet_link_nonces (nonce_hash, workspace_id, customer_id, chain_id, expires_at, used_at)
        values (${hash}, ${world.w1.id}, ${customer.id}, 84532, now() - make_interval(secs => ${expiredSecondsAgo}), ${used ? sql`now()` : null})`;
      return hash;
    };
    const old = await nonce(2 * DAY);
    const oldUsed = await nonce(2 * DAY, true);
    const recent = await nonce(3600);
    const live = await nonce(-600);
    await sweep();
    const left = (await sql<{ nonce_hash: string }[]>`select nonce_hash from wallet_link_nonces where customer_id = ${customer.id}`).map(
      (r) => r.nonce_hash,
    );
    expect(left.sort()).toEqual([recent, live].sort());
    expect(left).not.toContain(old);
    expect(left).not.toContain(oldUsed);
  });

  it('deletes login throttles a day after their window and lock ended', async () => {
    const stale = `stale-${randomUUID()}`;
    const locked = `locked-${randomUUID()}`;
    const current = `current-${randomUUID()}`;
    await sql`insert into login_throttles (email_hash, failures, window_start, locked_until) values
      (${stale}, 3, now() - interval '2 days', null),
      (${locked}, 10, now() - interval '2 days', now() + interval '10 minutes'),
      (${current}, 2, now() - interval '5 minutes', null)`;
    await sweep();
    const left = (await sql<{ email_hash: string }[]>`select email_hash from login_throttles`).map((r) => r.email_hash);
    expect(left).not.toContain(stale);
    expect(left).toEqual(expect.arrayContaining([locked, current]));
  });
});

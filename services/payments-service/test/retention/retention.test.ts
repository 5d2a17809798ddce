import { uuidv7 } from '@holdfast/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPaymentsRetentionRepository } from '../../src/modules/retention/repository.js';
import { createTestBus, createTestDatabase, startPayments, type TestBus, type TestDatabase, testSql } from '../support/harness.js';

const DAY = 24 * 3600;
const HORIZONS = { tokenSeconds: 7 * DAY, quoteSeconds: DAY, codeDeliverySeconds: 7 * DAY };

let db: TestDatabase;
let sql: ReturnType<typeof testSql>;
const platformId = uuidv7();
const clientPk = uuidv7();

/** A token that expires (or expired) `expiresInSeconds` from now. */
async function token(expiresInSeconds: number, revokedSecondsAgo?: number) {
  const id = uuidv7();
  await sql`insert into oauth_tokens (id, token_hash, client_pk, platform_id, scopes, issued_at, expires_at, revoked_at)
    values (${id}, ${`hash-${id}`}, ${clientPk}, ${platformId}, ${['read:transactions']},
            now() + make_interval(secs => ${expiresInSeconds - 3600}), now() + make_interval(secs => ${expiresInSeconds}),
            ${revokedSecondsAgo === undefined ? null : sql`now() - make_interval(secs => ${revokedSecondsAgo})`})`;
  return id;
}

async function quote(expiresInSeconds: number, usedBy?: string) {
  const id = uuidv7();
  await sql`insert into quotes (id, platform_id, amount, currency, blockchain_network, fee_type, fee_percentage, fee, total, expires_at, used_at, transaction_id)
    values (${id}, ${platformId}, '10', 'USDC', 'base-sepolia', 'percentage', '1', '0.1', '10.1',
            now() + make_interval(secs => ${expiresInSeconds}), ${usedBy ? sql`now() + make_interval(secs => ${expiresInSeconds - 60})` : null}, ${usedBy ?? null})`;
  return id;
}

/** A one-time-code delivery (with its challenge and transaction) whose last attempt was `lastAttemptSecondsAgo` ago. */
async function codeDelivery(status: 'pending' | 'sending' | 'sent' | 'failed' | 'dropped', lastAttemptSecondsAgo: number) {
  const transactionId = uuidv7();
  const challengeId = uuidv7();
  const at = sql`now() - make_interval(secs => ${lastAttemptSecondsAgo})`;
  await sql`insert into transactions (id, platform_id, status, amount, currency, from_address, to_address, blockchain_network, orchestration_type)
    values (${transactionId}, ${platformId}, 'pending', '10', 'USDC', '0xaaa', '0xbbb', 'base-sepolia', 'platform')`;
  await sql`insert into control_challenges (id, platform_id, transaction_id, control_id, control_type, recipient, provider, code_hash, salt,
                                            max_attempts, status, expires_at, created_at)
    values (${challengeId}, ${platformId}, ${transactionId}, 'ctl_2fa', 'two_factor', '+1******0123', 'sms', 'h', 's', 3,
            ${status === 'pending' || status === 'sending' ? 'open' : 'expired'}, ${at}, ${at})`;
  await sql`insert into code_deliveries (challenge_id, transaction_id, purpose, sealed, status, attempts, next_attempt_at, created_at, sent_at)
    values (${challengeId}, ${transactionId}, 'two_factor', ${status === 'pending' || status === 'sending' ? 'sealed' : null}, ${status}, 1,
            ${at}, ${at}, ${status === 'sent' ? at : null})`;
  return challengeId;
}

const exists = async (table: 'oauth_tokens' | 'quotes', id: string) =>
  (await sql`select 1 from ${sql(table)} where id = ${id}`).length === 1;
const deliveryExists = async (challengeId: string) =>
  (await sql`select 1 from code_deliveries where challenge_id = ${challengeId}`).length === 1;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = testSql(db);
  await sql`insert into platforms (id, name, scopes) values (${platformId}, 'retention', ${['read:transactions']})`;
  await sql`insert into oauth_clients (id, client_id, secret_hash, name, platform_id, scopes, grant_types)
    values (${clientPk}, ${`client-${clientPk}`}, 'x', 'retention', ${platformId}, ${['read:transactions']}, ${['client_credentials']})`;
});
afterAll(async () => {
  await sql.end();
  await db.drop();
});

describe('payments retention', () => {
  it('deletes access tokens 7 days after expiry (revoked or not) and keeps younger ones', async () => {
    const old = await token(-8 * DAY);
    const oldRevoked = await token(-8 * DAY, 8 * DAY + 1800);
    const recentlyExpired = await token(-6 * DAY);
    const recentlyRevoked = await token(1800, 60);
    const live = await token(3600);

    const removed = await createPaymentsRetentionRepository(sql).sweep(HORIZONS);

    expect(removed?.oauthTokens).toBe(2);
    expect(await exists('oauth_tokens', old)).toBe(false);
    expect(await exists('oauth_tokens', oldRevoked)).toBe(false);
    for (const kept of [recentlyExpired, recentlyRevoked, live]) expect(await exists('oauth_tokens', kept)).toBe(true);
  });

  it('deletes unused quotes a day after expiry; keeps younger ones and every quote a transaction used', async () => {
    const stale = await quote(-2 * DAY);
    const recent = await quote(-3600);
    const live = await quote(300);
    const used = await quote(-30 * DAY, uuidv7());

    const removed = await createPaymentsRetentionRepository(sql).sweep(HORIZONS);

    expect(removed?.quotes).toBe(1);
    expect(await exists('quotes', stale)).toBe(false);
    for (const kept of [recent, live, used]) expect(await exists('quotes', kept)).toBe(true);
  });

  it('deletes finished code deliveries (sent, failed, dropped) 7 days after their last attempt; keeps younger and unfinished ones', async () => {
    const oldSent = await codeDelivery('sent', 8 * DAY);
    const oldFailed = await codeDelivery('failed', 8 * DAY);
    const oldDropped = await codeDelivery('dropped', 8 * DAY);
    const recentSent = await codeDelivery('sent', 6 * DAY);
    const oldPending = await codeDelivery('pending', 8 * DAY);
    const oldSending = await codeDelivery('sending', 8 * DAY);

    const removed = await createPaymentsRetentionRepository(sql).sweep(HORIZONS);

    expect(removed?.codeDeliveries).toBe(3);
    for (const gone of [oldSent, oldFailed, oldDropped]) expect(await deliveryExists(gone)).toBe(false);
    for (const kept of [recentSent, oldPending, oldSending]) expect(await deliveryExists(kept)).toBe(true);
    // The challenge (the record of the control's outcome) stays.
    expect((await sql`select 1 from control_challenges where id = ${oldSent}`).length).toBe(1);
  });

  it('deletes Idempotency-Keys a day after their first request, done or lost with their process; keeps younger ones', async () => {
    const key = async (state: 'running' | 'done', ageSeconds: number) => {
      const k = `key-${uuidv7()}`;
      await sql`insert into idempotent_requests (platform_id, key, operation, fingerprint, state, lease_until, created_at)
        values (${platformId}, ${k}, 'refundTransaction', 'f', ${state}, now(), now() - make_interval(secs => ${ageSeconds}))`;
      return k;
    };
    const oldDone = await key('done', DAY + 60);
    const oldRunning = await key('running', DAY + 60);
    const young = await key('done', DAY - 60);
    const removed = await createPaymentsRetentionRepository(sql).sweep(HORIZONS);
    expect(removed?.idempotentRequests).toBe(2);
    const left = await sql<{ key: string }[]>`select key from idempotent_requests where key in ${sql([oldDone, oldRunning, young])}`;
    expect(left.map((r) => r.key)).toEqual([young]);
  });

  it('deletes in batches until nothing past the horizon is left', async () => {
    const ids = await Promise.all(Array.from({ length: 7 }, () => token(-10 * DAY)));
    const removed = await createPaymentsRetentionRepository(sql, { batch: 3 }).sweep(HORIZONS);
    expect(removed?.oauthTokens).toBe(7);
    for (const id of ids) expect(await exists('oauth_tokens', id)).toBe(false);
  });

  it('skips the pass while another instance holds the lock', async () => {
    const old = await token(-8 * DAY);
    const holder = await sql.reserve();
    try {
      await holder`select pg_advisory_lock(hashtextextended('payments:retention', 0))`;
      expect(await createPaymentsRetentionRepository(sql).sweep(HORIZONS)).toBeUndefined();
      expect(await exists('oauth_tokens', old)).toBe(true);
      await holder`select pg_advisory_unlock(hashtextextended('payments:retention', 0))`;
    } finally {
      holder.release();
    }
    expect((await createPaymentsRetentionRepository(sql).sweep(HORIZONS))?.oauthTokens).toBe(1);
  });
});

describe('the sweeper of a running payments-service', () => {
  let nats: TestBus;
  beforeAll(async () => {
    nats = await createTestBus();
  });
  afterAll(async () => nats?.dispose());

  it('runs a pass at start with the configured horizons, and stops with the service', async () => {
    const beyondShortHorizon = await token(-2 * 3600);
    const inside = await token(-1800);
    const staleQuote = await quote(-2 * 3600);
    const sentCode = await codeDelivery('sent', 2 * 3600);
    const running = await startPayments(db, nats, {
      PAYMENTS_TOKEN_RETENTION: '1h',
      PAYMENTS_QUOTE_RETENTION: '1h',
      PAYMENTS_CODE_DELIVERY_RETENTION: '1h',
      PAYMENTS_RETENTION_INTERVAL: '1h',
    });
    try {
      for (
        let i = 0;
        i < 100 &&
        ((await exists('oauth_tokens', beyondShortHorizon)) || (await exists('quotes', staleQuote)) || (await deliveryExists(sentCode)));
        i++
      )
        await new Promise((r) => setTimeout(r, 50));
      expect(await exists('oauth_tokens', beyondShortHorizon)).toBe(false);
      expect(await exists('quotes', staleQuote)).toBe(false);
      expect(await deliveryExists(sentCode)).toBe(false);
      expect(await exists('oauth_tokens', inside)).toBe(true);
    } finally {
      await running.stop();
    }
  });
});

import { randomUUID } from 'node:crypto';
import { uuidv7 } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { createIdempotencyRepository } from '../../src/modules/idempotency/index.js';
import { bearer, call, newPlatform, startPaymentsEnv } from '../support/harness.js';

// The Idempotency-Key of the money-moving operations without a key of their own (docs/idempotency.md):
// disputes, evidence, escalation, resolution, release attestations, rescind and refund. Without a
// key a retry after a lost answer repeats the operation (a second evidence row, a second tier) or
// answers an error (DISPUTE_RESOLVED); with one it answers the first success.

const PLATFORM_SCOPES = [
  'read:disputes',
  'write:disputes',
  'submit:evidence',
  'read:transactions',
  'write:transactions',
  'cancel:transactions',
  'rescind:transactions',
];
// reverse:transactions (refund) is an OAuth scope, granted where the platform may cancel and rescind.
const SCOPES = ['read:disputes', 'write:disputes', 'submit:evidence', 'read:transactions', 'write:transactions', 'reverse:transactions'];
const e = fileFixture(() => startPaymentsEnv());
let a: { platformId: string; headers: Record<string, string> };
let b: { platformId: string; headers: Record<string, string> };

beforeAll(async () => {
  const [pa, pb] = await Promise.all([
    newPlatform(e, { scopes: PLATFORM_SCOPES, clientScopes: SCOPES }),
    newPlatform(e, { scopes: PLATFORM_SCOPES, clientScopes: SCOPES }),
  ]);
  a = { platformId: pa.platformId, headers: bearer(pa.token) };
  b = { platformId: pb.platformId, headers: bearer(pb.token) };
});

/** An escrowed transaction of the platform, inserted directly (creation is another module). */
async function escrowed(platformId: string) {
  const id = uuidv7();
  await e.sql`insert into transactions (id, platform_id, status, amount, currency, from_address, to_address, blockchain_network, orchestration_type, tx_hash)
    values (${id}, ${platformId}, 'escrowed', '40', 'USDC', '0xaaa', '0xbbb', 'base-sepolia', 'platform', '0xabc')`;
  return id;
}

async function dispute(platform = a) {
  const transactionId = await escrowed(platform.platformId);
  const res = await call(e.svc.url, 'POST', '/api/v2/disputes', {
    headers: platform.headers,
    body: { transactionId, initiatedBy: 'sender', reason: 'Goods never arrived' },
  });
  expect(res.status).toBe(201);
  return { transactionId, disputeId: res.body.id as string };
}

const post = (path: string, body: unknown, headers: Record<string, string>, idempotencyKey?: string) =>
  call(e.svc.url, 'POST', path, { headers: { ...headers, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) }, body });
const evidenceRows = async (disputeId: string) => (await e.sql`select id from dispute_evidence where dispute_id = ${disputeId}`).length;
const keyRow = async (platformId: string, key: string) =>
  (await e.sql`select state, operation from idempotent_requests where platform_id = ${platformId} and key = ${key}`)[0];

describe('happy: a retry with the key answers the first success and does nothing again', () => {
  it('evidence sent twice under one key is stored once; the retry gets the same answer with Idempotent-Replayed', async () => {
    const { disputeId } = await dispute();
    const key = `ev-${randomUUID()}`;
    const body = { submittedBy: 'sender', type: 'text', title: 'Tracking', content: 'The parcel tracking shows no delivery' };
    const first = await post(`/api/v2/disputes/${disputeId}/evidence`, body, a.headers, key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post(`/api/v2/disputes/${disputeId}/evidence`, body, a.headers, key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await evidenceRows(disputeId)).toBe(1);
    expect(await keyRow(a.platformId, key)).toEqual({ state: 'done', operation: 'submitDisputeEvidence' });
    // Without a key the same body is a second piece of evidence, as before.
    expect((await post(`/api/v2/disputes/${disputeId}/evidence`, body, a.headers)).status).toBe(201);
    expect(await evidenceRows(disputeId)).toBe(2);
  });

  it('an escalation retried under its key moves one tier, and a resolution retried under its key answers it again', async () => {
    const { disputeId, transactionId } = await dispute();
    const key = `esc-${randomUUID()}`;
    const first = await post(`/api/v2/disputes/${disputeId}/escalate`, {}, a.headers, key);
    expect(first.status).toBe(200);
    const again = await post(`/api/v2/disputes/${disputeId}/escalate`, {}, a.headers, key);
    expect(again.body).toEqual(first.body);
    const [row] = await e.sql`select current_tier from disputes where id = ${disputeId}`;
    expect(row?.current_tier).toBe(first.body.currentTier);
    expect(first.body.currentTier).toBe('tier_2_platform_mediation');

    const resolveKey = `res-${randomUUID()}`;
    const resolved = await post(
      `/api/v2/disputes/${disputeId}/resolve`,
      { outcome: 'favor_receiver', resolutionReason: 'Delivery confirmed' },
      a.headers,
      resolveKey,
    );
    expect(resolved.status).toBe(200);
    const replayed = await post(
      `/api/v2/disputes/${disputeId}/resolve`,
      { outcome: 'favor_receiver', resolutionReason: 'Delivery confirmed' },
      a.headers,
      resolveKey,
    );
    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual(resolved.body);
    // Without the key the retry is told it is resolved (what a lost answer used to give a client).
    const bare = await post(
      `/api/v2/disputes/${disputeId}/resolve`,
      { outcome: 'favor_receiver', resolutionReason: 'Delivery confirmed' },
      a.headers,
    );
    expect(bare.status).toBe(400);
    expect(bare.body.error.code).toBe('DISPUTE_RESOLVED');
    const events =
      await e.sql`select type from outbox where payload->'data'->'transaction'->>'id' = ${transactionId} and type = 'transaction.completed'`;
    expect(events).toHaveLength(1);
  });

  it('concurrent requests under one key: one runs, the others are replayed or told it is in use; one escalation', async () => {
    const { disputeId } = await dispute();
    const key = `race-${randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(`/api/v2/disputes/${disputeId}/escalate`, {}, a.headers, key)));
    expect(answers.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const r of answers) {
      if (r.status === 200) expect(r.body.currentTier).toBe('tier_2_platform_mediation');
      else expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    }
    expect((await e.sql`select current_tier from disputes where id = ${disputeId}`)[0]?.current_tier).toBe('tier_2_platform_mediation');
  });

  it('a key whose holder died (its lease ran out) is taken over by the retry', async () => {
    const { disputeId } = await dispute();
    const key = `lost-${randomUUID()}`;
    const body = { submittedBy: 'receiver', type: 'text', title: 'Tracking', content: 'Delivered to the front desk' };
    // What a process killed mid-request leaves: the key running, its lease over (the fingerprint of
    // this very request, read from a completed twin under another key).
    const twin = `twin-${randomUUID()}`;
    expect((await post(`/api/v2/disputes/${disputeId}/evidence`, body, a.headers, twin)).status).toBe(201);
    await e.sql`insert into idempotent_requests (platform_id, key, operation, fingerprint, state, lease_until)
      select platform_id, ${key}, operation, fingerprint, 'running', now() - interval '1 second'
      from idempotent_requests where platform_id = ${a.platformId} and key = ${twin}`;
    const res = await post(`/api/v2/disputes/${disputeId}/evidence`, body, a.headers, key);
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await evidenceRows(disputeId)).toBe(2);
    expect((await keyRow(a.platformId, key))?.state).toBe('done');
  });
});

describe('the window between the commit and the stored answer', () => {
  // What a process that dies right after the operation's commit leaves: the answer never stored
  // after it. Reproduced with a trigger that refuses every storing of an answer outside the
  // transaction that made the effect (the reply's own, after the commit); the retry comes once
  // the lease is over. Answered from what the operation's transaction stored, it runs nothing again.
  async function failingAfterCommit<T>(run: () => Promise<T>): Promise<T> {
    await e.sql.unsafe(`
      create or replace function refuse_answer_after_commit() returns trigger language plpgsql as $$
      begin
        if new.state = 'done' and not exists (select 1 from dispute_evidence where xmin = pg_current_xact_id()::xid)
           and not exists (select 1 from disputes where xmin = pg_current_xact_id()::xid) then
          raise exception 'simulated: the process died before it stored the answer';
        end if;
        return new;
      end $$;
      create trigger refuse_answer_after_commit before update on idempotent_requests
        for each row execute function refuse_answer_after_commit();`);
    try {
      return await run();
    } finally {
      await e.sql.unsafe('drop trigger refuse_answer_after_commit on idempotent_requests; drop function refuse_answer_after_commit();');
    }
  }
  const lapse = (key: string) =>
    e.sql`update idempotent_requests set lease_until = now() - interval '1 second' where platform_id = ${a.platformId} and key = ${key}`;

  it('evidence whose answer was lost after its commit is answered on retry, not stored twice', async () => {
    const { disputeId } = await dispute();
    const key = `window-ev-${randomUUID()}`;
    const body = { submittedBy: 'sender', type: 'text', title: 'Photo', content: 'The box arrived crushed' };
    const first = await failingAfterCommit(() => post(`/api/v2/disputes/${disputeId}/evidence`, body, a.headers, key));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    await lapse(key);
    const retry = await post(`/api/v2/disputes/${disputeId}/evidence`, body, a.headers, key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await evidenceRows(disputeId)).toBe(1);
    expect(
      (
        await e.sql`select count(*)::int as n from outbox where type = 'evidence.submitted' and payload->'data'->'dispute'->>'id' = ${disputeId}`
      )[0]?.n,
    ).toBe(1);
  });

  it('an escalation whose answer was lost after its commit moves one tier only', async () => {
    const { disputeId } = await dispute();
    const key = `window-esc-${randomUUID()}`;
    const first = await failingAfterCommit(() => post(`/api/v2/disputes/${disputeId}/escalate`, {}, a.headers, key));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await lapse(key);
    const retry = await post(`/api/v2/disputes/${disputeId}/escalate`, {}, a.headers, key);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect((await e.sql`select current_tier from disputes where id = ${disputeId}`)[0]?.current_tier).toBe('tier_2_platform_mediation');
  });
});

describe('a lapsed lease taken over', () => {
  it('the first holder can neither store its answer over the second one nor free the key it lost', async () => {
    const repository = createIdempotencyRepository(e.sql);
    const claim = { platformId: a.platformId, key: `fence-${randomUUID()}`, operation: 'escalateDispute', fingerprint: 'f' };
    const first = await repository.claim(claim);
    expect(first).toBeTruthy();
    // The first request outlived its lease (a slow lock, a stalled process): a retry takes the key.
    await e.sql`update idempotent_requests set lease_until = now() - interval '1 second' where key = ${claim.key}`;
    const second = await repository.claim(claim);
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    await repository.release({ platformId: claim.platformId, key: claim.key, token: first! });
    await repository.complete({ platformId: claim.platformId, key: claim.key, token: first!, status: 200, body: '{"stale":true}' });
    expect(await keyRow(a.platformId, claim.key)).toEqual({ state: 'running', operation: 'escalateDispute' });
    await repository.complete({ platformId: claim.platformId, key: claim.key, token: second!, status: 200, body: '{"fresh":true}' });
    const [row] = await e.sql`select state, response_body from idempotent_requests where key = ${claim.key}`;
    expect(row).toEqual({ state: 'done', response_body: '{"fresh":true}' });
  });
});

describe('error: a reused key changes nothing; a refusal frees the key', () => {
  it('the key with another body, or on another operation, is 422 IDEMPOTENCY_KEY_REUSED and writes nothing', async () => {
    const { disputeId } = await dispute();
    const key = `reuse-${randomUUID()}`;
    const body = { submittedBy: 'sender', type: 'text', title: 'Tracking', content: 'first' };
    expect((await post(`/api/v2/disputes/${disputeId}/evidence`, body, a.headers, key)).status).toBe(201);
    const other = await post(`/api/v2/disputes/${disputeId}/evidence`, { ...body, content: 'second' }, a.headers, key);
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const elsewhere = await post(`/api/v2/disputes/${disputeId}/escalate`, {}, a.headers, key);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await evidenceRows(disputeId)).toBe(1);
    expect((await e.sql`select current_tier from disputes where id = ${disputeId}`)[0]?.current_tier).toBe('tier_1_smart_contract');
  });

  it('a refused request keeps no answer: the key runs again once the refusal is gone', async () => {
    const transactionId = await escrowed(a.platformId);
    await e.sql`update transactions set status = 'pending' where id = ${transactionId}`;
    const key = `refund-${randomUUID()}`;
    const refused = await post(`/api/v2/transactions/${transactionId}/refund`, { reason: 'buyer asked' }, a.headers, key);
    expect(refused.status).toBe(409);
    expect(await keyRow(a.platformId, key)).toBeUndefined();
    await e.sql`update transactions set status = 'escrowed' where id = ${transactionId}`;
    const refunded = await post(`/api/v2/transactions/${transactionId}/refund`, { reason: 'buyer asked' }, a.headers, key);
    expect(refunded.status).toBe(200);
    expect(refunded.body.transaction.status).toBe('refunded');
    expect((await keyRow(a.platformId, key))?.state).toBe('done');
  });

  it('a malformed key is 400 VALIDATION_ERROR naming the header, and nothing runs', async () => {
    const { disputeId } = await dispute();
    const res = await post(`/api/v2/disputes/${disputeId}/escalate`, {}, a.headers, 'has space');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error.details)).toContain('idempotency-key');
    expect((await e.sql`select current_tier from disputes where id = ${disputeId}`)[0]?.current_tier).toBe('tier_1_smart_contract');
  });
});

describe('security: keys are per platform', () => {
  it("another platform's request under the same key runs as its own and never sees the first platform's answer", async () => {
    const mine = await dispute(a);
    const theirs = await dispute(b);
    const key = `shared-${randomUUID()}`;
    const body = { submittedBy: 'sender', type: 'text', title: 'Tracking', content: 'A evidence' };
    const first = await post(`/api/v2/disputes/${mine.disputeId}/evidence`, body, a.headers, key);
    expect(first.status).toBe(201);
    // B's own request under the same key value runs (B's dispute, B's evidence) and is not a replay.
    const own = await post(`/api/v2/disputes/${theirs.disputeId}/evidence`, { ...body, content: 'B evidence' }, b.headers, key);
    expect(own.status).toBe(201);
    expect(own.headers['idempotent-replayed']).toBeUndefined();
    expect(own.body.content).toBe('B evidence');
    // B replaying A's exact request under A's key: A's dispute is not B's (404), A's answer is not handed out.
    const probe = await post(`/api/v2/disputes/${mine.disputeId}/evidence`, body, b.headers, `probe-${randomUUID()}`);
    expect(probe.status).toBe(404);
    expect(await evidenceRows(mine.disputeId)).toBe(1);
  });
});

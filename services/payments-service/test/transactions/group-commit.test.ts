import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentsConfigFrom } from '../../src/config.js';
import { type Answer, bearer, call, type PaymentsEnv, startPaymentsEnv } from '../support/harness.js';
import { address, newTenant, type Tenant, waitForEvents } from '../support/transactions.js';

// Group commit (ADR 39): single creations that reach the database together go as one statement and
// one commit, each with its own answer. Here the first creation of a group waits 400 ms for others,
// so requests sent at once are one group; the per-sender window is 3 a minute.

let e: PaymentsEnv;
let t: Tenant;

beforeAll(async () => {
  e = await startPaymentsEnv({ TX_RATE_LIMIT_PER_SENDER: '3', PAYMENTS_CREATION_GROUP_WAIT_MS: '400' });
  t = await newTenant(e);
});
afterAll(async () => e?.stop());

const create = (body: Record<string, unknown>, key?: string) =>
  call(e.svc.url, 'POST', '/api/v2/transactions', { headers: { ...bearer(t.token), ...(key ? { 'idempotency-key': key } : {}) }, body });

/** Per transaction id: its rows (the transaction and the PostgreSQL transaction that wrote it, its transitions, its outbox events). */
async function stored(ids: string[]) {
  const rows = await e.sql<{ id: string; xid: string; transitions: number; events: number }[]>`
    select t.id, t.xmin::text as xid,
      (select count(*)::int from transaction_transitions tt where tt.transaction_id = t.id) as transitions,
      (select count(*)::int from outbox o where o.type = 'transaction.created' and o.payload->'data'->'transaction'->>'id' = t.id::text) as events
    from transactions t where t.id = any(${ids}::uuid[])`;
  return new Map(rows.map((r) => [r.id, r]));
}

const senderRows = async (sender: string) =>
  (await e.sql<{ n: number }[]>`select count(*)::int as n from transactions where lower(from_address) = ${sender.toLowerCase()}`)[0]!.n;

describe('group commit of single creations', () => {
  it('is configured by PAYMENTS_CREATION_GROUP_MAX (default 32, 1 = off) and PAYMENTS_CREATION_GROUP_WAIT_MS (default 0)', () => {
    const config = paymentsConfigFrom({});
    expect(config.PAYMENTS_CREATION_GROUP_MAX).toBe(32);
    expect(config.PAYMENTS_CREATION_GROUP_WAIT_MS).toBe(0);
    expect(() => paymentsConfigFrom({ PAYMENTS_CREATION_GROUP_MAX: '0' })).toThrow(/PAYMENTS_CREATION_GROUP_MAX/);
  });

  it('a group with refused, conflicting and repeated creations beside good ones: every request gets its own answer, rows and event', async () => {
    // A sender whose window is full, and one with room for one more.
    const full = address();
    const almost = address();
    for (let i = 1; i <= 3; i++) expect((await create({ fromAddress: full, toAddress: address(), amount: i })).status).toBe(201);
    for (let i = 1; i <= 2; i++) expect((await create({ fromAddress: almost, toAddress: address(), amount: i })).status).toBe(201);

    const goodA = { fromAddress: address(), toAddress: address(), amount: '10.5' };
    const goodB = { fromAddress: address(), toAddress: address(), amount: 7 };
    const keyC = `k-${randomUUID()}`;
    const keyD = `k-${randomUUID()}`;
    const bodyD = { fromAddress: address(), toAddress: address(), amount: 3 };
    const repeated = { fromAddress: address(), toAddress: address(), amount: 11 };
    const senderC = address();
    const [a, b, fullRefused, almost1, almost2, c1, c2, d1, d2, rep1, rep2] = await Promise.all([
      create(goodA, `k-${randomUUID()}`),
      create(goodB, `k-${randomUUID()}`),
      create({ fromAddress: full, toAddress: address(), amount: 4 }),
      create({ fromAddress: almost, toAddress: address(), amount: 3 }),
      create({ fromAddress: almost, toAddress: address(), amount: 4 }),
      create({ fromAddress: senderC, toAddress: address(), amount: 1 }, keyC),
      create({ fromAddress: senderC, toAddress: address(), amount: 2 }, keyC),
      create(bodyD, keyD),
      create(bodyD, keyD),
      create(repeated),
      create(repeated),
    ]);

    // The good ones.
    for (const [answer, body] of [
      [a, goodA],
      [b, goodB],
    ] as const) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      expect(answer.body).toMatchObject({ fromAddress: body.fromAddress, toAddress: body.toAddress, status: 'pending' });
    }
    // The full window: 429 with its Retry-After; nothing of it stored.
    expect(fullRefused.status).toBe(429);
    expect(fullRefused.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { scope: 'sender', limit: 3 } });
    expect(Number(fullRefused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await senderRows(full)).toBe(3);
    // One room left, two requests: one 201, one 429.
    const almostAnswers = [almost1, almost2];
    expect(almostAnswers.map((x) => x.status).sort()).toEqual([201, 429]);
    expect(almostAnswers.find((x) => x.status === 429)!.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(await senderRows(almost)).toBe(3);
    // One new key, two bodies: one 201, the other 422 naming the first's transaction.
    const cAnswers = [c1, c2];
    expect(cAnswers.map((x) => x.status).sort()).toEqual([201, 422]);
    const cCreated = cAnswers.find((x) => x.status === 201)!;
    expect(cAnswers.find((x) => x.status === 422)!.body.error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      details: { field: 'idempotencyKey', transactionId: cCreated.body.id },
    });
    expect(await senderRows(senderC)).toBe(1);
    // One new key, the same body twice: one transaction, the same answer, the second a replay.
    expect([d1.status, d2.status]).toEqual([201, 201]);
    expect(d2.body).toEqual(d1.body);
    expect([d1.headers['idempotent-replayed'], d2.headers['idempotent-replayed']].filter((h) => h === 'true')).toHaveLength(1);
    expect(await senderRows(bodyD.fromAddress)).toBe(1);
    // The same transfer twice without a key: the duplicate window refuses the second (409).
    const repAnswers = [rep1, rep2];
    expect(repAnswers.map((x) => x.status).sort()).toEqual([201, 409]);
    const repCreated = repAnswers.find((x) => x.status === 201)!;
    expect(repAnswers.find((x) => x.status === 409)!.body.error).toMatchObject({
      code: 'DUPLICATE_TRANSACTION',
      details: { transactionId: repCreated.body.id },
    });
    expect(await senderRows(repeated.fromAddress)).toBe(1);

    // Every created transaction: one row, one creation transition, one transaction.created in the
    // outbox and one on the stream.
    const almostCreated = almostAnswers.find((x) => x.status === 201)!;
    const created: Answer[] = [a, b, almostCreated, cCreated, d1, repCreated];
    const ids = created.map((x) => x.body.id as string);
    const rows = await stored(ids);
    expect(rows.size).toBe(ids.length);
    for (const id of ids) expect(rows.get(id)).toMatchObject({ transitions: 1, events: 1 });
    // They were one group: the good ones and the first of each contested key share one commit (the
    // requests without a key skip the keys' lookup, and so its wait, and make a group of their own).
    expect(new Set([a, b, cCreated, d1].map((x) => rows.get(x.body.id)!.xid)).size).toBe(1);
    const events = await waitForEvents(e, (all) =>
      ids.every((id) => all.some((ev) => ev.type === 'transaction.created' && ev.data.transaction.id === id)),
    );
    for (const id of ids) expect(events.filter((ev) => ev.type === 'transaction.created' && ev.data.transaction.id === id)).toHaveLength(1);
  });

  it('20 requests with one key at once, in one group: one transaction, one event, the same answer to each', async () => {
    const key = `k-${randomUUID()}`;
    const body = { fromAddress: address(), toAddress: address(), amount: 5 };
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(body, key)));
    expect(answers.every((x) => x.status === 201)).toBe(true);
    const ids = new Set(answers.map((x) => x.body.id));
    expect(ids.size).toBe(1);
    expect(answers.filter((x) => x.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect(await senderRows(body.fromAddress)).toBe(1);
    const rows = await stored([...ids]);
    expect(rows.get([...ids][0]!)).toMatchObject({ transitions: 1, events: 1 });
  });

  it('when the group statement loses its connection, every request of the group gets 503 and nothing is run again', async () => {
    // The statement may have committed before its answer was lost: running a creation without an
    // idempotency key again could make it twice, so each request answers as a creation alone would.
    const held = address();
    const other = address();
    const releaseLock = Promise.withResolvers<void>();
    const holding = e.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtextextended(${`tx-sender:${t.platformId}:${held.toLowerCase()}`}, 0))`;
      await releaseLock.promise;
    });
    const answers = Promise.all([
      create({ fromAddress: held, toAddress: address(), amount: 1 }),
      create({ fromAddress: other, toAddress: address(), amount: 2 }),
    ]);
    // The group statement waits for the held sender's lock; its connection is cut there.
    let pid: number | undefined;
    for (let i = 0; i < 100 && pid === undefined; i++) {
      const [row] = await e.sql<{ pid: number }[]>`
        select pid from pg_stat_activity
        where datname = current_database() and wait_event = 'advisory' and query like '%jsonb_to_recordset%'`;
      pid = row?.pid;
      if (pid === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(pid).toBeDefined();
    await e.sql`select pg_terminate_backend(${pid!})`;
    const [a, b] = await answers;
    releaseLock.resolve();
    await holding;
    for (const answer of [a, b]) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(503);
      expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
    }
    expect(await senderRows(held)).toBe(0);
    expect(await senderRows(other)).toBe(0);
  });

  it("the keys' lookups of a group: a replay, a reused key and a new key at once, each its own answer", async () => {
    const body = { fromAddress: address(), toAddress: address(), amount: 8 };
    const key = `k-${randomUUID()}`;
    const first = await create(body, key);
    expect(first.status).toBe(201);
    const fresh = { fromAddress: address(), toAddress: address(), amount: 9 };
    const [replay, reused, created, replay2] = await Promise.all([
      create(body, key),
      create({ ...body, amount: 10 }, key),
      create(fresh, `k-${randomUUID()}`),
      create(body, key),
    ]);
    for (const r of [replay, replay2]) {
      expect(r.status).toBe(201);
      expect(r.headers['idempotent-replayed']).toBe('true');
      expect(r.body).toEqual(first.body);
    }
    expect(reused.status).toBe(422);
    expect(reused.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', details: { transactionId: first.body.id } });
    expect(created.status).toBe(201);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
    expect(await senderRows(body.fromAddress)).toBe(1);
    expect(await senderRows(fresh.fromAddress)).toBe(1);
  });

  it('when the group statement fails, each creation runs alone: the good ones are created, the bad one gets its own error', async () => {
    // A creation PostgreSQL refuses (a trigger of this test's database raises for one note): the
    // whole group statement fails, writing nothing.
    await e.sql.unsafe(`
      create or replace function refuse_marked() returns trigger language plpgsql as $$
      begin
        if new.metadata->>'note' = 'refuse me' then raise exception 'refused by the test'; end if;
        return new;
      end $$;
      create trigger refuse_marked before insert on transactions for each row execute function refuse_marked();`);
    const alone = await create({ fromAddress: address(), toAddress: address(), amount: 1, metadata: { note: 'refuse me' } });
    const goods = [1, 2, 3].map((amount) => ({ fromAddress: address(), toAddress: address(), amount }));
    const badBody = { fromAddress: address(), toAddress: address(), amount: 4, metadata: { note: 'refuse me' } };
    const [bad, ...good] = await Promise.all([create(badBody), ...goods.map((g) => create(g))]);
    expect(alone.status, JSON.stringify(alone.body)).toBe(500);
    expect(bad.status).toBe(alone.status);
    expect(bad.body.error.code).toBe(alone.body.error.code);
    expect(bad.body.error.code).toBe('INTERNAL_ERROR');
    expect(await senderRows(badBody.fromAddress)).toBe(0);
    for (const answer of good) expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const rows = await stored(good.map((x) => x.body.id));
    expect(rows.size).toBe(3);
    for (const row of rows.values()) expect(row).toMatchObject({ transitions: 1, events: 1 });
    // Each was committed alone.
    expect(new Set([...rows.values()].map((row) => row.xid)).size).toBe(3);
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentsConfigFrom } from '../../src/config.js';
import { bearer, call, type PaymentsEnv, startPaymentsEnv } from '../support/harness.js';
import { address, count, newTenant, type Tenant } from '../support/transactions.js';

// TX_RATE_LIMIT_PER_SENDER sets the per-sender window; batch legs count toward it and toward the
// duplicate window exactly as single transactions do (docs/transactions.md).

let e: PaymentsEnv;
let t: Tenant;

beforeAll(async () => {
  e = await startPaymentsEnv({ TX_RATE_LIMIT_PER_SENDER: '3' });
  t = await newTenant(e);
});
afterAll(async () => e?.stop());

const single = (body: Record<string, unknown>) => call(e.svc.url, 'POST', '/api/v2/transactions', { headers: bearer(t.token), body });
const batch = (body: Record<string, unknown>) =>
  call(e.svc.url, 'POST', '/api/v2/transactions/batches', { headers: bearer(t.token), body });
const counts = () => Promise.all([count(e, 'transactions'), count(e, 'batches'), count(e, 'outbox')]);

describe('TX_RATE_LIMIT_PER_SENDER', () => {
  it('is read from the environment: default 10, 0 turns it off, a bad value is refused at start', () => {
    expect(paymentsConfigFrom({}).TX_RATE_LIMIT_PER_SENDER).toBe(10);
    expect(paymentsConfigFrom({ TX_RATE_LIMIT_PER_SENDER: '0' }).TX_RATE_LIMIT_PER_SENDER).toBe(0);
    expect(() => paymentsConfigFrom({ TX_RATE_LIMIT_PER_SENDER: 'many' })).toThrow(/TX_RATE_LIMIT_PER_SENDER/);
  });

  it('the 4th single creation of a sender within the minute is 429 (limit 3 here)', async () => {
    const sender = address();
    for (let i = 1; i <= 3; i++) expect((await single({ fromAddress: sender, toAddress: address(), amount: i })).status).toBe(201);
    const before = await counts();
    const fourth = await single({ fromAddress: sender, toAddress: address(), amount: 4 });
    expect(fourth.status).toBe(429);
    expect(fourth.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { scope: 'sender', limit: 3 } });
    expect(Number(fourth.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await counts()).toEqual(before);
  });

  it("a batch's legs count: after a batch of 3 legs the sender's next single creation and next batch are 429", async () => {
    const sender = address();
    const made = await batch({ fromAddress: sender, legs: [1, 2, 3].map((amount) => ({ toAddress: address(), amount })) });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const before = await counts();
    const next = await single({ fromAddress: sender, toAddress: address(), amount: 5 });
    expect(next.status).toBe(429);
    expect(next.body.error.details).toMatchObject({ scope: 'sender', limit: 3 });
    const nextBatch = await batch({ fromAddress: sender, legs: [{ toAddress: address(), amount: 1 }] });
    expect(nextBatch.status).toBe(429);
    expect(await counts()).toEqual(before);
  });

  it('a batch is refused while single creations fill the window; a batch larger than the room left is admitted and fills it', async () => {
    const sender = address();
    for (let i = 1; i <= 3; i++) expect((await single({ fromAddress: sender, toAddress: address(), amount: i })).status).toBe(201);
    const refused = await batch({ fromAddress: sender, legs: [{ toAddress: address(), amount: 1 }] });
    expect(refused.status).toBe(429);

    const roomy = address();
    expect((await single({ fromAddress: roomy, toAddress: address(), amount: 1 })).status).toBe(201);
    const big = await batch({ fromAddress: roomy, legs: [1, 2, 3, 4, 5].map((amount) => ({ toAddress: address(), amount })) });
    expect(big.status).toBe(201);
    expect((await single({ fromAddress: roomy, toAddress: address(), amount: 9 })).status).toBe(429);
  });

  it('single creations and batches of one sender at once never take more than the window admits', async () => {
    const sender = address();
    const legs = (n: number) => Array.from({ length: n }, (_, i) => ({ toAddress: address(), amount: i + 1 }));
    const answers = await Promise.all([
      ...[1, 2, 3, 4].map((amount) => single({ fromAddress: sender, toAddress: address(), amount }).then((a) => ({ a, size: 1 }))),
      batch({ fromAddress: sender, legs: legs(2) }).then((a) => ({ a, size: 2 })),
      batch({ fromAddress: sender, legs: legs(2) }).then((a) => ({ a, size: 2 })),
    ]);
    expect(answers.every(({ a }) => a.status === 201 || a.status === 429)).toBe(true);
    const admitted = answers.filter(({ a }) => a.status === 201).reduce((n, { size }) => n + size, 0);
    const [stored] = await e.sql<{ n: number }[]>`
      select count(*)::int as n from transactions where lower(from_address) = ${sender.toLowerCase()}`;
    expect(stored!.n).toBe(admitted);
    // Each request is admitted while fewer than 3 are in the window: at least 3 in all, at most 2 + a batch of 2.
    expect(admitted).toBeGreaterThanOrEqual(3);
    expect(admitted).toBeLessThanOrEqual(4);
  });
});

describe('the duplicate window covers batch legs', () => {
  it('a single transaction repeating a leg of a recent batch is 409, and a batch leg repeating a recent transaction is 409 naming the leg', async () => {
    const sender = address();
    const receiver = address();
    const made = await batch({ fromAddress: sender, legs: [{ toAddress: receiver, amount: '12.5' }] });
    expect(made.status).toBe(201);
    const legId = made.body.legs[0].id;

    const before = await counts();
    const repeat = await single({ fromAddress: sender, toAddress: receiver, amount: 12.5 });
    expect(repeat.status).toBe(409);
    expect(repeat.body.error).toMatchObject({ code: 'DUPLICATE_TRANSACTION', details: { transactionId: legId } });
    expect(await counts()).toEqual(before);

    const other = address();
    const first = await single({ fromAddress: other, toAddress: receiver, amount: 7 });
    expect(first.status).toBe(201);
    const dupLeg = await batch({
      fromAddress: other,
      legs: [
        { toAddress: address(), amount: 1 },
        { toAddress: receiver, amount: '7.00' },
      ],
    });
    expect(dupLeg.status).toBe(409);
    expect(dupLeg.body.error).toMatchObject({ code: 'DUPLICATE_TRANSACTION', details: { transactionId: first.body.id, field: 'legs.1' } });

    // An automatic key (a client library's) does not.
    const automatic = await batch({
      fromAddress: other,
      legs: [{ toAddress: receiver, amount: 7 }],
      idempotencyKey: `auto_${randomUUID()}`,
    });
    expect(automatic.status).toBe(409);
    expect(automatic.body.error).toMatchObject({ code: 'DUPLICATE_TRANSACTION', details: { field: 'legs.0' } });
    // An idempotency key makes a repeat deliberate, as for single transactions.
    const keyed = await batch({ fromAddress: other, legs: [{ toAddress: receiver, amount: 7 }], idempotencyKey: randomUUID() });
    expect(keyed.status).toBe(201);
  });
});

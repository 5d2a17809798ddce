import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, type PaymentsEnv, startPaymentsEnv } from '../support/harness.js';
import { address, count, newTenant, type Tenant } from '../support/transactions.js';

// Amounts are never rounded: a JSON number is read from the digits the client wrote (the body
// parser keeps each number's source text), so more than 15 significant digits, or more decimals
// than the currency has, is a 400 naming the field; nothing is written (docs/transactions.md, "Amounts").

let e: PaymentsEnv;
let t: Tenant;

beforeAll(async () => {
  e = await startPaymentsEnv();
  t = await newTenant(e);
});
afterAll(async () => e?.stop());

const post = (path: string, json: string) => call(e.svc.url, 'POST', path, { headers: bearer(t.token), json });
const transfer = (amount: string, currency = 'USDC') =>
  `{"fromAddress":"${address()}","toAddress":"${address()}","currency":"${currency}","amount":${amount}}`;
const written = () => Promise.all([count(e, 'transactions'), count(e, 'batches'), count(e, 'outbox'), count(e, 'quotes')]);

async function refused(path: string, json: string, field: string, reason: RegExp) {
  const before = await written();
  const res = await post(path, json);
  expect(res.status, json).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.details.errors).toEqual([{ field, reason: expect.stringMatching(reason) }]);
  expect(await written()).toEqual(before);
  return res;
}

describe('a JSON number amount', () => {
  it.each([
    ['16 significant digits', '0.1234567890123456', 'USDC', /at most 15 significant digits/],
    ['19 significant digits (JSON.parse would make it 0.12345678901234568)', '0.1234567890123456789', 'ETH', /15 significant digits/],
    ['an integer part beyond a double', '1000000.0000000000001', 'ETH', /15 significant digits/],
    ['7 decimals in USDC', '1.1234567', 'USDC', /at most 6 decimals \(USDC\)/],
    ['7 decimals in an exponent form', '1.1234567e0', 'USDC', /at most 6 decimals/],
    ['7 decimals in USDT', '0.0000001', 'USDT', /at most 6 decimals \(USDT\)/],
  ])('%s -> 400 naming amount, nothing written', async (_what, amount, currency, reason) => {
    const res = await refused('/api/v2/transactions', transfer(amount, currency), 'amount', reason);
    expect(res.body.error.message).toMatch(/^amount /);
  });

  it.each([
    ['15 significant digits in ETH', '0.123456789012345', 'ETH', '0.123456789012345'],
    ['6 decimals in USDC', '999999.123456', 'USDC', '999999.123456'],
    ['trailing zeros carry no value', '25.500000000000', 'USDC', '25.5'],
    ['an exponent form', '1.5e1', 'USDC', '15'],
    ['a small exponent form', '125E-4', 'USDC', '0.0125'],
  ])('%s -> 201 with the exact amount', async (_what, amount, currency, stored) => {
    const res = await post('/api/v2/transactions', transfer(amount, currency));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.amount).toBe(stored);
    const [row] = await e.sql`select amount::text as amount from transactions where id = ${res.body.id}`;
    expect(row?.amount).toBe(stored);
  });

  it('a decimal string is exact whatever its length, but still limited to the currency decimals', async () => {
    await refused('/api/v2/transactions', transfer('"1.1234567"'), 'amount', /at most 6 decimals/);
    const res = await post('/api/v2/transactions', transfer('"0.123456789012345678"', 'ETH'));
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe('0.123456789012345678');
  });

  it('a batch leg names its amount (legs.<i>.amount); the whole batch is refused', async () => {
    const json = `{"fromAddress":"${address()}","legs":[{"toAddress":"${address()}","amount":1},{"toAddress":"${address()}","amount":2.0000001}]}`;
    await refused('/api/v2/transactions/batches', json, 'legs.1.amount', /at most 6 decimals/);
    const digits = `{"fromAddress":"${address()}","legs":[{"toAddress":"${address()}","amount":3.14159265358979323}]}`;
    await refused('/api/v2/transactions/batches', digits, 'legs.0.amount', /15 significant digits/);
  });

  it('a quote refuses what a create would refuse', async () => {
    await refused('/api/v2/transactions/quote', '{"currency":"USDC","amount":10.0000001}', 'amount', /at most 6 decimals/);
    const ok = await post('/api/v2/transactions/quote', '{"currency":"USDC","amount":10.000001}');
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });
});

describe('the JSON body parser', () => {
  it('refuses prototype poisoning and bad JSON with 400 INVALID_JSON, as before', async () => {
    for (const json of ['{"__proto__":{"isAdmin":true},"amount":1}', '{"amount":1', '']) {
      const res = await post('/api/v2/transactions', json);
      expect(res.status, json).toBe(400);
      expect(res.body.error.code).toBe('INVALID_JSON');
    }
  });
});

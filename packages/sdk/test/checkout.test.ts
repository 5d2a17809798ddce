import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, PaymentsClient, ValidationError } from '../src/index.js';
import { address, type Stack, startStack } from './stack.js';

// checkout.sessions.* against payments-service running as a process (its built bundle), on a real
// PostgreSQL and JetStream: the sandbox platform of a workspace signed up over HTTP.

let stack: Stack;
let client: PaymentsClient;

beforeAll(async () => {
  stack = await startStack();
  client = new PaymentsClient({
    baseUrl: stack.paymentsUrl,
    clientId: stack.tenant.sandbox.clientId,
    clientSecret: stack.tenant.sandbox.clientSecret,
  });
});
afterAll(async () => {
  await stack?.stop();
});

const body = (extra: Record<string, unknown> = {}) => ({
  amount: 12.5,
  toAddress: address(),
  successUrl: 'https://shop.example/thanks',
  cancelUrl: 'https://shop.example/cart',
  ...extra,
});

describe('checkout.sessions', () => {
  it('create (idempotent with its key), retrieve, list, expire', async () => {
    const created = await client.checkout.sessions.create(body({ customerId: 'sdk-cust' }), { idempotencyKey: 'sdk-checkout-1' });
    expect(created).toMatchObject({ status: 'open', amount: '12.5', customerId: 'sdk-cust', transactionId: null });
    expect(created.url).toBe(`${stack.paymentsUrl}/pay/${created.id}`);
    expect(created.idempotentReplayed).toBeUndefined();
    const replayed = await client.checkout.sessions.create(body({ customerId: 'sdk-cust', toAddress: created.toAddress }), {
      idempotencyKey: 'sdk-checkout-1',
    });
    expect(replayed.idempotentReplayed).toBe(true);
    expect(replayed.id).toBe(created.id);

    expect(await client.checkout.sessions.retrieve(created.id)).toMatchObject({ id: created.id, status: 'open' });
    const listed = await client.checkout.sessions.list({ customerId: 'sdk-cust' }).toArray();
    expect(listed.map((s) => s.id)).toEqual([created.id]);

    const expired = await client.checkout.sessions.expire(created.id);
    expect(expired).toMatchObject({ id: created.id, status: 'expired' });
    expect((await client.checkout.sessions.list({ status: 'expired' }).toArray()).map((s) => s.id)).toContain(created.id);
  });

  it('errors arrive typed: a bad return URL is a ValidationError naming it; an unknown session NotFound; a reused key (other body) 422 ValidationError IDEMPOTENCY_KEY_REUSED', async () => {
    const bad = await client.checkout.sessions.create(body({ successUrl: 'nope' })).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(JSON.stringify((bad as ValidationError).details)).toContain('successUrl');
    const missing = await client.checkout.sessions.retrieve('0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7a').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    await client.checkout.sessions.create(body(), { idempotencyKey: 'sdk-checkout-2' });
    const reused = await client.checkout.sessions.create(body(), { idempotencyKey: 'sdk-checkout-2' }).catch((e: unknown) => e);
    expect(reused).toBeInstanceOf(ValidationError);
    expect((reused as ValidationError).code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

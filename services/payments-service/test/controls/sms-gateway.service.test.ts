import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, call, key, type PaymentsEnv, startPaymentsEnv } from '../helpers.js';
import { type GatewayStandIn, startSmsGateway } from '../support/sms-gateway.js';
import { address, count, newTenant, type Tenant } from '../transactions/setup.js';

// A real instance with SMS_GATEWAY_URL pointing at the gateway stand-in: a two_factor control's
// code goes out over HTTP, and the code the stand-in received is the one verify-2fa accepts.

let e: PaymentsEnv;
let t: Tenant;
let gateway: GatewayStandIn;

beforeAll(async () => {
  gateway = await startSmsGateway();
  e = await startPaymentsEnv({ SMS_GATEWAY_URL: gateway.url, SMS_GATEWAY_API_KEY: gateway.apiKey, SMS_TIMEOUT: '5s' });
  t = await newTenant(e);
});
afterAll(async () => {
  await e?.stop();
  await gateway?.stop();
});

const twoFactorTemplate = {
  templateName: 'two-factor',
  controls: [
    {
      id: '2fa',
      type: 'two_factor',
      name: '2FA',
      executionPhase: 'pre_escrow',
      executionOrder: 1,
      config: { phoneNumber: '+14155550123' },
    },
  ],
};
const create = () =>
  call(e.svc.url, 'POST', '/api/v2/transactions', {
    headers: bearer(t.token),
    body: { fromAddress: address(), toAddress: address(), amount: '12.5', template: twoFactorTemplate },
  });

describe('two_factor through the HTTP SMS gateway', () => {
  it('sends a 6-digit code to the gateway, and verify-2fa with that code moves the transaction to pending', async () => {
    const before = gateway.messages.length;
    const res = await create();
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('pending_user_action');
    const id: string = res.body.id;

    expect(gateway.messages).toHaveLength(before + 1);
    const sms = gateway.messages.at(-1)!;
    expect(sms).toMatchObject({ to: '+14155550123', reference: id });
    const code = /\b(\d{6})\b/.exec(sms.body)?.[1] as string;
    expect(code).toMatch(/^\d{6}$/);
    expect(gateway.requests.at(-1)?.headers.authorization).toBe(`Bearer ${gateway.apiKey}`);

    const [challenge] = await e.sql`select status, provider, recipient from control_challenges where transaction_id = ${id}`;
    expect(challenge).toEqual({ status: 'open', provider: 'sms-gateway', recipient: '+1******0123' });

    const verified = await call(e.svc.url, 'POST', '/api/v1/controls/verify-2fa', {
      headers: key(t.apiKey),
      body: { transactionId: id, code },
    });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      status: 'approved',
      provider: 'sms-gateway',
      metadata: { transactionId: id, transactionStatus: 'pending' },
    });
    const [row] = await e.sql`select status from transactions where id = ${id}`;
    expect(row?.status).toBe('pending');
    const transitions = await e.sql`select action from transaction_transitions where transaction_id = ${id} order by seq`;
    expect(transitions.map((x) => x.action)).toEqual(['create', 'require_user_action', 'complete_user_action']);
  });

  it.each([
    [503, true],
    [401, false],
  ])('a gateway answering %i fails the creation with 502 and nothing is written', async (status, retryable) => {
    gateway.mode = status;
    try {
      const tables = ['transactions', 'outbox', 'transaction_transitions', 'control_challenges', 'control_results'];
      const before = await Promise.all(tables.map((name) => count(e, name)));
      const res = await create();
      expect(res.status).toBe(502);
      expect(res.body.error).toMatchObject({ code: 'INTEGRATION_PROVIDER_ERROR', details: { provider: 'sms-gateway', retryable } });
      expect(await Promise.all(tables.map((name) => count(e, name)))).toEqual(before);
    } finally {
      gateway.mode = 'ok';
    }
  });
});

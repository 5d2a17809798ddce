import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/chain.js';
import { bearer, call, key, type PaymentsEnv, startPaymentsEnv } from '../support/harness.js';
import { type GatewayStandIn, startSmsGateway } from '../support/sms-gateway.js';
import { address, newTenant, type Tenant } from '../support/transactions.js';

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

    // Sent by the delivery worker once the creation committed (the codes outbox).
    await waitFor(async () => gateway.messages.length === before + 1, 'the code at the gateway');
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

  it('a gateway answering 503 does not undo the creation: the code is sent again until the gateway takes it', async () => {
    gateway.mode = 503;
    let id = '';
    try {
      const res = await create();
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('pending_user_action');
      id = res.body.id;
      const delivery = () => e.sql`select status, attempts, last_error from code_deliveries where transaction_id = ${id}`;
      const [waiting] = await waitFor(async () => {
        const rows = await delivery();
        return rows[0] && rows[0].attempts >= 2 && rows[0].status === 'pending' ? rows : null;
      }, 'two refused attempts');
      expect(waiting).toMatchObject({ status: 'pending', last_error: expect.stringMatching(/try again/) });
    } finally {
      gateway.mode = 'ok';
    }
    await waitFor(async () => gateway.messages.some((m) => m.reference === id), 'the code once the gateway is back', 20_000);
    const [row] = await waitFor(async () => {
      const rows = await e.sql`select status, sealed from code_deliveries where transaction_id = ${id}`;
      return rows[0]?.status === 'sent' ? rows : null;
    }, 'the delivery recorded');
    expect(row).toEqual({ status: 'sent', sealed: null });
  });

  it('a gateway refusing our key (401) fails the delivery at once, logged for operators; the transaction waits', async () => {
    gateway.mode = 401;
    try {
      const before = gateway.requests.length;
      const res = await create();
      expect(res.status).toBe(201);
      const id: string = res.body.id;
      const [row] = await waitFor(async () => {
        const rows = await e.sql`select status, attempts, sealed from code_deliveries where transaction_id = ${id}`;
        return rows[0]?.status === 'failed' ? rows : null;
      }, 'the failed delivery');
      expect(row).toEqual({ status: 'failed', attempts: 1, sealed: null });
      expect(gateway.requests.length).toBe(before + 1);
      expect((await e.sql`select status from transactions where id = ${id}`)[0]?.status).toBe('pending_user_action');
    } finally {
      gateway.mode = 'ok';
    }
  });
});

import { type Control, uuidv7 } from '@holdfast/contracts';
import { createKeyring, createSecretBox, hmacSha256 } from '@holdfast/secrets';
import { fileFixture, testLogger } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCodeDeliveryWorker } from '../../src/modules/controls/delivery.js';
import { createControlsRepository } from '../../src/modules/controls/repository.js';
import { createControlsService } from '../../src/modules/controls/service.js';
import type { SmsGateway, SmsMessage } from '../../src/modules/controls/sms.js';
import { createTransactionMoves } from '../../src/modules/transactions/moves.js';
import { createTransactionsRepository } from '../../src/modules/transactions/repository.js';
import { bearer, call, createClient, key, newPlatform, startPaymentsEnv, tokenFor } from '../support/harness.js';

/** An EVM address from a few hex digits, in the case given (`BAD` -> 0xBAD000…): controls take real addresses. */
const adr = (digits: string) => `0x${digits.padEnd(40, '0')}`;

// The controls gate is exercised at the database level (creation is another module): a row is
// inserted as creation does, `afterCreate` runs in its transaction and its move is applied there;
// the codes are then verified over HTTP on a running service.

let a: { platformId: string; apiKey: string };
let b: { platformId: string; apiKey: string };
let weakKey: string;
let v2Token: string;

/** SMS is a third party: a stand-in that keeps what it was asked to send. */
function capturingGateway(provider: string): SmsGateway & { sent: SmsMessage[] } {
  const sent: SmsMessage[] = [];
  return {
    provider,
    sent,
    async send(message) {
      sent.push(message);
      return { messageId: `m-${sent.length}` };
    },
  };
}
const sms = capturingGateway('test-sms');
const vendorSms = capturingGateway('test-vendor-sms');
const transactions = createTransactionsRepository();
const moves = createTransactionMoves({ repository: transactions });
let controls: ReturnType<typeof createControlsService>;
let delivery: ReturnType<typeof createCodeDeliveryWorker>;
// The service under test and the HTTP instance hold the same key (local: the development key), as instances of one deployment do.
const box = createSecretBox(createKeyring({ key: undefined, appEnv: 'local' }));

const control = (c: Partial<Control> & Pick<Control, 'id' | 'type'>): Control => ({
  name: c.id,
  executionPhase: 'pre_escrow',
  executionOrder: 1,
  config: {},
  ...c,
});
const template = (...list: Control[]) => ({ templateName: 'test', templateVersion: '1', controls: list });

/** Inserts a transaction as creation does and runs the gate in the same database transaction. */
async function create(
  platformId: string,
  input: { templateId?: string; template?: Record<string, unknown> },
  fields: { amount?: string; from?: string; to?: string; metadata?: Record<string, unknown> } = {},
) {
  const prepared = await controls.gate.prepare(platformId, input);
  const id = uuidv7();
  const outcome = await e.sql.begin(async (tx) => {
    await tx`insert into transactions (id, platform_id, status, amount, currency, from_address, to_address, blockchain_network,
               orchestration_type, template_id, template, metadata)
      values (${id}, ${platformId}, 'pending', ${fields.amount ?? '10'}, 'USDC', ${fields.from ?? adr('AaA1')}, ${fields.to ?? adr('BbB2')},
              'base-sepolia', 'platform', ${prepared.templateId},
              ${prepared.snapshot ? JSON.stringify(prepared.snapshot) : null}::text::jsonb, ${JSON.stringify(fields.metadata ?? {})}::text::jsonb)`;
    const row = await transactions.find(tx, id);
    const out = await controls.gate.afterCreate(tx, row!, prepared);
    if (out.action) {
      await moves.move(tx, {
        transactionId: id,
        action: out.action,
        actor: 'test:create',
        reason: out.reason ?? null,
        patch: out.action === 'fail_control' ? { failureReason: out.reason } : undefined,
      });
    }
    return out;
  });
  // The codes outbox: what the committed transaction asked for is sent now.
  await delivery.runOnce();
  return { id, outcome };
}

const statusOf = async (id: string) => (await e.sql<{ status: string }[]>`select status from transactions where id = ${id}`)[0]?.status;
const resultsOf = (id: string) =>
  e.sql<
    { control_id: string; outcome: string }[]
  >`select control_id, outcome from control_results where transaction_id = ${id} order by seq`;
const failedEvents = (id: string) =>
  e.sql<{ payload: { data: { reason?: string; transaction: { status: string } } } }[]>`
    select payload from outbox where type = 'transaction.failed' and payload->'data'->'transaction'->>'id' = ${id}`;
const lastCode = (gateway: { sent: SmsMessage[] }, transactionId: string) =>
  gateway.sent.filter((m) => m.transactionId === transactionId).at(-1)?.code as string;
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
const phone = { phoneNumber: '+14155550123' };

// The service's own code worker polls once at start only: the codes of this file go out through `delivery`.
const e = fileFixture(() => startPaymentsEnv({ CONTROLS_CODE_DELIVERY_INTERVAL: '1h' }));
beforeAll(async () => {
  const repository = createControlsRepository(e.sql);
  controls = createControlsService({ repository, transactions, moves, sms, vendorSms, codeTtlMs: 600_000, maxAttempts: 5, box });
  delivery = createCodeDeliveryWorker({
    sql: e.sql,
    repository,
    box,
    gateways: { two_factor: sms, vendor_sms: vendorSms },
    logger: testLogger(),
    pollIntervalMs: 60_000,
  });
  const scopes = ['write:transactions', 'read:templates', 'write:templates'];
  a = await newPlatform(e, { name: 'Platform A', scopes });
  b = await newPlatform(e, { name: 'Platform B', scopes });
  weakKey = (await newPlatform(e, { name: 'Weak', scopes: ['read:transactions'] })).apiKey;
  const client = await createClient(e.svc.url, e.admin, { name: 'a client', scopes: ['write:transactions'], platformId: a.platformId });
  v2Token = await tokenFor(e.svc.url, client);
});

describe('control types', () => {
  it('amount_limit compares exact decimals against min and max', async () => {
    const t = { template: template(control({ id: 'limit', type: 'amount_limit', config: { min: '1', max: 100 } })) };
    expect((await create(a.platformId, t, { amount: '100' })).outcome).toEqual({ action: null });
    const over = await create(a.platformId, t, { amount: '100.000000000000000001' });
    expect(over.outcome).toMatchObject({ action: 'fail_control', reason: expect.stringContaining('above the maximum 100') });
    expect(await statusOf(over.id)).toBe('failed');
    const [event] = await failedEvents(over.id);
    expect(event?.payload.data).toMatchObject({ transaction: { status: 'failed' }, reason: expect.stringContaining('limit') });
    const under = await create(a.platformId, t, { amount: '0.99' });
    expect(under.outcome).toMatchObject({ action: 'fail_control', reason: expect.stringContaining('below the minimum 1') });
  });

  it('allow_list and deny_list match addresses case-insensitively on from and to', async () => {
    const deny = { template: template(control({ id: 'deny', type: 'deny_list', config: { addresses: [adr('BAD')], applyTo: 'to' } })) };
    expect((await create(a.platformId, deny, { to: adr('bad') })).outcome).toMatchObject({ action: 'fail_control' });
    expect((await create(a.platformId, deny, { from: adr('bad'), to: adr('600d') })).outcome).toEqual({ action: null });
    const allow = { template: template(control({ id: 'allow', type: 'allow_list', config: { addresses: [adr('aaa1'), adr('BBB2')] } })) };
    expect((await create(a.platformId, allow, { from: adr('AAA1'), to: adr('bbb2') })).outcome).toEqual({ action: null });
    const out = await create(a.platformId, allow, { from: adr('AAA1'), to: adr('CCC3') });
    expect(out.outcome).toMatchObject({ action: 'fail_control', reason: expect.stringContaining('toAddress is not on the allow list') });
  });

  it('risk_review flags by amount threshold or always', async () => {
    const t = { template: template(control({ id: 'risk', type: 'risk_review', config: { minAmount: '500' } })) };
    expect((await create(a.platformId, t, { amount: '499.99' })).outcome).toEqual({ action: null });
    const big = await create(a.platformId, t, { amount: '500' });
    expect(big.outcome.action).toBe('flag_for_review');
    expect(await statusOf(big.id)).toBe('risk_review');
  });

  it('runs the pre_escrow phase in executionOrder: inactive skipped, optional failures recorded, later phases not run', async () => {
    const { id, outcome } = await create(a.platformId, {
      template: template(
        control({ id: 'review', type: 'risk_review', executionOrder: 9, config: { always: true } }),
        control({ id: 'optional-deny', type: 'deny_list', executionOrder: 2, isRequired: false, config: { addresses: [adr('aaa1')] } }),
        control({ id: 'inactive-deny', type: 'deny_list', executionOrder: 1, isActive: false, config: { addresses: [adr('aaa1')] } }),
        control({ id: 'release-limit', type: 'amount_limit', executionPhase: 'pre_release', executionOrder: 0, config: { max: 1 } }),
        control({ id: 'limit', type: 'amount_limit', executionOrder: 2, config: { max: 1000 } }),
      ),
    });
    expect(outcome.action).toBe('flag_for_review');
    expect(await resultsOf(id)).toEqual([
      { control_id: 'inactive-deny', outcome: 'skipped' },
      { control_id: 'optional-deny', outcome: 'failed' },
      { control_id: 'limit', outcome: 'passed' },
      { control_id: 'review', outcome: 'flagged' },
    ]);
  });

  it('stops at the first required failure', async () => {
    const { id, outcome } = await create(a.platformId, {
      template: template(
        control({ id: 'first', type: 'amount_limit', executionOrder: 1, config: { max: 5 } }),
        control({ id: 'second', type: 'risk_review', executionOrder: 2, config: { always: true } }),
      ),
    });
    expect(outcome).toMatchObject({ action: 'fail_control', reason: expect.stringContaining('control first (amount_limit)') });
    expect(await resultsOf(id)).toEqual([{ control_id: 'first', outcome: 'failed' }]);
  });

  it('fails a two-factor control without a phone number to send to', async () => {
    const { outcome } = await create(a.platformId, { template: template(control({ id: '2fa', type: 'two_factor' })) });
    expect(outcome).toMatchObject({ action: 'fail_control', reason: expect.stringContaining('no phone number') });
  });
});

describe('templates', () => {
  it('refuses an invalid embedded template before anything is written', async () => {
    await expect(
      controls.gate.prepare(a.platformId, { template: template(control({ id: 'x', type: 'amount_limit', config: { max: 'lots' } })) }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [expect.objectContaining({ field: expect.stringMatching(/^template\.controls\.0\.config\.max/) })] },
    });
    await expect(controls.gate.prepare(a.platformId, { template: { templateName: 'no controls' } })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(
      controls.gate.prepare(a.platformId, {
        template: template(control({ id: 'd', type: 'deny_list' }), control({ id: 'd', type: 'risk_review' })),
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('creates, lists and reads library templates per platform, used by templateId', async () => {
    const body = { name: 'Large payments', controls: [control({ id: 'limit', type: 'amount_limit', config: { max: '50' } })] };
    const created = await call(e.svc.url, 'POST', '/api/v1/controls/templates', { headers: key(a.apiKey), body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ platformId: a.platformId, name: 'Large payments', version: 1 });
    expect(created.body.controls[0]).toMatchObject({ id: 'limit', isRequired: true, isActive: true });
    const id = created.body.id;

    const list = await call(e.svc.url, 'GET', '/api/v1/controls/templates', { headers: key(a.apiKey) });
    expect(list.body.map((t: { id: string }) => t.id)).toContain(id);
    expect((await call(e.svc.url, 'GET', `/api/v1/controls/templates/${id}`, { headers: key(a.apiKey) })).body.id).toBe(id);

    // Another platform neither sees nor uses it.
    expect((await call(e.svc.url, 'GET', `/api/v1/controls/templates/${id}`, { headers: key(b.apiKey) })).status).toBe(404);
    expect((await call(e.svc.url, 'GET', '/api/v1/controls/templates', { headers: key(b.apiKey) })).body).toEqual([]);
    await expect(controls.gate.prepare(b.platformId, { templateId: id })).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const used = await create(a.platformId, { templateId: id }, { amount: '51' });
    expect(used.outcome.action).toBe('fail_control');
    const [row] = await e.sql`select template_id, template from transactions where id = ${used.id}`;
    expect(row).toMatchObject({ template_id: id, template: { templateId: id, templateName: 'Large payments', templateVersion: 1 } });
  });

  it('refuses bad input, no credential and a missing scope, storing nothing', async () => {
    const before = (await e.sql`select count(*)::int as n from control_templates`)[0]?.n;
    const bad = await call(e.svc.url, 'POST', '/api/v1/controls/templates', {
      headers: key(a.apiKey),
      body: { name: 'bad', controls: [control({ id: 'r', type: 'risk_review', config: { sometimes: true } })] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(bad.body.error.details.errors[0].field).toBe('controls.0.config.sometimes');
    // An address a list holds is an address (issue 28 item 8): `0x123` was stored as sent.
    const short = await call(e.svc.url, 'POST', '/api/v1/controls/templates', {
      headers: key(a.apiKey),
      body: { name: 'bad list', controls: [control({ id: 'd', type: 'deny_list', config: { addresses: [adr('abc'), '0x123'] } })] },
    });
    expect(short.status).toBe(400);
    expect(short.body.error.details.errors.map((f: { field: string }) => f.field)).toEqual(['controls.0.config.addresses.1']);
    const body = { name: 'ok', controls: [] };
    expect((await call(e.svc.url, 'POST', '/api/v1/controls/templates', { body })).status).toBe(401);
    const weak = await call(e.svc.url, 'POST', '/api/v1/controls/templates', { headers: key(weakKey), body });
    expect(weak.status).toBe(403);
    expect(weak.body.error.code).toBe('INSUFFICIENT_SCOPE');
    expect((await e.sql`select count(*)::int as n from control_templates`)[0]?.n).toBe(before);
  });
});

describe('two-factor codes', () => {
  const twoFactor = (extra: Partial<Control> = {}) => control({ id: '2fa', type: 'two_factor', config: phone, ...extra });

  it('a code goes out only after the creating transaction committed; a rollback sends nothing', async () => {
    const prepared = await controls.gate.prepare(a.platformId, { template: template(twoFactor()) });
    const id = uuidv7();
    const sentBefore = sms.sent.length;
    const seenInside: number[] = [];
    await expect(
      e.sql.begin(async (tx) => {
        await tx`insert into transactions (id, platform_id, status, amount, currency, from_address, to_address, blockchain_network,
                   orchestration_type, template_id, template, metadata)
          values (${id}, ${a.platformId}, 'pending', '10', 'USDC', ${adr('AaA1')}, ${adr('BbB2')}, 'base-sepolia', 'platform', ${prepared.templateId},
                  ${JSON.stringify(prepared.snapshot)}::text::jsonb, '{}'::jsonb)`;
        const out = await controls.gate.afterCreate(tx, (await transactions.find(tx, id))!, prepared);
        expect(out.action).toBe('require_user_action');
        // Inside the transaction: the challenge and its sealed code exist, nothing was sent, and another
        // connection (the delivery worker) does not see the uncommitted row.
        expect(await tx`select status, sealed is not null as sealed from code_deliveries where transaction_id = ${id}`).toEqual([
          { status: 'pending', sealed: true },
        ]);
        seenInside.push(await delivery.runOnce(), sms.sent.length - sentBefore);
        throw new Error('the creation fails after the controls ran');
      }),
    ).rejects.toThrow('the creation fails');
    expect(seenInside).toEqual([0, 0]);
    await delivery.runOnce();
    expect(sms.sent.length).toBe(sentBefore);
    expect(await e.sql`select 1 from control_challenges where transaction_id = ${id}`).toHaveLength(0);
    expect(await e.sql`select 1 from code_deliveries where transaction_id = ${id}`).toHaveLength(0);

    // Committed: the worker sends it, records the message id and wipes the sealed code.
    const made = await create(a.platformId, { template: template(twoFactor()) });
    expect(sms.sent.filter((m) => m.transactionId === made.id)).toHaveLength(1);
    expect(await e.sql`select status, sealed, message_id from code_deliveries where transaction_id = ${made.id}`).toEqual([
      { status: 'sent', sealed: null, message_id: expect.stringMatching(/^m-/) },
    ]);
    // Sent once: another pass sends nothing more.
    await delivery.runOnce();
    expect(sms.sent.filter((m) => m.transactionId === made.id)).toHaveLength(1);
  });

  it('waits for the user, stores only a hash, and a right code moves the transaction back to pending', async () => {
    const { id, outcome } = await create(a.platformId, { template: template(twoFactor()) });
    expect(outcome.action).toBe('require_user_action');
    expect(await statusOf(id)).toBe('pending_user_action');
    const code = lastCode(sms, id);
    expect(code).toMatch(/^\d{6}$/);
    expect(sms.sent.at(-1)).toMatchObject({ to: '+14155550123', purpose: 'two_factor', text: expect.stringContaining(code) });
    const [challenge] = await e.sql`select * from control_challenges where transaction_id = ${id}`;
    expect(challenge).toMatchObject({ status: 'open', attempts: 0, max_attempts: 5, recipient: '+1******0123', provider: 'test-sms' });
    expect(JSON.stringify(challenge)).not.toContain(code);
    // Issue 13 item 7: a copy of the table alone gives the code away to nobody. The salt beside a
    // hash let all million codes be tried offline; the MAC's key is a server secret (DATA_ENCRYPTION_KEY).
    // Trying the million codes with what the row holds finds exactly the code whose MAC matches;
    // checking the real code stands for the search.
    expect(hmacSha256(challenge?.salt ?? '', code)).not.toBe(challenge?.code_hash);
    expect(challenge?.code_hash).toMatch(/^localdev\.[0-9a-f]{64}$/);
    expect(new Date(challenge?.expires_at).getTime() - new Date(challenge?.created_at).getTime()).toBe(600_000);

    const res = await call(e.svc.url, 'POST', '/api/v1/controls/verify-2fa', { headers: key(a.apiKey), body: { transactionId: id, code } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: challenge?.id,
      platformId: a.platformId,
      userId: adr('AaA1'),
      type: 'phone',
      status: 'approved',
      provider: 'test-sms',
      metadata: { transactionId: id, transactionStatus: 'pending', controlId: '2fa', controlType: 'two_factor', attempts: 0 },
      rejectionReason: null,
      verifiedAt: expect.any(String),
    });
    expect(await statusOf(id)).toBe('pending');
    expect((await e.sql`select status from control_challenges where id = ${challenge?.id}`)[0]?.status).toBe('approved');
    const transitions = await e.sql`select action from transaction_transitions where transaction_id = ${id} order by seq`;
    expect(transitions.map((t) => t.action)).toEqual(['require_user_action', 'complete_user_action']);

    // Used: the same code again finds no open challenge.
    const again = await call(e.svc.url, 'POST', '/api/v1/controls/verify-2fa', {
      headers: key(a.apiKey),
      body: { transactionId: id, code },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { transactionStatus: 'pending' } });
  });

  it('runs the controls after the code once it is accepted (v2, vendor SMS, then review)', async () => {
    const { id } = await create(
      a.platformId,
      {
        template: template(
          control({ id: 'sms', type: 'vendor_sms', executionOrder: 1 }),
          control({ id: 'review', type: 'risk_review', executionOrder: 2, config: { always: true } }),
        ),
      },
      { metadata: { phoneNumber: '+447700900123' } },
    );
    const code = lastCode(vendorSms, id);
    expect(vendorSms.sent.at(-1)?.to).toBe('+447700900123');
    // The two-factor route does not take a vendor SMS code.
    const other = await call(e.svc.url, 'POST', '/api/v2/controls/verify-2fa', {
      headers: bearer(v2Token),
      body: { transactionId: id, code },
    });
    expect(other.status).toBe(409);
    const res = await call(e.svc.url, 'POST', '/api/v2/controls/vendor-sms/verify', {
      headers: bearer(v2Token),
      body: { transactionId: id, code },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'approved', provider: 'test-vendor-sms', metadata: { transactionStatus: 'risk_review' } });
    expect(await statusOf(id)).toBe('risk_review');
    expect(await resultsOf(id)).toEqual([
      { control_id: 'sms', outcome: 'challenged' },
      { control_id: 'sms', outcome: 'approved' },
      { control_id: 'review', outcome: 'flagged' },
    ]);
  });

  it('counts wrong codes and fails the transaction after the last attempt', async () => {
    const { id } = await create(a.platformId, { template: template(twoFactor()) });
    const code = lastCode(sms, id);
    for (let remaining = 4; remaining >= 1; remaining--) {
      const res = await call(e.svc.url, 'POST', '/api/v1/controls/verify-2fa', {
        headers: key(a.apiKey),
        body: { transactionId: id, code: wrong(code) },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'INVALID_CODE',
        details: { attemptsRemaining: remaining, transactionStatus: 'pending_user_action' },
      });
    }
    expect(await failedEvents(id)).toHaveLength(0);
    const last = await call(e.svc.url, 'POST', '/api/v1/controls/verify-2fa', {
      headers: key(a.apiKey),
      body: { transactionId: id, code: wrong(code) },
    });
    expect(last.status).toBe(400);
    expect(last.body.error.details).toMatchObject({ attemptsRemaining: 0, transactionStatus: 'failed' });
    expect(await statusOf(id)).toBe('failed');
    expect((await e.sql`select status, attempts from control_challenges where transaction_id = ${id}`)[0]).toEqual({
      status: 'rejected',
      attempts: 5,
    });
    const [event] = await failedEvents(id);
    expect(event?.payload.data.reason).toContain('too many wrong codes');
    // The right code is too late now.
    const late = await call(e.svc.url, 'POST', '/api/v1/controls/verify-2fa', {
      headers: key(a.apiKey),
      body: { transactionId: id, code },
    });
    expect(late.status).toBe(409);
  });

  it('refuses an expired code and fails the transaction; an optional control lets it go on', async () => {
    const required = await create(a.platformId, { template: template(twoFactor()) });
    await e.sql`update control_challenges set expires_at = now() - interval '1 second' where transaction_id = ${required.id}`;
    const res = await call(e.svc.url, 'POST', '/api/v1/controls/verify-2fa', {
      headers: key(a.apiKey),
      body: { transactionId: required.id, code: lastCode(sms, required.id) },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_CODE', details: { reason: 'expired', transactionStatus: 'failed' } });
    expect(await statusOf(required.id)).toBe('failed');
    expect((await failedEvents(required.id))[0]?.payload.data.reason).toContain('expired');

    const optional = await create(a.platformId, { template: template(twoFactor({ isRequired: false })) });
    await e.sql`update control_challenges set expires_at = now() - interval '1 second' where transaction_id = ${optional.id}`;
    const res2 = await call(e.svc.url, 'POST', '/api/v1/controls/verify-2fa', {
      headers: key(a.apiKey),
      body: { transactionId: optional.id, code: lastCode(sms, optional.id) },
    });
    expect(res2.status).toBe(400);
    expect(res2.body.error.details.transactionStatus).toBe('pending');
    expect(await statusOf(optional.id)).toBe('pending');
  });

  it('refuses bad input, another platform, no credential and a missing scope without counting an attempt', async () => {
    const { id } = await create(a.platformId, { template: template(twoFactor()) });
    const code = lastCode(sms, id);
    const path = '/api/v1/controls/verify-2fa';
    const bad = await call(e.svc.url, 'POST', path, { headers: key(a.apiKey), body: { transactionId: id, code: '12ab' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    const missing = await call(e.svc.url, 'POST', path, { headers: key(a.apiKey), body: { transactionId: id } });
    expect(missing.status).toBe(400);
    const foreign = await call(e.svc.url, 'POST', path, { headers: key(b.apiKey), body: { transactionId: id, code } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    expect((await call(e.svc.url, 'POST', path, { headers: key(a.apiKey), body: { transactionId: uuidv7(), code } })).status).toBe(404);
    expect((await call(e.svc.url, 'POST', path, { body: { transactionId: id, code } })).status).toBe(401);
    const weak = await call(e.svc.url, 'POST', path, { headers: key(weakKey), body: { transactionId: id, code } });
    expect(weak.status).toBe(403);
    // v2 takes OAuth tokens only.
    expect(
      (await call(e.svc.url, 'POST', '/api/v2/controls/verify-2fa', { headers: key(a.apiKey), body: { transactionId: id, code } })).status,
    ).toBe(401);
    expect((await e.sql`select status, attempts from control_challenges where transaction_id = ${id}`)[0]).toEqual({
      status: 'open',
      attempts: 0,
    });
    expect(await statusOf(id)).toBe('pending_user_action');
  });
});

describe('risk review decisions', () => {
  const review = () => ({
    template: template(
      control({ id: 'review', type: 'risk_review', executionOrder: 1, config: { always: true } }),
      control({ id: 'limit', type: 'amount_limit', executionOrder: 2, config: { max: '1000' } }),
    ),
  });
  /** POST /api/v1/controls/reviews/{id}: a reviewer's decision, by the admin key unless told otherwise. */
  const decide = (id: string, body: { decision: string; reason?: string }, headers: Record<string, string> = key(e.admin)) =>
    call(e.svc.url, 'POST', `/api/v1/controls/reviews/${id}`, { headers, body });

  it('approve moves back to pending and runs the controls after the review', async () => {
    const { id } = await create(a.platformId, review());
    const res = await decide(id, { decision: 'approve', reason: 'known customer' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'pending', platformId: a.platformId });
    expect(await resultsOf(id)).toEqual([
      { control_id: 'review', outcome: 'flagged' },
      { control_id: 'review', outcome: 'approved' },
      { control_id: 'limit', outcome: 'passed' },
    ]);
    const [t] = await e.sql`select action, reason from transaction_transitions where transaction_id = ${id} order by seq desc limit 1`;
    expect(t).toEqual({ action: 'approve_review', reason: 'known customer' });
    expect(await failedEvents(id)).toHaveLength(0);

    const again = await decide(id, { decision: 'approve' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATE_TRANSITION');
  });

  it('an approval can still fail on a later control', async () => {
    const { id } = await create(a.platformId, review(), { amount: '5000' });
    const res = await decide(id, { decision: 'approve' });
    expect(res.body).toMatchObject({ status: 'failed', failureReason: expect.stringContaining('control limit') });
  });

  it('reject fails the transaction with transaction.failed and its reason in the outbox', async () => {
    const { id } = await create(a.platformId, review());
    const res = await decide(id, { decision: 'reject', reason: 'sanctions hit' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', failureReason: 'sanctions hit' });
    const [event] = await failedEvents(id);
    expect(event?.payload).toMatchObject({
      platformId: a.platformId,
      data: { reason: 'sanctions hit', transaction: { id, status: 'failed' } },
    });
  });

  it('refuses bad input, unknown transactions and callers without admin:platform', async () => {
    const { id } = await create(a.platformId, review());
    expect((await decide(id, { decision: 'maybe' })).status).toBe(400);
    expect((await decide(uuidv7(), { decision: 'approve' })).status).toBe(404);
    expect((await decide(id, { decision: 'approve' }, {})).status).toBe(401);
    const own = await decide(id, { decision: 'approve' }, key(a.apiKey));
    expect(own.status).toBe(403);
    expect(await statusOf(id)).toBe('risk_review');
  });
});

import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { insertTransaction, platformWithCredentials, RECEIVER, SENDER, startChainPaymentsEnv } from '../support/chain.js';
import { bearer, call, key, newPlatform } from '../support/harness.js';

// A template's pre_release controls run when a release is attested: a required one that fails
// refuses the release (409 RELEASE_BLOCKED_BY_CONTROL) and leaves the escrow as it was; every
// result is recorded either way. Waiting controls cannot be put in that phase.

let p: Awaited<ReturnType<typeof platformWithCredentials>>;

const e = fileFixture(() => startChainPaymentsEnv());
beforeAll(async () => {
  p = await platformWithCredentials(e, 'Release controls');
}, 60_000);

const control = (id: string, type: string, config: Record<string, unknown>, executionOrder = 0) => ({
  id,
  type,
  name: id,
  executionPhase: 'pre_release',
  executionOrder,
  config,
  isRequired: true,
  isActive: true,
});

/** An escrowed platform transaction (locked on anvil, recorded through escrow-hash) carrying `controls`. */
async function escrowedWith(controls: ReturnType<typeof control>[]) {
  const id = await insertTransaction(e.sql, { platformId: p.platformId, from: SENDER, to: RECEIVER, amount: '25.5' });
  await e.sql`update transactions set template = ${e.sql.json({ templateName: 'release checks', controls } as never)} where id = ${id}`;
  const receipt = await e.world.createEscrow(id, 25_500_000n);
  const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/escrow-hash`, {
    headers: bearer(p.token),
    body: { transactionHash: receipt.transactionHash },
  });
  expect(res.status).toBe(200);
  return id;
}

const results = (id: string) =>
  e.sql`select control_id, outcome from control_results where transaction_id = ${id} order by created_at, control_id`;

describe('pre_release controls', () => {
  it('a failing required control refuses the release attest and changes nothing but the record', async () => {
    const id = await escrowedWith([
      control('limit', 'amount_limit', { max: '10' }, 0),
      control('deny', 'deny_list', { addresses: [RECEIVER.toLowerCase()], applyTo: 'to' }, 1),
    ]);
    const res = await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/release/attest`, { headers: bearer(p.token) });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'RELEASE_BLOCKED_BY_CONTROL' });
    expect(res.body.error.details.reason).toMatch(/control limit \(amount_limit\) refused the release/);
    expect((await e.sql`select status from transactions where id = ${id}`)[0]?.status).toBe('escrowed');
    expect(await e.sql`select id from settlements where transaction_id = ${id}`).toHaveLength(0);
    // The first refusal stops the run; it is kept although the release was refused.
    expect(await results(id)).toEqual([{ control_id: 'limit', outcome: 'failed' }]);
  });

  it('passing controls let the release through (v1 authorize-release too), each result recorded', async () => {
    const id = await escrowedWith([
      control('limit', 'amount_limit', { max: '100' }, 0),
      control('allow', 'allow_list', { addresses: [RECEIVER], applyTo: 'to' }, 1),
    ]);
    const res = await call(e.svc.url, 'POST', `/api/v1/transactions/${id}/authorize-release`, { headers: key(p.apiKey) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.transaction.status).toBe('in_review');
    expect(await results(id)).toEqual([
      { control_id: 'allow', outcome: 'passed' },
      { control_id: 'limit', outcome: 'passed' },
    ]);
  });

  it('refuses a template that puts a waiting control (two-factor, review) before the release', async () => {
    const res = await call(e.svc.url, 'POST', '/api/v2/transactions', {
      headers: bearer(p.token),
      body: {
        fromAddress: SENDER,
        toAddress: RECEIVER,
        amount: 1,
        template: { templateName: 'bad', controls: [control('code', 'two_factor', { phoneNumber: '+14155550123' })] },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.errors).toContainEqual({
      field: 'template.controls.0.type',
      reason: expect.stringMatching(/cannot run in pre_release/),
    });
  });
});

describe('post_release controls', () => {
  it('are refused with 400 on executionPhase, in an embedded template and in the template library; nothing is written', async () => {
    const before = await e.sql`select (select count(*)::int from transactions) as t, (select count(*)::int from control_templates) as l`;
    const embedded = await call(e.svc.url, 'POST', '/api/v2/transactions', {
      headers: bearer(p.token),
      body: {
        fromAddress: SENDER,
        toAddress: RECEIVER,
        amount: 1,
        template: {
          templateName: 'after',
          controls: [{ ...control('after', 'amount_limit', { max: '10' }), executionPhase: 'post_release' }],
        },
      },
    });
    expect(embedded.status).toBe(400);
    expect(embedded.body.error.details.errors).toEqual([
      { field: 'template.controls.0.executionPhase', reason: expect.stringMatching(/post_release is not supported.*pre_release/) },
    ]);
    const author = await newPlatform(e, { name: 'Template author', scopes: ['write:templates'] });
    const library = await call(e.svc.url, 'POST', '/api/v1/controls/templates', {
      headers: key(author.apiKey),
      body: {
        name: 'after release',
        controls: [{ ...control('after', 'deny_list', { addresses: [RECEIVER] }), executionPhase: 'post_release' }],
      },
    });
    expect(library.status).toBe(400);
    expect(library.body.error.details.errors).toEqual([
      { field: 'controls.0.executionPhase', reason: expect.stringMatching(/post_release is not supported/) },
    ]);
    expect(await e.sql`select (select count(*)::int from transactions) as t, (select count(*)::int from control_templates) as l`).toEqual(
      before,
    );
  });
});

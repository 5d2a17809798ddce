import { EscrowStatus } from '@holdfast/escrow';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { AMOUNT, escrowedThroughApi, platformWithCredentials, publishChain, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { bearer, call, key } from '../support/harness.js';

// The operator routes of settlement (admin scope) on a private anvil with the settlement worker:
// a superseded refund and a conflicting CHAIN event are listed and resolved, a failed release is
// retried and then carried out on chain; every action is kept with who and why.

let p: Awaited<ReturnType<typeof platformWithCredentials>>;

const e = fileFixture(() => startChainPaymentsEnv());
beforeAll(async () => {
  p = await platformWithCredentials(e, 'Reviewed platform');
}, 60_000);

const admin = () => key(e.admin);
const items = async (query = '') => call(e.svc.url, 'GET', `/api/v1/admin/settlement/items${query}`, { headers: admin() });
const statusOf = async (id: string) => (await e.sql`select status from transactions where id = ${id}`)[0]?.status as string;

const escrowed = () => escrowedThroughApi({ sql: e.sql, url: e.svc.url, world: e.world }, p, AMOUNT);

describe('settlement items that need a person', () => {
  it('a superseded refund and its conflicting release event are listed, resolved with a reason, and leave the list', async () => {
    const id = await escrowed();
    const release = await e.world.escrowCall('release', id);
    expect((await call(e.svc.url, 'POST', `/api/v2/transactions/${id}/refund`, { headers: bearer(p.token), body: {} })).status).toBe(200);
    const settlement = await waitFor(async () => {
      const [row] = await e.sql`select id, status from settlements where transaction_id = ${id}`;
      return row?.status === 'superseded' ? row : undefined;
    }, 'the superseded refund');
    await publishChain(e.nats.bus, await e.world.indexed(release));
    const message = await waitFor(
      async () =>
        (await e.sql`select message_id, outcome from applied_chain_messages where transaction_id = ${id} and kind = 'escrow.released'`)[0],
      'the conflicting release event',
    );
    expect(message.outcome).toBe('conflict');

    const listed = await items();
    expect(listed.status).toBe(200);
    const mine = listed.body.data.filter((i: { transactionId: string }) => i.transactionId === id);
    expect(mine).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'settlement',
          id: settlement.id,
          status: 'superseded',
          settlementKind: 'refund',
          resolvedAt: null,
          actions: [],
        }),
        expect.objectContaining({ kind: 'chain_message', id: message.message_id, status: 'conflict', eventKind: 'escrow.released' }),
      ]),
    );
    expect((await items('?status=conflict')).body.data.every((i: { status: string }) => i.status === 'conflict')).toBe(true);

    // A superseded instruction cannot be retried (the chain settled it otherwise): 409, nothing recorded.
    const retry = await call(e.svc.url, 'POST', `/api/v1/admin/settlement/settlements/${settlement.id}/retry`, {
      headers: admin(),
      body: { reason: 'try again' },
    });
    expect(retry.status).toBe(409);
    expect(await e.sql`select 1 from settlement_operator_actions where item_id = ${settlement.id}`).toHaveLength(0);

    const resolved = await call(e.svc.url, 'POST', `/api/v1/admin/settlement/settlements/${settlement.id}/resolve`, {
      headers: admin(),
      body: { reason: 'receiver was paid on chain; refund handled off-chain with the merchant (ticket 42)' },
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(resolved.body).toMatchObject({
      status: 'superseded',
      resolvedAt: expect.any(String),
      actions: [
        {
          action: 'resolve',
          actor: expect.stringMatching(/^api_key:/),
          reason: expect.stringContaining('ticket 42'),
          fromStatus: 'superseded',
        },
      ],
    });
    const chainResolved = await call(
      e.svc.url,
      'POST',
      `/api/v1/admin/settlement/chain-messages/${encodeURIComponent(message.message_id)}/resolve`,
      { headers: admin(), body: { reason: 'same case as the refund (ticket 42)' } },
    );
    expect(chainResolved.status).toBe(200);
    expect(chainResolved.body.actions).toHaveLength(1);
    const after = (await items()).body.data.filter((i: { transactionId: string }) => i.transactionId === id);
    expect(after).toEqual([]);
    const all = (await items('?includeResolved=true')).body.data.filter((i: { transactionId: string }) => i.transactionId === id);
    expect(all).toHaveLength(2);
    // Resolving twice is refused.
    const twice = await call(e.svc.url, 'POST', `/api/v1/admin/settlement/settlements/${settlement.id}/resolve`, {
      headers: admin(),
      body: { reason: 'again' },
    });
    expect(twice.status).toBe(409);
  });

  it('a failed release is retried by an operator and the worker then releases the escrow on chain', async () => {
    const id = await escrowed();
    // The instruction used up its attempts (say the RPC was down for an hour): failed, before anything was sent.
    await e.sql`insert into settlements (id, transaction_id, kind, status, attempts, last_error)
      values (gen_random_uuid(), ${id}, 'release', 'failed', 20, 'RPC unavailable')`;
    await e.sql`update transactions set status = 'in_review' where id = ${id}`;
    const [settlement] = await e.sql`select id from settlements where transaction_id = ${id}`;
    const listed = (await items('?status=failed')).body.data.find((i: { id: string }) => i.id === settlement?.id);
    expect(listed).toMatchObject({ kind: 'settlement', status: 'failed', attempts: 20, detail: 'RPC unavailable' });

    const retried = await call(e.svc.url, 'POST', `/api/v1/admin/settlement/settlements/${settlement?.id}/retry`, {
      headers: admin(),
      body: { reason: 'RPC provider back up' },
    });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body).toMatchObject({ actions: [{ action: 'retry', fromStatus: 'failed', reason: 'RPC provider back up' }] });
    await waitFor(async () => (await e.world.escrowStatus(id)) === EscrowStatus.Released, 'the release on chain');
    await waitFor(async () => (await e.sql`select status from settlements where id = ${settlement?.id}`)[0]?.status === 'done', 'done');
    expect(await statusOf(id)).toBe('in_review');
  });

  it('needs the admin scope; unknown items are 404; a reason is required', async () => {
    expect((await call(e.svc.url, 'GET', '/api/v1/admin/settlement/items', { headers: key(p.apiKey) })).status).toBe(403);
    expect((await call(e.svc.url, 'GET', '/api/v1/admin/settlement/items')).status).toBe(401);
    const missing = await call(e.svc.url, 'POST', '/api/v1/admin/settlement/settlements/00000000-0000-4000-8000-000000000000/resolve', {
      headers: admin(),
      body: { reason: 'nothing' },
    });
    expect(missing.status).toBe(404);
    const noReason = await call(e.svc.url, 'POST', '/api/v1/admin/settlement/settlements/00000000-0000-4000-8000-000000000000/resolve', {
      headers: admin(),
      body: {},
    });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.details.errors[0].field).toBe('reason');
  });
});

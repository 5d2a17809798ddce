import { randomUUID } from 'node:crypto';
import { uuidv7 } from '@holdfast/contracts';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createDisputesRepository } from '../../src/modules/disputes/repository.js';
import { bearer, call, createClient, key, newPlatform, startPaymentsEnv, tokenFor } from '../support/harness.js';

// Disputes on v1 and v2: open, list, read, escalate, evidence, resolve; what each does to the
// disputed transaction and which events it writes; the refusals; two concurrent resolutions.

const ALL = ['read:disputes', 'write:disputes', 'submit:evidence'];
const workspaceId = randomUUID();

let platformA: string;
let platformB: string;
/** Credentials with every dispute scope, by version: v1 API key, v1 token, v2 token. */
const full: Record<string, Record<string, string>> = {};
let keyB: Record<string, string>;
let readOnlyKey: Record<string, string>;
let readOnlyToken: Record<string, string>;

const platform = (scopes: string[]) => newPlatform(e, { scopes });

/** An escrowed transaction of the platform, inserted directly (creation is another module). */
async function transaction(platformId: string, status = 'escrowed') {
  const id = uuidv7();
  await e.sql`insert into transactions (id, platform_id, workspace_id, status, amount, currency, from_address, to_address, blockchain_network, orchestration_type, tx_hash)
    values (${id}, ${platformId}, ${workspaceId}, ${status}, '250.75', 'USDC', '0xaaa', '0xbbb', 'base-sepolia', 'platform', '0xabc')`;
  return id;
}

/** Event types written for a transaction and its dispute, oldest first. */
async function eventsOf(transactionId: string) {
  const rows = await e.sql<{ type: string }[]>`
    select type from outbox
    where payload->'data'->'transaction'->>'id' = ${transactionId} or payload->'data'->'dispute'->>'transactionId' = ${transactionId}
    order by seq`;
  return rows.map((r) => r.type);
}

async function open(headers: Record<string, string>, transactionId: string, v = 'v1') {
  return call(e.svc.url, 'POST', `/api/${v}/disputes`, {
    headers,
    body: { transactionId, initiatedBy: 'sender', reason: 'Goods never arrived', metadata: { order: 'A-1' } },
  });
}

async function opened(platformId = platformA, headers = full.v1key) {
  const transactionId = await transaction(platformId);
  const res = await open(headers as Record<string, string>, transactionId);
  expect(res.status).toBe(201);
  return { transactionId, disputeId: res.body.id as string };
}

const e = fileFixture(() => startPaymentsEnv());
beforeAll(async () => {
  const a = await platform(ALL);
  const b = await platform(ALL);
  const weak = await platform(['read:disputes']);
  platformA = a.platformId;
  platformB = b.platformId;
  // Missing-scope cases: a key of a platform holding only read:disputes, and a read-only token of A.
  readOnlyKey = key(weak.apiKey);
  full.v1key = key(a.apiKey);
  keyB = key(b.apiKey);
  const client = await createClient(e.svc.url, e.admin, { name: 'disputes', scopes: ALL, platformId: platformA });
  full.v2 = bearer(await tokenFor(e.svc.url, client));
  full.v1token = bearer(await tokenFor(e.svc.url, client, undefined, 'v1'));
  const weakClient = await createClient(e.svc.url, e.admin, { name: 'weak', scopes: ['read:disputes'], platformId: platformA });
  readOnlyToken = bearer(await tokenFor(e.svc.url, weakClient));
});

describe('POST /disputes (open)', () => {
  for (const [label, v, cred] of [
    ['v1 with an API key', 'v1', 'v1key'],
    ['v1 with a token', 'v1', 'v1token'],
    ['v2 with a token', 'v2', 'v2'],
  ] as const) {
    it(`opens a dispute at tier 1 and moves the transaction to disputed (${label})`, async () => {
      const transactionId = await transaction(platformA);
      const res = await open(full[cred] as Record<string, string>, transactionId, v);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        transactionId,
        initiatedBy: 'sender',
        currentTier: 'tier_1_smart_contract',
        status: 'open',
        reason: 'Goods never arrived',
        tier1CompletedAt: null,
        tier2CompletedAt: null,
        resolvedAt: null,
        outcome: null,
        resolutionReason: null,
        refundPercentage: null,
        metadata: { order: 'A-1' },
        evidence: [],
      });
      const [tx] = await e.sql`select status from transactions where id = ${transactionId}`;
      expect(tx?.status).toBe('disputed');
      const transitions =
        await e.sql`select from_status, to_status, action, actor from transaction_transitions where transaction_id = ${transactionId}`;
      expect(transitions).toEqual([
        { from_status: 'escrowed', to_status: 'disputed', action: 'open_dispute', actor: `platform:${platformA}` },
      ]);
      const [event] = await e.sql<{ type: string; platform_id: string; payload: Record<string, unknown> }[]>`
        select type, platform_id, payload from outbox where payload->'data'->'dispute'->>'id' = ${res.body.id}`;
      expect(event).toMatchObject({
        type: 'dispute.created',
        platform_id: platformA,
        payload: {
          platformId: platformA,
          workspaceId,
          data: {
            dispute: { id: res.body.id, transactionId, status: 'open', currentTier: 'tier_1_smart_contract', initiatedBy: 'sender' },
          },
        },
      });
    });
  }

  it('has the relay publish dispute.created once committed', async () => {
    const { disputeId } = await opened();
    await vi.waitFor(
      async () => {
        const [row] =
          await e.sql`select published_at from outbox where type = 'dispute.created' and payload->'data'->'dispute'->>'id' = ${disputeId}`;
        expect(row?.published_at).not.toBeNull();
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it('opens a dispute on a transaction in review', async () => {
    const transactionId = await transaction(platformA, 'in_review');
    expect((await open(full.v2 as Record<string, string>, transactionId, 'v2')).status).toBe(201);
  });

  it('refuses a transaction that is not disputable with 400 NOT_DISPUTABLE, changing nothing', async () => {
    for (const status of ['pending', 'completed', 'refunded']) {
      const transactionId = await transaction(platformA, status);
      const res = await open(full.v1key as Record<string, string>, transactionId);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'NOT_DISPUTABLE', statusCode: 400 });
      expect((await e.sql`select status from transactions where id = ${transactionId}`)[0]?.status).toBe(status);
      expect(await e.sql`select 1 from disputes where transaction_id = ${transactionId}`).toHaveLength(0);
      expect(await eventsOf(transactionId)).toEqual([]);
    }
  });

  it('answers 404 for an unknown transaction and for another platform’s', async () => {
    const unknown = await open(full.v2 as Record<string, string>, uuidv7(), 'v2');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    const theirs = await transaction(platformB);
    const res = await open(full.v1key as Record<string, string>, theirs);
    expect(res.status).toBe(404);
    expect((await e.sql`select status from transactions where id = ${theirs}`)[0]?.status).toBe('escrowed');
  });

  it('answers 409 for a second dispute on the same transaction, also when both race', async () => {
    const { transactionId } = await opened();
    const again = await open(full.v2 as Record<string, string>, transactionId, 'v2');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');

    const raced = await transaction(platformA);
    const results = await Promise.all([1, 2, 3].map(() => open(full.v1key as Record<string, string>, raced)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await e.sql`select 1 from disputes where transaction_id = ${raced}`).toHaveLength(1);
    expect(await eventsOf(raced)).toEqual(['dispute.created']);
  });

  it('refuses bad bodies with VALIDATION_ERROR, changing nothing', async () => {
    const transactionId = await transaction(platformA);
    for (const body of [
      {},
      { transactionId, initiatedBy: 'sender' },
      { transactionId, initiatedBy: 'bystander', reason: 'x' },
      { transactionId: 'not-a-uuid', initiatedBy: 'sender', reason: 'x' },
      { transactionId, initiatedBy: 'sender', reason: '' },
      { transactionId, initiatedBy: 'sender', reason: 'x', extra: true },
    ]) {
      const res = await call(e.svc.url, 'POST', '/api/v2/disputes', { headers: full.v2, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await e.sql`select status from transactions where id = ${transactionId}`)[0]?.status).toBe('escrowed');
  });

  it('needs a credential with write:disputes; v2 refuses API keys', async () => {
    const transactionId = await transaction(platformA);
    expect((await open({}, transactionId)).status).toBe(401);
    expect((await open(readOnlyKey, transactionId)).status).toBe(403);
    expect((await open(readOnlyToken, transactionId, 'v2')).body.error.code).toBe('INSUFFICIENT_SCOPE');
    expect((await open(full.v1key as Record<string, string>, transactionId, 'v2')).status).toBe(401);
    expect((await e.sql`select status from transactions where id = ${transactionId}`)[0]?.status).toBe('escrowed');
  });
});

describe('GET /disputes and /disputes/{id}', () => {
  it('lists the platform’s disputes newest first, filtered by status, and reads one with its evidence', async () => {
    const first = await opened();
    const second = await opened();
    await call(e.svc.url, 'POST', `/api/v2/disputes/${second.disputeId}/escalate`, { headers: full.v2 });
    const theirs = await opened(platformB, keyB);

    for (const headers of [full.v1key, full.v1token]) {
      const all = await call(e.svc.url, 'GET', '/api/v1/disputes', { headers });
      expect(all.status).toBe(200);
      const ids = all.body.map((d: { id: string }) => d.id);
      expect(ids.indexOf(second.disputeId)).toBeLessThan(ids.indexOf(first.disputeId));
      expect(ids).not.toContain(theirs.disputeId);
    }
    const reviewing = await call(e.svc.url, 'GET', '/api/v2/disputes?status=under_review', { headers: full.v2 });
    expect(reviewing.status).toBe(200);
    expect(reviewing.body.map((d: { id: string }) => d.id)).toContain(second.disputeId);
    expect(reviewing.body.every((d: { status: string }) => d.status === 'under_review')).toBe(true);
    const byTx = await call(e.svc.url, 'GET', `/api/v2/disputes?transactionId=${first.transactionId}`, { headers: readOnlyToken });
    expect(byTx.body.map((d: { id: string }) => d.id)).toEqual([first.disputeId]);

    await call(e.svc.url, 'POST', `/api/v1/disputes/${first.disputeId}/evidence`, {
      headers: full.v1key,
      body: { submittedBy: 'sender', type: 'text', title: 'Chat log' },
    });
    const one = await call(e.svc.url, 'GET', `/api/v2/disputes/${first.disputeId}`, { headers: full.v2 });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: first.disputeId, status: 'open', evidence: [{ title: 'Chat log', submittedBy: 'sender' }] });
  });

  it('refuses a bad status filter and a bad id with 400', async () => {
    expect((await call(e.svc.url, 'GET', '/api/v2/disputes?status=closed', { headers: full.v2 })).status).toBe(400);
    expect((await call(e.svc.url, 'GET', '/api/v1/disputes/nope', { headers: full.v1key })).status).toBe(400);
  });

  it('answers 404 for an unknown dispute and for another platform’s', async () => {
    const theirs = await opened(platformB, keyB);
    for (const id of [uuidv7(), theirs.disputeId]) {
      const res = await call(e.svc.url, 'GET', `/api/v2/disputes/${id}`, { headers: full.v2 });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('needs read:disputes', async () => {
    const { disputeId } = await opened();
    expect((await call(e.svc.url, 'GET', '/api/v1/disputes', {})).status).toBe(401);
    const writer = await platform(['write:disputes']);
    expect((await call(e.svc.url, 'GET', `/api/v1/disputes/${disputeId}`, { headers: key(writer.apiKey) })).status).toBe(403);
    expect((await call(e.svc.url, 'GET', '/api/v2/disputes', { headers: full.v1key })).status).toBe(401);
  });
});

describe('POST /disputes/{id}/escalate', () => {
  it('climbs tier 1 -> 2 -> 3, stamping each tier left, then refuses with HIGHEST_TIER_REACHED', async () => {
    const { transactionId, disputeId } = await opened();
    const toTwo = await call(e.svc.url, 'POST', `/api/v1/disputes/${disputeId}/escalate`, { headers: full.v1key });
    expect(toTwo.status).toBe(200);
    expect(toTwo.body).toMatchObject({ currentTier: 'tier_2_platform_mediation', status: 'under_review', tier2CompletedAt: null });
    expect(toTwo.body.tier1CompletedAt).toEqual(expect.any(String));
    const toThree = await call(e.svc.url, 'POST', `/api/v2/disputes/${disputeId}/escalate`, { headers: full.v2 });
    expect(toThree.status).toBe(200);
    expect(toThree.body).toMatchObject({ currentTier: 'tier_3_arbitration', status: 'in_arbitration' });
    expect(toThree.body.tier2CompletedAt).toEqual(expect.any(String));

    const top = await call(e.svc.url, 'POST', `/api/v2/disputes/${disputeId}/escalate`, { headers: full.v2 });
    expect(top.status).toBe(400);
    expect(top.body.error.code).toBe('HIGHEST_TIER_REACHED');
    const [row] = await e.sql`select current_tier, status from disputes where id = ${disputeId}`;
    expect(row).toEqual({ current_tier: 'tier_3_arbitration', status: 'in_arbitration' });

    const escalated = await e.sql<{ payload: { data: { previousTier: string; dispute: { currentTier: string } } } }[]>`
      select payload from outbox where type = 'dispute.escalated' and payload->'data'->'dispute'->>'id' = ${disputeId} order by seq`;
    expect(escalated.map((e) => [e.payload.data.previousTier, e.payload.data.dispute.currentTier])).toEqual([
      ['tier_1_smart_contract', 'tier_2_platform_mediation'],
      ['tier_2_platform_mediation', 'tier_3_arbitration'],
    ]);
    expect(await eventsOf(transactionId)).toEqual(['dispute.created', 'dispute.escalated', 'dispute.escalated']);
    expect((await e.sql`select status from transactions where id = ${transactionId}`)[0]?.status).toBe('disputed');
  });

  it('refuses a resolved dispute with DISPUTE_RESOLVED', async () => {
    const { disputeId } = await opened();
    await call(e.svc.url, 'POST', `/api/v2/disputes/${disputeId}/resolve`, {
      headers: full.v2,
      body: { outcome: 'favor_receiver', resolutionReason: 'Delivered' },
    });
    const res = await call(e.svc.url, 'POST', `/api/v1/disputes/${disputeId}/escalate`, { headers: full.v1key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('DISPUTE_RESOLVED');
  });

  it('answers 404 for another platform’s dispute and needs write:disputes', async () => {
    const theirs = await opened(platformB, keyB);
    expect((await call(e.svc.url, 'POST', `/api/v2/disputes/${theirs.disputeId}/escalate`, { headers: full.v2 })).status).toBe(404);
    expect((await e.sql`select current_tier from disputes where id = ${theirs.disputeId}`)[0]?.current_tier).toBe('tier_1_smart_contract');
    const mine = await opened();
    expect((await call(e.svc.url, 'POST', `/api/v1/disputes/${mine.disputeId}/escalate`, {})).status).toBe(401);
    expect((await call(e.svc.url, 'POST', `/api/v2/disputes/${mine.disputeId}/escalate`, { headers: readOnlyToken })).status).toBe(403);
    expect((await e.sql`select current_tier from disputes where id = ${mine.disputeId}`)[0]?.current_tier).toBe('tier_1_smart_contract');
  });
});

describe('POST /disputes/{id}/evidence', () => {
  it('stores evidence with every field and announces it (v1 key and v2 token)', async () => {
    const { disputeId } = await opened();
    const body = {
      submittedBy: 'receiver',
      type: 'document',
      title: 'Delivery receipt',
      description: 'Signed by the buyer',
      content: 'base64...',
      fileUrl: 'https://files.example.com/receipt.pdf',
      fileHash: 'sha256:abcd',
      isEncrypted: true,
      metadata: { pages: 2 },
    };
    const v1 = await call(e.svc.url, 'POST', `/api/v1/disputes/${disputeId}/evidence`, { headers: full.v1key, body });
    expect(v1.status).toBe(201);
    expect(v1.body).toMatchObject({ ...body, disputeId });
    const v2 = await call(e.svc.url, 'POST', `/api/v2/disputes/${disputeId}/evidence`, {
      headers: full.v2,
      body: { submittedBy: 'sender', type: 'screenshot', title: 'Tracking page' },
    });
    expect(v2.status).toBe(201);
    expect(v2.body).toMatchObject({ description: null, content: null, fileUrl: null, fileHash: null, isEncrypted: false, metadata: {} });
    expect(await e.sql`select title from dispute_evidence where dispute_id = ${disputeId} order by created_at, id`).toEqual([
      { title: 'Delivery receipt' },
      { title: 'Tracking page' },
    ]);
    const events = await e.sql<{ payload: { workspaceId: string; data: { evidence: Record<string, string> } } }[]>`
      select payload from outbox where type = 'evidence.submitted' and payload->'data'->'dispute'->>'id' = ${disputeId} order by seq`;
    expect(events.map((e) => e.payload.data.evidence)).toEqual([
      { id: v1.body.id, type: 'document', title: 'Delivery receipt', submittedBy: 'receiver' },
      { id: v2.body.id, type: 'screenshot', title: 'Tracking page', submittedBy: 'sender' },
    ]);
    expect(events[0]?.payload.workspaceId).toBe(workspaceId);
  });

  it('refuses bad bodies with VALIDATION_ERROR and stores nothing', async () => {
    const { disputeId } = await opened();
    for (const body of [
      { type: 'text', title: 'x' },
      { submittedBy: 'sender', type: 'video', title: 'x' },
      { submittedBy: 'sender', type: 'text', title: '' },
      { submittedBy: 'sender', type: 'text', title: 'x', fileUrl: 'not a url' },
    ]) {
      const res = await call(e.svc.url, 'POST', `/api/v2/disputes/${disputeId}/evidence`, { headers: full.v2, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect(await e.sql`select 1 from dispute_evidence where dispute_id = ${disputeId}`).toHaveLength(0);
  });

  it('refuses evidence once the dispute is resolved with DISPUTE_RESOLVED', async () => {
    const { disputeId } = await opened();
    await call(e.svc.url, 'POST', `/api/v1/disputes/${disputeId}/resolve`, {
      headers: full.v1key,
      body: { outcome: 'favor_sender', resolutionReason: 'Never shipped' },
    });
    const res = await call(e.svc.url, 'POST', `/api/v2/disputes/${disputeId}/evidence`, {
      headers: full.v2,
      body: { submittedBy: 'sender', type: 'text', title: 'Late' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('DISPUTE_RESOLVED');
    expect(await e.sql`select 1 from dispute_evidence where dispute_id = ${disputeId}`).toHaveLength(0);
  });

  it('needs submit:evidence and answers 404 for another platform’s dispute', async () => {
    const theirs = await opened(platformB, keyB);
    const body = { submittedBy: 'sender', type: 'text', title: 'x' };
    expect((await call(e.svc.url, 'POST', `/api/v2/disputes/${theirs.disputeId}/evidence`, { headers: full.v2, body })).status).toBe(404);
    const mine = await opened();
    const writer = await platform(['write:disputes', 'read:disputes']);
    expect(
      (await call(e.svc.url, 'POST', `/api/v1/disputes/${mine.disputeId}/evidence`, { headers: key(writer.apiKey), body })).status,
    ).toBe(403);
    expect((await call(e.svc.url, 'POST', `/api/v1/disputes/${mine.disputeId}/evidence`, { body })).status).toBe(401);
    expect(await e.sql`select 1 from dispute_evidence where dispute_id in (${theirs.disputeId}, ${mine.disputeId})`).toHaveLength(0);
  });
});

describe('POST /disputes/{id}/resolve', () => {
  it('favor_receiver completes the transaction', async () => {
    const { transactionId, disputeId } = await opened();
    const res = await call(e.svc.url, 'POST', `/api/v2/disputes/${disputeId}/resolve`, {
      headers: full.v2,
      body: { outcome: 'favor_receiver', resolutionReason: 'Proof of delivery' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'resolved',
      outcome: 'favor_receiver',
      refundPercentage: 0,
      resolutionReason: 'Proof of delivery',
    });
    expect(res.body.resolvedAt).toEqual(expect.any(String));
    expect((await e.sql`select status from transactions where id = ${transactionId}`)[0]?.status).toBe('completed');
    const transitions =
      await e.sql`select from_status, to_status, action from transaction_transitions where transaction_id = ${transactionId} order by seq`;
    expect(transitions).toEqual([
      { from_status: 'escrowed', to_status: 'disputed', action: 'open_dispute' },
      { from_status: 'disputed', to_status: 'completed', action: 'resolve_for_receiver' },
    ]);
    expect(await eventsOf(transactionId)).toEqual(['dispute.created', 'dispute.resolved', 'transaction.completed']);
    expect(await e.sql`select kind, refund_bps from settlements where transaction_id = ${transactionId}`).toEqual([
      { kind: 'release', refund_bps: null },
    ]);
    expect(await createDisputesRepository().resolutionFor(e.sql, transactionId)).toMatchObject({
      disputeId,
      outcome: 'favor_receiver',
      refundPercentage: 0,
      refundBps: 0,
    });
  });

  it('favor_sender refunds the transaction in full, with the reason on transaction.refunded', async () => {
    const { transactionId, disputeId } = await opened();
    await call(e.svc.url, 'POST', `/api/v1/disputes/${disputeId}/escalate`, { headers: full.v1token });
    const res = await call(e.svc.url, 'POST', `/api/v1/disputes/${disputeId}/resolve`, {
      headers: full.v1key,
      body: { outcome: 'favor_sender', resolutionReason: 'Never shipped', refundPercentage: 100 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'resolved',
      outcome: 'favor_sender',
      refundPercentage: 100,
      currentTier: 'tier_2_platform_mediation',
    });
    expect((await e.sql`select status from transactions where id = ${transactionId}`)[0]?.status).toBe('refunded');
    expect(await eventsOf(transactionId)).toEqual(['dispute.created', 'dispute.escalated', 'dispute.resolved', 'transaction.refunded']);
    const [refunded] = await e.sql<{ payload: { workspaceId: string; data: { reason: string; transaction: { status: string } } } }[]>`
      select payload from outbox where type = 'transaction.refunded' and payload->'data'->'transaction'->>'id' = ${transactionId}`;
    expect(refunded?.payload.data).toMatchObject({
      transaction: { id: transactionId, status: 'refunded' },
      reason: 'dispute resolved: favor_sender',
    });
    expect(refunded?.payload.workspaceId).toBe(workspaceId);
    const [resolved] =
      await e.sql`select payload from outbox where type = 'dispute.resolved' and payload->'data'->'dispute'->>'id' = ${disputeId}`;
    expect(resolved?.payload.data.dispute).toMatchObject({ status: 'resolved', outcome: 'favor_sender', refundPercentage: 100 });
  });

  it('partial_refund refunds with the share kept exactly for the settlement', async () => {
    const { transactionId, disputeId } = await opened();
    const res = await call(e.svc.url, 'POST', `/api/v2/disputes/${disputeId}/resolve`, {
      headers: full.v2,
      body: { outcome: 'partial_refund', resolutionReason: 'Half the order arrived', refundPercentage: 37.5 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'partial_refund', refundPercentage: 37.5 });
    expect((await e.sql`select refund_percentage from disputes where id = ${disputeId}`)[0]?.refund_percentage).toBe('37.50');
    expect((await e.sql`select status from transactions where id = ${transactionId}`)[0]?.status).toBe('refunded');
    const [transition] =
      await e.sql`select action, reason from transaction_transitions where transaction_id = ${transactionId} and to_status = 'refunded'`;
    expect(transition).toEqual({ action: 'resolve_for_sender', reason: 'dispute resolved: partial_refund, 37.5% to the sender' });
    expect(await createDisputesRepository().resolutionFor(e.sql, transactionId)).toMatchObject({
      outcome: 'partial_refund',
      refundPercentage: 37.5,
      refundBps: 3750,
    });
    // The escrow's split is instructed in the same transaction: the attester's worker sends refund(id, 3750).
    // The worker may already have claimed it (`sending`) by the time this reads it.
    expect(await e.sql`select kind, refund_bps, status from settlements where transaction_id = ${transactionId}`).toEqual([
      { kind: 'refund', refund_bps: 3750, status: expect.stringMatching(/^(pending|sending)$/) },
    ]);
  });

  it('refuses an invalid outcome, reason or percentage with 400 and changes nothing', async () => {
    const { transactionId, disputeId } = await opened();
    for (const body of [
      { outcome: 'favor_sender' },
      { outcome: 'split', resolutionReason: 'x' },
      { outcome: 'partial_refund', resolutionReason: 'x' },
      { outcome: 'partial_refund', resolutionReason: 'x', refundPercentage: 100 },
      { outcome: 'partial_refund', resolutionReason: 'x', refundPercentage: 12.345 },
      { outcome: 'partial_refund', resolutionReason: 'x', refundPercentage: 101 },
      { outcome: 'favor_sender', resolutionReason: 'x', refundPercentage: 50 },
      { outcome: 'favor_receiver', resolutionReason: 'x', refundPercentage: 20 },
    ]) {
      const res = await call(e.svc.url, 'POST', `/api/v2/disputes/${disputeId}/resolve`, { headers: full.v2, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await e.sql`select status from disputes where id = ${disputeId}`)[0]?.status).toBe('open');
    expect((await e.sql`select status from transactions where id = ${transactionId}`)[0]?.status).toBe('disputed');
    expect(await eventsOf(transactionId)).toEqual(['dispute.created']);
  });

  it('refuses a second resolution with DISPUTE_RESOLVED', async () => {
    const { transactionId, disputeId } = await opened();
    const body = { outcome: 'favor_receiver', resolutionReason: 'Delivered' };
    expect((await call(e.svc.url, 'POST', `/api/v1/disputes/${disputeId}/resolve`, { headers: full.v1key, body })).status).toBe(200);
    const again = await call(e.svc.url, 'POST', `/api/v1/disputes/${disputeId}/resolve`, {
      headers: full.v1key,
      body: { outcome: 'favor_sender', resolutionReason: 'Changed my mind' },
    });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('DISPUTE_RESOLVED');
    expect((await e.sql`select outcome from disputes where id = ${disputeId}`)[0]?.outcome).toBe('favor_receiver');
    expect(await eventsOf(transactionId)).toEqual(['dispute.created', 'dispute.resolved', 'transaction.completed']);
  });

  it('lets exactly one of concurrent resolutions win', async () => {
    const { transactionId, disputeId } = await opened();
    const results = await Promise.all(
      (['favor_sender', 'favor_receiver', 'partial_refund', 'favor_sender'] as const).map((outcome) =>
        call(e.svc.url, 'POST', `/api/v2/disputes/${disputeId}/resolve`, {
          headers: full.v2,
          body: { outcome, resolutionReason: 'race', ...(outcome === 'partial_refund' ? { refundPercentage: 50 } : {}) },
        }),
      ),
    );
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 400).every((r) => r.body.error.code === 'DISPUTE_RESOLVED')).toBe(true);
    const outcome = winners[0]?.body.outcome;
    const [tx] = await e.sql`select status, version from transactions where id = ${transactionId}`;
    expect(tx).toEqual({ status: outcome === 'favor_receiver' ? 'completed' : 'refunded', version: 3 });
    const events = await eventsOf(transactionId);
    expect(events.filter((t) => t === 'dispute.resolved')).toHaveLength(1);
    expect(events).toHaveLength(3);
  });

  it('answers 404 for another platform’s dispute and needs write:disputes', async () => {
    const theirs = await opened(platformB, keyB);
    const body = { outcome: 'favor_sender', resolutionReason: 'x' };
    expect((await call(e.svc.url, 'POST', `/api/v2/disputes/${theirs.disputeId}/resolve`, { headers: full.v2, body })).status).toBe(404);
    expect((await call(e.svc.url, 'POST', `/api/v2/disputes/${theirs.disputeId}/resolve`, { headers: readOnlyToken, body })).status).toBe(
      403,
    );
    expect((await call(e.svc.url, 'POST', `/api/v1/disputes/${theirs.disputeId}/resolve`, { headers: readOnlyKey, body })).status).toBe(
      403,
    );
    expect((await call(e.svc.url, 'POST', `/api/v1/disputes/${theirs.disputeId}/resolve`, { body })).status).toBe(401);
    expect((await e.sql`select status from disputes where id = ${theirs.disputeId}`)[0]?.status).toBe('open');
    expect((await e.sql`select status from transactions where id = ${theirs.transactionId}`)[0]?.status).toBe('disputed');
  });
});

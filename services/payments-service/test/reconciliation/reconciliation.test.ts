import { capturingLogger, fileFixture } from '@holdfast/test-fixtures';
import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AMOUNT,
  escrowedThroughApi,
  eventsOf,
  platformWithCredentials,
  RECEIVER,
  SENDER,
  startChainPaymentsEnv,
} from '../support/chain.js';
import { bearer, call, key } from '../support/harness.js';

// The reconciler against a private anvil: the books are broken on purpose (the sender settles an
// escrow on chain and payments never hears of it: no CHAIN event is published in this file). The
// difference is reported (operator route, metric) with since when, then repaired once it has been
// open RECONCILIATION_REPAIR_AFTER (1 s here), or left to an operator where no repair is safe.

let p: Awaited<ReturnType<typeof platformWithCredentials>>;
/** What payments logged: a mismatch must reach an operator's logs, not only the route and the metric. */
const { logger, lines: logLines } = capturingLogger('payments-service', 'warn');
const reconcilerLines = (transactionId: string) =>
  logLines.filter((l) => l.component === 'reconciler' && l.transactionId === transactionId);

// The periodic pass runs once at start only: this file runs its passes through the operator route.
const e = fileFixture(() => startChainPaymentsEnv({ RECONCILIATION_INTERVAL: '1h', RECONCILIATION_REPAIR_AFTER: '1s' }, logger));
beforeAll(async () => {
  p = await platformWithCredentials(e, 'Reconciled platform');
}, 60_000);

const admin = () => key(e.admin);
const run = () => call(e.svc.url, 'POST', '/api/v1/admin/reconciliation/run', { headers: admin() });
const mismatches = async (transactionId: string, open = true) =>
  (
    await call(e.svc.url, 'GET', `/api/v1/admin/reconciliation/mismatches?transactionId=${transactionId}&open=${open}`, {
      headers: admin(),
    })
  ).body.data;
const statusOf = async (id: string) => (await e.sql`select status from transactions where id = ${id}`)[0]?.status as string;
const metrics = async () => (await (await request(`${e.svc.url}/metrics`)).body.text()) as string;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const escrowed = (holdDeadline = 0n) => escrowedThroughApi({ sql: e.sql, url: e.svc.url, world: e.world }, p, AMOUNT, { holdDeadline });

describe('reconciliation with the escrow contract', () => {
  it('books that agree with the chain report nothing', async () => {
    const id = await escrowed();
    const pass = await run();
    expect(pass.status).toBe(200);
    expect(pass.body.checked).toBeGreaterThanOrEqual(1);
    expect(await mismatches(id, false)).toEqual([]);
  });

  it('an escrow released on chain behind the API (a missed event) is reported with since when, then repaired', async () => {
    const id = await escrowed();
    await e.world.escrowCall('release', id); // the sender pays the receiver; no CHAIN event reaches payments

    const first = await run();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ repaired: 0 });
    expect(first.body.mismatches).toBeGreaterThanOrEqual(1);
    const [reported] = await mismatches(id);
    expect(reported).toMatchObject({
      kind: 'released_on_chain',
      transactionId: id,
      batchId: null,
      network: 'base-sepolia',
      databaseStatus: 'escrowed',
      chainStatus: 'released',
      firstSeenAt: expect.any(String),
      resolvedAt: null,
      resolution: null,
    });
    expect(await statusOf(id)).toBe('escrowed');
    // One warning line per new difference, with what an operator needs to find it.
    expect(reconcilerLines(id)).toEqual([
      expect.objectContaining({
        level: 'warn',
        service: 'payments-service',
        msg: 'reconciliation mismatch: the chain settled an escrow the books still hold',
        kind: 'released_on_chain',
        transactionId: id,
        databaseStatus: 'escrowed',
        chainStatus: 'released',
        repair: 'release',
        since: reported.firstSeenAt,
      }),
    ]);
    expect(await metrics()).toMatch(/payments_reconciliation_mismatches\{kind="released_on_chain"[^}]*\} [1-9]/);
    expect(await metrics()).toMatch(/payments_reconciliation_mismatches_found_total\{kind="released_on_chain"[^}]*\} [1-9]/);

    // Seen again before RECONCILIATION_REPAIR_AFTER: the same row, still since the first sighting.
    await run();
    expect((await mismatches(id))[0]).toMatchObject({ id: reported.id, firstSeenAt: reported.firstSeenAt });
    expect(reconcilerLines(id)).toHaveLength(1); // not logged again while it stays open

    await pause(1100);
    const second = await run();
    expect(second.body.repaired).toBeGreaterThanOrEqual(1);
    expect(await statusOf(id)).toBe('completed');
    expect((await eventsOf(e.sql, id)).map((ev) => ev.type)).toEqual(['transaction.escrowed', 'transaction.completed']);
    const [transition] =
      await e.sql`select action, actor from transaction_transitions where transaction_id = ${id} order by seq desc limit 1`;
    expect(transition).toEqual({ action: 'release', actor: 'reconciler' });
    expect(reconcilerLines(id).at(-1)).toMatchObject({
      level: 'warn',
      msg: 'reconciliation repaired: the transaction now says what the chain says',
      kind: 'released_on_chain',
      transactionId: id,
      databaseStatus: 'escrowed',
      chainStatus: 'released',
      repair: 'release',
    });
    expect(await mismatches(id)).toEqual([]);
    expect(await mismatches(id, false)).toEqual([
      expect.objectContaining({ id: reported.id, resolution: 'repaired', repairedBy: 'release', resolvedAt: expect.any(String) }),
    ]);
    expect(await metrics()).toMatch(/payments_reconciliation_repairs_total\{kind="released_on_chain"[^}]*\} [1-9]/);

    // Completed within the look-back, and the chain agrees: nothing new.
    await run();
    expect(await mismatches(id)).toEqual([]);
  });

  it("a sender's rescind the books never heard of is repaired to rescinded", async () => {
    const id = await escrowed((await e.world.now()) + 3600n);
    await e.world.escrowCall('rescind', id);
    await run();
    expect((await mismatches(id))[0]).toMatchObject({ kind: 'rescinded_on_chain', databaseStatus: 'escrowed', chainStatus: 'rescinded' });
    await pause(1100);
    await run();
    expect(await statusOf(id)).toBe('rescinded');
    expect((await eventsOf(e.sql, id)).map((ev) => ev.type)).toEqual(['transaction.escrowed', 'transaction.rescinded']);
  });

  it('a release during a dispute is reported for an operator and never repaired', async () => {
    const id = await escrowed();
    await e.sql`update transactions set status = 'disputed' where id = ${id}`; // a dispute was opened
    await e.world.escrowCall('release', id);
    await run();
    await pause(1100);
    const pass = await run();
    expect(pass.body.open).toBeGreaterThanOrEqual(1);
    expect(await mismatches(id)).toEqual([
      expect.objectContaining({ kind: 'settled_during_dispute', databaseStatus: 'disputed', chainStatus: 'released', resolvedAt: null }),
    ]);
    expect(await statusOf(id)).toBe('disputed');
    expect(reconcilerLines(id)).toEqual([
      expect.objectContaining({
        level: 'error',
        msg: 'reconciliation mismatch: needs an operator',
        kind: 'settled_during_dispute',
        transactionId: id,
        databaseStatus: 'disputed',
        chainStatus: 'released',
      }),
    ]);
  });

  it('a refunded transaction whose escrow is still held and owes no instruction is reported; it clears once the chain agrees', async () => {
    const id = await escrowed();
    await e.sql`update transactions set status = 'refunded' where id = ${id}`; // the refund instruction was lost
    await run();
    expect((await mismatches(id))[0]).toMatchObject({ kind: 'terminal_but_held', databaseStatus: 'refunded', chainStatus: 'held' });
    // An operator re-issues the instruction (as the runbook says): the worker refunds, the next pass clears the row.
    await e.sql`insert into settlements (id, transaction_id, kind, refund_bps) values (gen_random_uuid(), ${id}, 'refund', 10000)`;
    for (let i = 0; i < 100 && (await e.world.escrowStatus(id)) !== 4; i++) await pause(100);
    await run();
    expect(await mismatches(id)).toEqual([]);
    expect((await mismatches(id, false))[0]).toMatchObject({ kind: 'terminal_but_held', resolution: 'cleared' });
  });

  it('a batch leg is reconciled like a single transaction, and its batch follows the repair', async () => {
    const made = await call(e.svc.url, 'POST', '/api/v2/transactions/batches', {
      headers: bearer(p.token),
      body: { fromAddress: SENDER, legs: [{ toAddress: RECEIVER, amount: '25.5' }], idempotencyKey: `recon-${Date.now()}` },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const batchId: string = made.body.id;
    const legId: string = made.body.legs[0].id;
    // The hold deadline the batch told its signer (each leg keeps it).
    const receipt = await e.world.createEscrow(legId, AMOUNT, { holdDeadline: BigInt(made.body.nextAction.escrow.holdDeadline) });
    const recorded = await call(e.svc.url, 'POST', `/api/v2/transactions/${legId}/escrow-hash`, {
      headers: bearer(p.token),
      body: { transactionHash: receipt.transactionHash },
    });
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(200);
    await e.world.escrowCall('release', legId);

    await run();
    expect((await mismatches(legId))[0]).toMatchObject({ kind: 'released_on_chain', transactionId: legId, batchId });
    await pause(1100);
    await run();
    expect(await statusOf(legId)).toBe('completed');
    expect((await e.sql`select status from batches where id = ${batchId}`)[0]?.status).toBe('completed');
  });

  it('a lock announced at a level whose block a reorg replaced (no correction came) is reported with that level and block', async () => {
    const id = await escrowed();
    const [before] = await e.sql`select finality, block_number, block_hash from transactions where id = ${id}`;
    expect(before?.finality).toBe('confirmed');
    // The lock's block (the head) is replaced by an empty one; no CHAIN correction reaches payments.
    await e.world.anvil.rpc('anvil_reorg', [1, []]);
    const pass = await run();
    expect(pass.status).toBe(200);
    expect(await mismatches(id)).toEqual([
      expect.objectContaining({
        kind: 'announced_block_gone',
        databaseStatus: 'escrowed',
        chainStatus: 'none',
        announcedFinality: 'confirmed',
        announcedBlockNumber: Number(before?.block_number),
        announcedBlockHash: before?.block_hash,
      }),
    ]);
    // Reported, never repaired here: the status stays until the correction (or an operator) moves it.
    expect(await statusOf(id)).toBe('escrowed');
    expect(reconcilerLines(id).some((l) => l.kind === 'announced_block_gone' && l.finality === 'confirmed')).toBe(true);
  });

  it('needs the admin scope', async () => {
    expect((await call(e.svc.url, 'POST', '/api/v1/admin/reconciliation/run', { headers: key(p.apiKey) })).status).toBe(403);
    expect((await call(e.svc.url, 'GET', '/api/v1/admin/reconciliation/mismatches')).status).toBe(401);
  });
});

import { randomUUID } from 'node:crypto';
import { holdfastEscrowAbi } from '@holdfast/contracts/escrow';
import { uuidToOnchainId } from '@holdfast/escrow';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { AMOUNT, eventsOf, platformWithCredentials, RECEIVER, SENDER, startChainPaymentsEnv } from '../support/chain.js';
import { bearer, call, key } from '../support/harness.js';

// Issue 28 item 2: a raw transfer proves one transaction, chosen by the chain, not by whoever
// submits its hash first. On a private anvil with the real escrow and MockUSDC: a `pay` through the
// escrow names its transaction (TransferForwarded), so another platform cannot take it.

let a: Awaited<ReturnType<typeof platformWithCredentials>>;
let b: Awaited<ReturnType<typeof platformWithCredentials>>;

const e = fileFixture(() => startChainPaymentsEnv());
beforeAll(async () => {
  a = await platformWithCredentials(e, 'Platform A');
  b = await platformWithCredentials(e, 'Platform B');
}, 60_000);

type Platform = typeof a;
const amountText = (units: bigint) => (Number(units) / 1e6).toString();

/** A raw transaction created through the API, SENDER -> RECEIVER for `amount` base units: its create answer. */
async function createRaw(platform: Platform, amount = AMOUNT) {
  const res = await call(e.svc.url, 'POST', '/api/v2/transactions', {
    // A key per creation: the same terms again within a minute are deliberate repeats here.
    headers: { ...bearer(platform.token), 'idempotency-key': randomUUID() },
    body: { fromAddress: SENDER, toAddress: RECEIVER, amount: amountText(amount), orchestrationType: 'raw' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; status: string; transfer: Record<string, unknown> };
}
const submit = (platform: Platform, id: string, txHash: string) =>
  call(e.svc.url, 'POST', `/api/v2/transactions/${id}/hash`, { headers: bearer(platform.token), body: { txHash } });
const rowOf = async (id: string) =>
  (await e.sql<{ status: string; tx_hash: string | null }[]>`select status, tx_hash from transactions where id = ${id}`)[0];
const claimsOf = (id: string) => e.sql`select platform_id, tagged from claimed_transfers where transaction_id = ${id}`;

describe('a raw transaction tells the wallet how to pay it with a tagged transfer', () => {
  it('its create answer holds the escrow contract, token, on-chain id, receiver and amount for pay', async () => {
    const created = await createRaw(a);
    expect(created.transfer).toEqual({
      contractAddress: e.world.escrow,
      tokenAddress: e.world.usdc,
      onchainId: uuidToOnchainId(created.id),
      receiver: RECEIVER,
      amountBaseUnits: AMOUNT.toString(),
    });
    expect(created).not.toHaveProperty('escrow');
  });
});

describe('submit hash of a tagged transfer (pay)', () => {
  it("refuses another platform's transaction that submits the hash of A's pay first (400, nothing changes); A's then completes", async () => {
    const victim = await createRaw(a);
    // B, watching the chain, creates a transaction with the same terms as A's.
    const attacker = await createRaw(b);
    const paid = await e.world.pay(victim.id, AMOUNT);

    const stolen = await submit(b, attacker.id, paid.transactionHash);
    expect(stolen.status, JSON.stringify(stolen.body)).toBe(400);
    expect(stolen.body.error).toMatchObject({
      code: 'CHAIN_RECEIPT_MISMATCH',
      details: {
        reason: 'transfer_of_another_transaction',
        onchainId: uuidToOnchainId(victim.id),
        expectedOnchainId: uuidToOnchainId(attacker.id),
      },
    });
    expect(await rowOf(attacker.id)).toEqual({ status: attacker.status, tx_hash: null });
    expect((await eventsOf(e.sql, attacker.id)).map((x) => x.type)).toEqual(['transaction.created']);
    expect(await claimsOf(attacker.id)).toEqual([]);

    const own = await submit(a, victim.id, paid.transactionHash);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body).toMatchObject({
      success: true,
      message: 'Forwarded transfer confirmed on chain',
      transaction: { id: victim.id, status: 'completed', txHash: paid.transactionHash },
    });
    expect((await eventsOf(e.sql, victim.id)).map((x) => x.type)).toEqual(['transaction.created', 'transaction.completed']);
    expect(await claimsOf(victim.id)).toEqual([{ platform_id: a.platformId, tagged: true }]);
    // A tagged transfer never makes a disputed claim.
    expect(await e.sql`select 1 from settlement_disputed_claims where tx_hash = ${paid.transactionHash}`).toEqual([]);
  });

  it('refuses a pay for this transaction whose terms differ from it (400 terms_mismatch), and changes nothing', async () => {
    const created = await createRaw(a);
    const paid = await e.world.pay(created.id, AMOUNT - 1n);
    const res = await submit(a, created.id, paid.transactionHash);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'CHAIN_RECEIPT_MISMATCH', details: { reason: 'terms_mismatch', fields: ['amount'] } });
    expect((await rowOf(created.id))?.status).toBe(created.status);
    expect(await claimsOf(created.id)).toEqual([]);
  });

  it('fails the transaction when its pay reverted on chain', async () => {
    const created = await createRaw(a);
    // No allowance: sent without estimation so that it is mined and reverts.
    const hash = await e.world.sender.writeContract({
      address: e.world.escrow,
      abi: holdfastEscrowAbi,
      functionName: 'pay',
      args: [uuidToOnchainId(created.id), RECEIVER, e.world.usdc, 10n ** 30n],
      gas: 200_000n,
    });
    expect((await e.world.publicClient.waitForTransactionReceipt({ hash })).status).toBe('reverted');
    const res = await submit(a, created.id, hash);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ success: false, transaction: { status: 'failed' } });
    // Another platform's transaction cannot be failed with it.
    const other = await createRaw(b);
    const refused = await submit(b, other.id, hash);
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.reason).toBe('not_this_transfer');
  });
});

describe('a plain (untagged) transfer claimed by two platforms', () => {
  const admin = () => key(e.admin);
  const disputesOf = (txHash: string) =>
    e.sql<{ id: string; status: string }[]>`select id, status from settlement_disputed_claims where tx_hash = ${txHash}`;
  const listed = async (query = '') => {
    const res = await call(e.svc.url, 'GET', `/api/v1/admin/settlement/disputed-claims${query}`, { headers: admin() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as { id: string; txHash: string; status: string; claims: { transactionId: string }[] }[];
  };
  const resolve = (id: string, body: unknown, headers: Record<string, string> = admin()) =>
    call(e.svc.url, 'POST', `/api/v1/admin/settlement/disputed-claims/${id}/resolve`, { headers, body });

  /** A and B each create a raw transaction with the same terms; the sender makes one plain transfer; both submit its hash. */
  async function disputed() {
    const first = await createRaw(a);
    const second = await createRaw(b);
    await e.world.mint(SENDER, AMOUNT);
    const sent = await e.world.transfer(RECEIVER, AMOUNT);
    const byA = await submit(a, first.id, sent.transactionHash);
    expect(byA.status, JSON.stringify(byA.body)).toBe(200);
    expect(byA.body.message).toBe('Transfer confirmed on chain');
    const byB = await submit(b, second.id, sent.transactionHash);
    return { first, second, sent, byB };
  }

  it('completes both and opens one disputed claim listing both (the second platform is no longer left pending)', async () => {
    const { first, second, sent, byB } = await disputed();
    expect(byB.status, JSON.stringify(byB.body)).toBe(200);
    expect(byB.body).toMatchObject({ success: true, transaction: { id: second.id, status: 'completed', txHash: sent.transactionHash } });
    expect(byB.body.message).toContain('an operator will decide');
    expect((await rowOf(first.id))?.status).toBe('completed');
    expect((await eventsOf(e.sql, second.id)).map((x) => x.type)).toEqual(['transaction.created', 'transaction.completed']);
    expect(await claimsOf(second.id)).toEqual([{ platform_id: b.platformId, tagged: false }]);

    const rows = await disputesOf(sent.transactionHash);
    expect(rows).toEqual([{ id: expect.any(String), status: 'open' }]);
    const open = (await listed()).find((d) => d.txHash === sent.transactionHash);
    expect(open).toMatchObject({
      id: rows[0]?.id,
      status: 'open',
      network: 'base-sepolia',
      chainId: 84532,
      rightfulTransactionId: null,
      claims: [
        { transactionId: first.id, platformId: a.platformId, transactionStatus: 'completed' },
        { transactionId: second.id, platformId: b.platformId, transactionStatus: 'completed' },
      ],
    });
    // Within one platform a transfer still confirms one transaction only.
    const third = await createRaw(a);
    const again = await submit(a, third.id, sent.transactionHash);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    expect((await rowOf(third.id))?.status).toBe(third.status);
  });

  it('two platforms submitting the same plain transfer at the same moment still open the disputed claim (claims of a log are serialized)', async () => {
    const first = await createRaw(a);
    const second = await createRaw(b);
    await e.world.mint(SENDER, AMOUNT);
    const sent = await e.world.transfer(RECEIVER, AMOUNT);
    const answers = await Promise.all([submit(a, first.id, sent.transactionHash), submit(b, second.id, sent.transactionHash)]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(await disputesOf(sent.transactionHash)).toEqual([{ id: expect.any(String), status: 'open' }]);
  });

  it('an operator resolves it by naming the rightful transaction: the other one fails with the reason, transaction.failed is written', async () => {
    const { first, second, sent } = await disputed();
    const [dispute] = await disputesOf(sent.transactionHash);
    const res = await resolve(dispute!.id, { rightfulTransactionId: first.id, reason: 'the sender paid A, per its invoice' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: dispute!.id,
      status: 'resolved',
      rightfulTransactionId: first.id,
      resolution: 'the sender paid A, per its invoice',
      resolvedBy: expect.stringMatching(/^api_key:/),
      claims: [
        { transactionId: first.id, transactionStatus: 'completed' },
        { transactionId: second.id, transactionStatus: 'failed' },
      ],
    });
    const reason = `Disputed transfer resolved for transaction ${first.id}: the sender paid A, per its invoice`;
    const [loser] = await e.sql`select status, failure_reason from transactions where id = ${second.id}`;
    expect(loser).toEqual({ status: 'failed', failure_reason: reason });
    expect((await rowOf(first.id))?.status).toBe('completed');
    const events = await eventsOf(e.sql, second.id);
    expect(events.map((x) => x.type)).toEqual(['transaction.created', 'transaction.completed', 'transaction.failed']);
    expect(events[2]?.payload).toMatchObject({
      platformId: b.platformId,
      data: { transaction: { id: second.id, status: 'failed' }, reason },
    });
    expect((await eventsOf(e.sql, first.id)).map((x) => x.type)).toEqual(['transaction.created', 'transaction.completed']);
    const [move] =
      await e.sql`select action, actor from transaction_transitions where transaction_id = ${second.id} and action = 'void_transfer'`;
    expect(move?.actor).toMatch(/^operator:api_key:/);
    expect(
      await e.sql`select action, reason from settlement_operator_actions where item_kind = 'disputed_claim' and item_id = ${dispute!.id}`,
    ).toEqual([{ action: 'resolve', reason: 'the sender paid A, per its invoice' }]);
    expect((await listed()).some((d) => d.id === dispute!.id)).toBe(false);
    expect((await listed('?status=resolved')).some((d) => d.id === dispute!.id)).toBe(true);

    // Once resolved: 409, nothing changes.
    const twice = await resolve(dispute!.id, { rightfulTransactionId: second.id, reason: 'changed my mind' });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('INVALID_STATE_TRANSITION');
    expect((await rowOf(first.id))?.status).toBe('completed');
    // B resubmitting the hash is told it was applied and failed.
    const resubmitted = await submit(b, second.id, sent.transactionHash);
    expect(resubmitted.status).toBe(200);
    expect(resubmitted.body).toMatchObject({ success: false, transaction: { status: 'failed' } });
  });

  it('refuses a rightful transaction that did not claim the transfer (400), an unknown claim (404), a missing reason (400), and any credential but the operator’s (401, 403); nothing changes', async () => {
    const { first, second, sent } = await disputed();
    const [dispute] = await disputesOf(sent.transactionHash);
    const outsider = await createRaw(a);
    const notClaimant = await resolve(dispute!.id, { rightfulTransactionId: outsider.id, reason: 'wrong one' });
    expect(notClaimant.status).toBe(400);
    expect(notClaimant.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { errors: [{ field: 'rightfulTransactionId', reason: 'did not claim this transfer' }] },
    });
    const noReason = await resolve(dispute!.id, { rightfulTransactionId: first.id });
    expect(noReason.status).toBe(400);
    const unknown = await resolve('00000000-0000-4000-8000-000000000000', { rightfulTransactionId: first.id, reason: 'nothing' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    // A platform's own credential (no admin:platform) cannot resolve, not even in its own favour.
    const byPlatform = await resolve(dispute!.id, { rightfulTransactionId: second.id, reason: 'it was us' }, key(b.apiKey));
    expect(byPlatform.status).toBe(403);
    const anonymous = await resolve(dispute!.id, { rightfulTransactionId: second.id, reason: 'it was us' }, {});
    expect(anonymous.status).toBe(401);
    expect((await call(e.svc.url, 'GET', '/api/v1/admin/settlement/disputed-claims', { headers: key(b.apiKey) })).status).toBe(403);

    expect(await disputesOf(sent.transactionHash)).toEqual([{ id: dispute!.id, status: 'open' }]);
    expect((await rowOf(first.id))?.status).toBe('completed');
    expect((await rowOf(second.id))?.status).toBe('completed');
    expect(await e.sql`select 1 from settlement_operator_actions where item_id = ${dispute!.id}`).toEqual([]);
  });
});

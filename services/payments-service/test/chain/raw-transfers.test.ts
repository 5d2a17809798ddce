import { randomUUID } from 'node:crypto';
import { holdfastEscrowAbi } from '@holdfast/contracts/escrow';
import { uuidToOnchainId } from '@holdfast/escrow';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, call } from '../helpers.js';
import { AMOUNT, eventsOf, platformWithCredentials, RECEIVER, SENDER, startChainPaymentsEnv } from './fixtures.js';

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
const claimsOf = (id: string) => e.sql`select transaction_id from claimed_transfers where transaction_id = ${id}`;

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
    expect(await claimsOf(victim.id)).toHaveLength(1);
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

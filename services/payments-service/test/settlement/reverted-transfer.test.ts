import { randomUUID } from 'node:crypto';
import { fileFixture } from '@holdfast/test-fixtures';
import { erc20Abi } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { AMOUNT, eventsOf, platformWithCredentials, RECEIVER, SENDER, startChainPaymentsEnv } from '../support/chain.js';
import { bearer, call } from '../support/harness.js';

// Issue 28 item 9: a reverted transfer hash is claimed once. A raw transaction fails when its
// sender's transfer reverted; the hash was not claimed, so one reverted token transfer of a sender
// failed every raw transaction of that sender it was submitted for. On a private anvil with MockUSDC.

let a: Awaited<ReturnType<typeof platformWithCredentials>>;
const e = fileFixture(() => startChainPaymentsEnv());
beforeAll(async () => {
  a = await platformWithCredentials(e, 'Platform A');
}, 60_000);

async function createRaw() {
  const res = await call(e.svc.url, 'POST', '/api/v2/transactions', {
    headers: { ...bearer(a.token), 'idempotency-key': randomUUID() },
    body: { fromAddress: SENDER, toAddress: RECEIVER, amount: (Number(AMOUNT) / 1e6).toString(), orchestrationType: 'raw' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; status: string };
}
const submit = (id: string, txHash: string) =>
  call(e.svc.url, 'POST', `/api/v2/transactions/${id}/hash`, { headers: bearer(a.token), body: { txHash } });
const rowOf = async (id: string) =>
  (await e.sql<{ status: string; tx_hash: string | null }[]>`select status, tx_hash from transactions where id = ${id}`)[0];
const claimsOf = (id: string) => e.sql`select platform_id, tagged from claimed_transfers where transaction_id = ${id}`;

/** A call of the sender to the token, mined and reverted (too little gas: sent without estimation). */
async function revertedTransfer(functionName: 'transfer' | 'approve', args: readonly [`0x${string}`, bigint]) {
  const hash = await e.world.sender.writeContract({ address: e.world.usdc, abi: erc20Abi, functionName, args, gas: 23_000n });
  expect((await e.world.publicClient.waitForTransactionReceipt({ hash })).status).toBe('reverted');
  return hash;
}

describe('a reverted plain transfer (security)', () => {
  it('a reverted call of the sender that is not this transfer (an approve, another amount or receiver) is refused: it cannot fail the transaction', async () => {
    const victim = await createRaw();
    for (const hash of [
      await revertedTransfer('approve', [RECEIVER, AMOUNT]),
      await revertedTransfer('transfer', [RECEIVER, AMOUNT + 1n]),
      await revertedTransfer('transfer', [SENDER, AMOUNT]),
    ]) {
      const res = await submit(victim.id, hash);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'CHAIN_RECEIPT_MISMATCH', details: { reason: 'not_this_transfer' } });
    }
    expect(await rowOf(victim.id)).toEqual({ status: victim.status, tx_hash: null });
    expect((await eventsOf(e.sql, victim.id)).map((x) => x.type)).toEqual(['transaction.created']);
    expect(await claimsOf(victim.id)).toEqual([]);
  });

  it('fails one transaction only: the same reverted hash submitted for a second transaction of its sender is refused (409), that one unchanged', async () => {
    const first = await createRaw();
    const second = await createRaw();
    // The transactions' own transfer (receiver and amount), with too little gas, so that it is mined and reverts.
    const hash = await revertedTransfer('transfer', [RECEIVER, AMOUNT]);

    const failed = await submit(first.id, hash);
    expect(failed.status, JSON.stringify(failed.body)).toBe(200);
    expect(failed.body).toMatchObject({ success: false, transaction: { id: first.id, status: 'failed', txHash: hash } });
    expect(await claimsOf(first.id)).toEqual([{ platform_id: a.platformId, tagged: false }]);

    // Before: 200 and `failed` again, for every raw transaction of this sender it was submitted for.
    const again = await submit(second.id, hash);
    expect(again.status, JSON.stringify(again.body)).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', details: { txHash: hash, transactionId: first.id } });
    expect(await rowOf(second.id)).toEqual({ status: second.status, tx_hash: null });
    expect((await eventsOf(e.sql, second.id)).map((x) => x.type)).toEqual(['transaction.created']);
    expect(await claimsOf(second.id)).toEqual([]);

    // The transaction it failed may submit it again: the same answer, nothing new.
    const replay = await submit(first.id, hash);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ success: false, transaction: { id: first.id, status: 'failed' } });
    expect((await eventsOf(e.sql, first.id)).map((x) => x.type)).toEqual(['transaction.created', 'transaction.failed']);
  });
});

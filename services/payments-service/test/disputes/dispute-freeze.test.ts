import { EscrowStatus, holdfastEscrowAbi, uuidToOnchainId } from '@holdfast/escrow';
import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { AMOUNT, escrowedThroughApi, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { bearer, call, newPlatform } from '../support/harness.js';

// Issue 28 item 4: nothing called the escrow's `freeze`, so while a dispute was decided the expiry
// escape (`claimExpired`, anyone, once the escrow expires) could pay the receiver. Opening a dispute
// on an escrowed transaction now writes a `freeze` instruction the attester key carries out.

const e = fileFixture(() => startChainPaymentsEnv());
let p: { platformId: string; token: string };

beforeAll(async () => {
  p = await newPlatform(e, {
    scopes: ['read:transactions', 'write:transactions', 'write:disputes', 'read:disputes'],
    clientScopes: ['read:transactions', 'write:transactions', 'move:transactions', 'write:disputes', 'read:disputes'],
  });
}, 60_000);

const onchain = async (id: string) =>
  (await e.world.publicClient.readContract({
    address: e.world.escrow,
    abi: holdfastEscrowAbi,
    functionName: 'getEscrow',
    args: [uuidToOnchainId(id)],
  })) as { status: number; expiresAt: bigint };

describe('a dispute freezes its escrow', () => {
  it('opening one on an escrowed transaction has the attester freeze the escrow on chain', async () => {
    const id = await escrowedThroughApi({ sql: e.sql, url: e.svc.url, world: e.world }, p, AMOUNT);
    const before = await onchain(id);
    const opened = await call(e.svc.url, 'POST', '/api/v2/disputes', {
      headers: bearer(p.token),
      body: { transactionId: id, initiatedBy: 'sender', reason: 'Goods never arrived' },
    });
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const done = await waitFor(
      async () =>
        (
          await e.sql<{ status: string; tx_hash: string | null }[]>`
          select status, tx_hash from settlements where transaction_id = ${id} and kind = 'freeze' and status = 'done'`
        )[0],
      'the freeze carried out',
      30_000,
    );
    expect(done.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await e.world.publicClient.getTransactionReceipt({ hash: done.tx_hash as `0x${string}` });
    expect(receipt.status).toBe('success');
    // expiresAt is now at least the freeze period (90 days by default) from the freeze's block.
    const block = await e.world.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    const after = await onchain(id);
    expect(after.status).toBe(EscrowStatus.Held);
    expect(after.expiresAt).toBeGreaterThanOrEqual(block.timestamp + 90n * 86_400n);
    expect(after.expiresAt).toBeGreaterThanOrEqual(before.expiresAt);
  });
});

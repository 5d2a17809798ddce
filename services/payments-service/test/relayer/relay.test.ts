import { holdfastEscrowAbi } from '@holdfast/contracts/escrow';
import { EscrowStatus } from '@holdfast/escrow';
import { fileFixture } from '@holdfast/test-fixtures';
import { parseEventLogs } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { platformWithCredentials, RECEIVER, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { bearer, call, type Loose } from '../support/harness.js';
import {
  authorizationBody,
  createFor,
  newPayer,
  permitBody,
  RELAYER,
  relayerNonce,
  testClientOf,
  usdcBalance,
} from '../support/relayer.js';

// The relayer through the real API, PostgreSQL and anvil: a payer with MockUSDC and no ETH signs,
// the relayer (anvil #6, local's default) pays the gas. Every refusal is counted on the relayer's
// nonce: nothing was sent, no gas spent.

let p: Awaited<ReturnType<typeof platformWithCredentials>>;
const e = fileFixture(() => startChainPaymentsEnv({ RELAYER_POLL_INTERVAL: '100ms', RELAYER_STUCK_AFTER: '1s' }));
beforeAll(async () => {
  p = await platformWithCredentials(e, 'Relayer');
}, 60_000);

const path = (id: string) => `/api/v2/transactions/${id}/escrow-authorization`;
const post = (id: string, body: unknown) => call(e.svc.url, 'POST', path(id), { headers: bearer(p.token), body });
const getTx = async (id: string) => (await call(e.svc.url, 'GET', `/api/v2/transactions/${id}`, { headers: bearer(p.token) })).body;
const escrowedTx = (id: string) =>
  waitFor(async () => ((await getTx(id)).status === 'escrowed' ? getTx(id) : null), `${id} escrowed`, 30_000);
const relaysOf = (id: string) => e.sql<Loose[]>`select * from relayed_locks where transaction_id = ${id} order by created_at`;

/** A payer holding `funds` base units of MockUSDC (12.5 USDC by default) and no ETH, and its transaction. */
async function payerWithTransaction(funds = 12_500_000n) {
  const payer = newPayer();
  if (funds > 0n) await e.world.mint(payer.address, funds);
  const created = await createFor(e.svc.url, p.token, payer.address, RECEIVER);
  return { payer, created, id: created.id as string };
}

/** A refusal: 422 AUTHORIZATION_REFUSED with `reason`, no relay row, the relayer's nonce unchanged. */
async function expectRefused(id: string, body: unknown, reason: string) {
  const nonce = await relayerNonce(e.world);
  const res = await post(id, body);
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.error).toMatchObject({ code: 'AUTHORIZATION_REFUSED', details: { reason } });
  expect(await relayerNonce(e.world)).toBe(nonce);
  expect(await relaysOf(id)).toHaveLength(0);
  return res;
}

describe('POST /api/v2/transactions/{id}/escrow-authorization (EIP-3009)', () => {
  it('funds the escrow of a payer without ETH: relayed, mined, the transaction escrowed, the fee recorded for the platform', async () => {
    const { payer, created, id } = await payerWithTransaction();
    expect(await e.world.publicClient.getBalance({ address: payer.address })).toBe(0n);
    const nonce = await relayerNonce(e.world);
    const res = await post(id, await authorizationBody(e.world, payer, created));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.relay).toMatchObject({ status: 'submitted', relayer: RELAYER, network: 'base-sepolia', kind: 'authorization' });
    expect(res.body.transaction.id).toBe(id);

    const escrowed = await escrowedTx(id);
    expect(escrowed).toMatchObject({ escrowAddress: e.world.escrow, txHash: res.body.relay.txHash });
    const receipt = await e.world.publicClient.getTransactionReceipt({ hash: res.body.relay.txHash });
    expect(receipt.from.toLowerCase()).toBe(RELAYER.toLowerCase());
    const logs = parseEventLogs({ abi: holdfastEscrowAbi, logs: receipt.logs, eventName: 'EscrowCreated' });
    expect(logs.map((l) => l.args.sender)).toEqual([payer.address]);
    expect(await e.world.escrowStatus(id)).toBe(EscrowStatus.Held);
    expect(await usdcBalance(e.world, payer.address)).toBe(0n);
    expect(await e.world.publicClient.getBalance({ address: payer.address })).toBe(0n);
    expect(await relayerNonce(e.world)).toBe(nonce + 1);

    const [row] = await relaysOf(id);
    expect(row).toMatchObject({ platform_id: p.platformId, status: 'mined', mined_hash: res.body.relay.txHash });
    expect(BigInt(row.fee_paid_wei)).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    expect(BigInt(row.fee_paid_wei)).toBeGreaterThan(0n);
    expect(row.applied_at).not.toBeNull();

    const got = await call(e.svc.url, 'GET', path(id), { headers: bearer(p.token) });
    expect(got.status).toBe(200);
    expect(got.body.relay).toMatchObject({ id: res.body.relay.id, status: 'mined', txHash: res.body.relay.txHash });
  });

  it('the same signature again answers the same relay and sends nothing (before and after it is mined)', async () => {
    const { payer, created, id } = await payerWithTransaction();
    const body = await authorizationBody(e.world, payer, created);
    const nonce = await relayerNonce(e.world);
    const [first, second] = await Promise.all([post(id, body), post(id, body)]);
    expect([first.status, second.status].sort()).toEqual([200, 202]);
    expect(second.body.relay).toEqual(first.body.relay);
    await escrowedTx(id);
    const third = await post(id, { ...body, signature: body.signature.toUpperCase().replace('0X', '0x') });
    expect(third.status).toBe(200);
    expect(third.body.relay).toMatchObject({ id: first.body.relay.id, txHash: first.body.relay.txHash, status: 'mined' });
    expect(await relayerNonce(e.world)).toBe(nonce + 1);
    expect(await relaysOf(id)).toHaveLength(1);
    // Another signature for a transaction relayed already: 409, nothing sent.
    const other = await post(id, await authorizationBody(e.world, payer, created, { validBefore: Math.floor(Date.now() / 1000) + 7200 }));
    expect(other.status).toBe(409);
    expect(await relayerNonce(e.world)).toBe(nonce + 1);
  });

  it('refuses a signature by another key (forged) before any gas is spent', async () => {
    const { created, id } = await payerWithTransaction();
    await expectRefused(id, await authorizationBody(e.world, newPayer(), created), 'invalid_signature');
  });

  it('refuses an authorization of other terms (amount, receiver, hold deadline) than the transaction', async () => {
    const { payer, created, id } = await payerWithTransaction(100_000_000n);
    await expectRefused(id, await authorizationBody(e.world, payer, created, { overrides: { amount: 12_500_001n } }), 'invalid_signature');
    await expectRefused(
      id,
      await authorizationBody(e.world, payer, created, { overrides: { receiver: newPayer().address } }),
      'invalid_signature',
    );
    await expectRefused(
      id,
      await authorizationBody(e.world, payer, created, { overrides: { holdDeadline: BigInt(created.escrow.holdDeadline) + 1n } }),
      'invalid_signature',
    );
    // A signature over a window other than the body's: the body's window is what the token checks.
    const body = await authorizationBody(e.world, payer, created);
    await expectRefused(id, { ...body, validBefore: body.validBefore + 1 }, 'invalid_signature');
  });

  it('refuses an expired authorization, one that expires within the margin, and one not yet valid', async () => {
    const { payer, created, id } = await payerWithTransaction();
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(id, await authorizationBody(e.world, payer, created, { validBefore: now - 1 }), 'expired');
    await expectRefused(id, await authorizationBody(e.world, payer, created, { validBefore: now + 20 }), 'expires_too_soon');
    await expectRefused(id, await authorizationBody(e.world, payer, created, { validAfter: now + 600 }), 'not_yet_valid');
  });

  it('refuses when the payer holds less than the amount', async () => {
    const { payer, created, id } = await payerWithTransaction(12_499_999n);
    await expectRefused(id, await authorizationBody(e.world, payer, created), 'insufficient_balance');
  });

  it('refuses an authorization canceled on chain (nonce used)', async () => {
    const { payer, created, id } = await payerWithTransaction();
    const body = await authorizationBody(e.world, payer, created);
    const { authorizationNonce, fundingTokenAbi } = await import('@holdfast/escrow');
    const { termsOf } = await import('../support/relayer.js');
    const { escrow, terms } = termsOf(created);
    const nonce = authorizationNonce(e.world.anvil.chainId, escrow, terms);
    const { readEip712Domain } = await import('@holdfast/escrow');
    const domain = await readEip712Domain(e.world.publicClient, terms.token);
    const cancel = await payer.signTypedData({
      domain,
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce },
    });
    await e.world.mined(
      e.world.stranger.writeContract({
        address: terms.token,
        abi: fundingTokenAbi,
        functionName: 'cancelAuthorization',
        args: [payer.address, nonce, cancel],
      }),
    );
    await expectRefused(id, body, 'nonce_used');
  });

  it('refuses a transaction that is not pending or not escrowed by the platform (nothing sent)', async () => {
    const { payer, created, id } = await payerWithTransaction();
    const body = await authorizationBody(e.world, payer, created);
    await e.sql`update transactions set status = 'cancelled' where id = ${id}`;
    const nonce = await relayerNonce(e.world);
    const res = await post(id, body);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INVALID_STATE_TRANSITION');
    expect(await relayerNonce(e.world)).toBe(nonce);
    const missing = await post('0198a6c4-5a1b-7c3d-8e9f-0a1b2c3d4e5f', body);
    expect(missing.status).toBe(404);
  });

  it("refuses once the platform's daily gas budget is spent (429), nothing sent", async () => {
    const { payer, created, id } = await payerWithTransaction();
    const other = await payerWithTransaction();
    // What the platform spent today, arranged: a relay of another transaction that cost the whole budget.
    await e.sql`
      insert into relayed_locks (id, platform_id, transaction_id, network, kind, request, derived_nonce, relayer, account_nonce, gas_limit,
        raw_tx, tx_hash, max_fee_per_gas, max_priority_fee_per_gas, status, fee_paid_wei, applied_at)
      values (gen_random_uuid(), ${p.platformId}, ${other.id}, 'base-sepolia', 'authorization', '{}'::jsonb, 'spent', ${RELAYER}, 1000000,
        1, '0x', '0xspent', 1, 1, 'mined', '50000000000000000', now())`;
    try {
      const nonce = await relayerNonce(e.world);
      const res = await post(id, await authorizationBody(e.world, payer, created));
      expect(res.status, JSON.stringify(res.body)).toBe(429);
      expect(res.body.error.code).toBe('RELAYER_BUDGET_EXHAUSTED');
      expect(await relayerNonce(e.world)).toBe(nonce);
      expect(await relaysOf(id)).toHaveLength(0);
    } finally {
      await e.sql`delete from relayed_locks where transaction_id = ${other.id}`;
    }
  });

  it('replaces a stuck transaction: same nonce, higher fees, one lock mined', async () => {
    const test = testClientOf(e.world);
    const { payer, created, id } = await payerWithTransaction();
    const nonce = await e.world.publicClient.getTransactionCount({ address: RELAYER, blockTag: 'latest' });
    await test.setAutomine(false);
    let res: Loose;
    try {
      res = await post(id, await authorizationBody(e.world, payer, created));
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const [original] = await relaysOf(id);
      // No block: after RELAYER_STUCK_AFTER (1 s) the worker signs and sends a replacement.
      const [replaced] = await waitFor(async () => {
        const rows = await relaysOf(id);
        return rows[0]?.attempts >= 2 ? rows : null;
      }, 'a replacement');
      expect(replaced.earlier_hashes).toContain(res.body.relay.txHash);
      expect(replaced.tx_hash).not.toBe(res.body.relay.txHash);
      // At least +12.5% on both fees (what nodes ask of a replacement).
      expect(BigInt(replaced.max_priority_fee_per_gas) * 1000n).toBeGreaterThanOrEqual(BigInt(original.max_priority_fee_per_gas) * 1125n);
      expect(BigInt(replaced.max_fee_per_gas) * 1000n).toBeGreaterThanOrEqual(BigInt(original.max_fee_per_gas) * 1125n);
      expect(replaced.account_nonce).toBe(original.account_nonce);
    } finally {
      await test.mine({ blocks: 1 });
      await test.setAutomine(true);
    }
    await escrowedTx(id);
    const [row] = await relaysOf(id);
    expect(row.status).toBe('mined');
    expect(row.mined_hash).not.toBe(res.body.relay.txHash);
    const mined = await e.world.publicClient.getTransaction({ hash: row.mined_hash });
    expect(mined.nonce).toBe(nonce);
    expect(await e.world.publicClient.getTransactionCount({ address: RELAYER, blockTag: 'latest' })).toBe(nonce + 1);
    expect(await e.world.publicClient.getTransactionReceipt({ hash: res.body.relay.txHash }).catch(() => null)).toBeNull();
    expect(await e.world.escrowStatus(id)).toBe(EscrowStatus.Held);
  });
});

describe('POST /api/v2/transactions/{id}/escrow-authorization (EIP-2612 permit)', () => {
  it('funds the escrow with a permit and the EscrowAuthorization', async () => {
    const { payer, created, id } = await payerWithTransaction();
    const res = await post(id, await permitBody(e.world, payer, created));
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.relay.kind).toBe('permit');
    await escrowedTx(id);
    expect(await e.world.escrowStatus(id)).toBe(EscrowStatus.Held);
    expect(await usdcBalance(e.world, payer.address)).toBe(0n);
  });

  it('refuses an EscrowAuthorization signed by another key, nothing sent', async () => {
    const { payer, created, id } = await payerWithTransaction();
    const mine = await permitBody(e.world, payer, created);
    const forged = await permitBody(e.world, newPayer(), created);
    await expectRefused(id, { ...mine, escrowSignature: forged.escrowSignature }, 'invalid_signature');
  });
});

import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { platformWithCredentials, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { bearer, call, type Loose } from '../support/harness.js';
import { newPayer, RELAYER, relayerNonce, testClientOf, usdcBalance } from '../support/relayer.js';
import { facilitatorFor, PRICE, paymentFor, requirementsFor } from '../support/x402.js';

// A settlement still being mined answers `settlement_pending` with its hash and a status to poll;
// settling the same payload again answers the same on-chain transaction; a mined one whose block
// leaves the chain is reported `reorged`, never sent again. Anvil mines only when told here.

let p: Awaited<ReturnType<typeof platformWithCredentials>>;
const payTo = newPayer().address;
const e = fileFixture(() => startChainPaymentsEnv({ RELAYER_POLL_INTERVAL: '100ms', RELAYER_STUCK_AFTER: '1h', X402_SETTLE_WAIT: '0s' }));
beforeAll(async () => {
  p = await platformWithCredentials(e, 'x402 pending');
}, 60_000);

const statusOf = (transactionId: string) =>
  call(e.svc.url, 'GET', `/api/v2/x402/settlements/${transactionId}`, { headers: bearer(p.token) });
const relayOf = async (transactionId: string) =>
  (await e.sql<Loose[]>`select status, tx_hash, attempts from relayed_locks where transaction_id = ${transactionId}`)[0];

async function pendingSettlement() {
  const buyer = newPayer();
  await e.world.mint(buyer.address, 1_000_000n);
  const requirements = requirementsFor(e.world, payTo);
  const payment = await paymentFor(buyer, requirements);
  const facilitator = facilitatorFor(e.svc.url, p.token);
  await testClientOf(e.world).setAutomine(false);
  const nonce = await relayerNonce(e.world);
  // The protocol's client raises a non-2xx answer; a pending one is 200 with success false.
  const first = await facilitator.settle(payment, requirements);
  expect(first).toMatchObject({ success: false, errorReason: 'settlement_pending', payer: buyer.address });
  expect(first.transaction).toMatch(/^0x[0-9a-f]{64}$/);
  const holdfast = (first.extra as Loose).holdfast;
  expect(holdfast.statusUrl).toBe(`/api/v2/x402/settlements/${holdfast.transactionId}`);
  return { buyer, requirements, payment, facilitator, first, transactionId: holdfast.transactionId as string, nonce };
}

describe('x402 settle while the transfer is mining, and after a reorg', () => {
  it('pending: the hash and a pollable status; the same payload again answers the same transaction; settled once mined', async () => {
    const s = await pendingSettlement();
    const polled = await statusOf(s.transactionId);
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({
      status: 'pending',
      settlement: { errorReason: 'settlement_pending', transaction: s.first.transaction },
    });
    const again = await s.facilitator.settle(s.payment, s.requirements);
    expect(again).toMatchObject({ success: false, errorReason: 'settlement_pending', transaction: s.first.transaction });
    expect(await relayerNonce(e.world)).toBe(s.nonce + 1);

    await testClientOf(e.world).mine({ blocks: 1 });
    const settled = await waitFor(async () => {
      const r = await statusOf(s.transactionId);
      return r.body.status === 'settled' ? r.body : null;
    }, 'settled');
    expect(settled.settlement).toMatchObject({ success: true, transaction: s.first.transaction, amount: PRICE.toString() });
    expect(await s.facilitator.settle(s.payment, s.requirements)).toMatchObject({ success: true, transaction: s.first.transaction });
    expect(await usdcBalance(e.world, payTo)).toBe(PRICE);
    expect(await relayOf(s.transactionId)).toMatchObject({ status: 'mined', tx_hash: s.first.transaction, attempts: 1 });
    await testClientOf(e.world).setAutomine(true);
  });

  it('reorged: the mined transfer leaves the chain; reported as settlement_reorged, nothing sent again', async () => {
    const s = await pendingSettlement();
    const test = testClientOf(e.world);
    const snapshot = await test.snapshot();
    await test.mine({ blocks: 1 });
    await waitFor(async () => ((await statusOf(s.transactionId)).body.status === 'settled' ? true : null), 'settled');
    await test.revert({ id: snapshot });
    // The block is gone; anvil keeps its transactions out of the pool: nobody mines it again here.
    await test.dropTransaction({ hash: s.first.transaction as `0x${string}` }).catch(() => {});

    const polled = await statusOf(s.transactionId);
    expect(polled.body).toMatchObject({
      status: 'reorged',
      settlement: { success: false, errorReason: 'settlement_reorged', transaction: s.first.transaction },
    });
    expect(await s.facilitator.settle(s.payment, s.requirements)).toMatchObject({
      success: false,
      errorReason: 'settlement_reorged',
      transaction: s.first.transaction,
    });
    expect(await relayOf(s.transactionId)).toMatchObject({ status: 'mined', attempts: 1 });
    expect(await e.world.publicClient.getTransactionCount({ address: RELAYER, blockTag: 'pending' })).toBe(s.nonce);
    expect(await usdcBalance(e.world, s.buyer.address)).toBe(1_000_000n);
  });
});

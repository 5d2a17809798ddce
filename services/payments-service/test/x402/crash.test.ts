import { erc20Abi } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ChainWorld, waitFor } from '../support/chain.js';
import { bearer, call } from '../support/harness.js';
import { newPayer, RELAYER, relayerCrashWorld, testClientOf, usdcBalance } from '../support/relayer.js';
import { facilitatorFor, PRICE, paymentFor, requirementsFor } from '../support/x402.js';

// kill -9 of payments (its built dist/main.js) after an x402 settle committed its relay and before
// the receipt: the seller's retry of the same payload, to the restarted process, answers the same
// on-chain transaction; one transfer on chain.

const crash = relayerCrashWorld({ X402_SETTLE_WAIT: '0s' });
let world: ChainWorld;
beforeAll(() => {
  world = crash.chain();
});

describe('x402 settle across a crash of payments', () => {
  it('kill -9 between the relay and its receipt, restart, settle again: the same transaction, one transfer', async () => {
    const url = crash.url();
    const p = await crash.platform('x402 crash');
    const buyer = newPayer();
    await world.mint(buyer.address, 1_000_000n);
    const payTo = newPayer().address;
    const requirements = requirementsFor(world, payTo);
    const payment = await paymentFor(buyer, requirements);
    const test = testClientOf(world);
    const nonce = await world.publicClient.getTransactionCount({ address: RELAYER, blockTag: 'latest' });

    await test.setAutomine(false);
    const pending = await facilitatorFor(url, p.token).settle(payment, requirements);
    expect(pending).toMatchObject({ success: false, errorReason: 'settlement_pending' });
    const hash = pending.transaction as `0x${string}`;
    await crash.kill();
    // As if the crash came before the broadcast: only the database has the bytes.
    await test.dropTransaction({ hash });
    await test.setAutomine(true);

    const again = await crash.restart();
    // The dead process's claim of the relay lapses (the worker's lease), then the stored bytes are sent again.
    const facilitator = facilitatorFor(again, p.token);
    const settled = await waitFor(
      async () => {
        const answer = await facilitator.settle(payment, requirements);
        if (!answer.success) expect(answer).toMatchObject({ errorReason: 'settlement_pending', transaction: hash });
        return answer.success ? answer : null;
      },
      'settled after the restart',
      90_000,
    );
    expect(settled).toMatchObject({ success: true, transaction: hash, payer: buyer.address });

    expect(await world.publicClient.getTransactionCount({ address: RELAYER, blockTag: 'latest' })).toBe(nonce + 1);
    const transfers = await world.publicClient.getContractEvents({
      address: world.usdc,
      abi: erc20Abi,
      eventName: 'Transfer',
      args: { from: buyer.address },
      fromBlock: 0n,
    });
    expect(transfers).toHaveLength(1);
    expect(await usdcBalance(world, payTo)).toBe(PRICE);
    const transactionId = (settled.extra as { holdfast: { transactionId: string } }).holdfast.transactionId;
    await waitFor(
      async () =>
        (await call(again, 'GET', `/api/v2/transactions/${transactionId}`, { headers: bearer(p.token) })).body.status === 'completed',
      'completed after the restart',
      60_000,
    );
    const sql = crash.sql();
    try {
      expect(await sql`select status, tx_hash, attempts from relayed_locks where transaction_id = ${transactionId}`).toEqual([
        { status: 'mined', tx_hash: hash, attempts: 1 },
      ]);
      expect(await sql`select id from transactions where lower(from_address) = ${buyer.address.toLowerCase()}`).toHaveLength(1);
    } finally {
      await sql.end();
    }
  }, 180_000);
});

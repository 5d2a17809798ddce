import { fileFixture } from '@holdfast/test-fixtures';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { erc20Abi, parseEventLogs } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, platformWithCredentials, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { bearer, call, type Loose } from '../support/harness.js';
import { newPayer, RELAYER, relayerNonce, usdcBalance } from '../support/relayer.js';
import { buyerFetch, caip2Of, facilitatorFor, PRICE, paymentFor, requirementsFor, startSeller, USDC_DOMAIN } from '../support/x402.js';

// x402 through Holdfast with the protocol's own libraries on anvil: a seller behind @x402/hono,
// a buyer with MockUSDC and no ETH paying through @x402/fetch; the relayer pays the gas, and the
// payment is a transaction of the seller's platform.

let p: Awaited<ReturnType<typeof platformWithCredentials>>;
let seller: Awaited<ReturnType<typeof startSeller>>;
const payTo = newPayer().address;
const e = fileFixture(() => startChainPaymentsEnv({ RELAYER_POLL_INTERVAL: '100ms' }));
beforeAll(async () => {
  p = await platformWithCredentials(e, 'x402 seller');
  seller = await startSeller(e.world, e.svc.url, p.token, payTo);
}, 60_000);
afterAll(async () => seller?.stop());

const getTx = async (id: string) => (await call(e.svc.url, 'GET', `/api/v2/transactions/${id}`, { headers: bearer(p.token) })).body;
const completedTx = (id: string) =>
  waitFor(async () => ((await getTx(id)).status === 'completed' ? getTx(id) : null), `${id} completed`, 30_000);
const relaysByHash = (hash: string) => e.sql<Loose[]>`select * from relayed_locks where mined_hash = ${hash} or tx_hash = ${hash}`;

async function fundedBuyer(funds = 1_000_000n) {
  const buyer = newPayer();
  await e.world.mint(buyer.address, funds);
  return buyer;
}

describe('GET /api/v2/x402/supported', () => {
  it('answers exact on the local chain in CAIP-2, with the token, its EIP-712 domain and the relayer as signer', async () => {
    const res = await call(e.svc.url, 'GET', '/api/v2/x402/supported', { headers: bearer(p.token) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.kinds).toContainEqual({
      x402Version: 2,
      scheme: 'exact',
      network: 'eip155:84532',
      extra: { asset: e.world.usdc, ...USDC_DOMAIN, decimals: 6 },
    });
    expect(res.body.signers['eip155:84532']).toEqual([RELAYER]);
    // The protocol's own client parses it.
    const supported = await facilitatorFor(e.svc.url, p.token).getSupported();
    expect(supported.kinds.map((k) => `${k.scheme}@${k.network}`)).toContain(`exact@${caip2Of(e.world)}`);
  });
});

describe('x402 exact, with @x402/hono and @x402/fetch', () => {
  it('the buyer gets the resource; one transfer by the relayer; the seller platform sees the transaction completed with its hash', async () => {
    const buyer = await fundedBuyer();
    expect(await e.world.publicClient.getBalance({ address: buyer.address })).toBe(0n);
    const nonce = await relayerNonce(e.world);
    const unpaid = await fetch(`${seller.url}/weather`);
    expect(unpaid.status).toBe(402);

    const res = await buyerFetch(e.world, buyer)(`${seller.url}/weather`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ weather: 'sunny' });
    const settled = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE') ?? '');
    expect(settled).toMatchObject({ success: true, network: caip2Of(e.world), payer: buyer.address });
    const hash = settled.transaction as `0x${string}`;

    // On chain: one transferWithAuthorization sent by the relayer, the buyer without ETH.
    const receipt = await e.world.publicClient.getTransactionReceipt({ hash });
    expect(receipt.from.toLowerCase()).toBe(RELAYER.toLowerCase());
    const transfers = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' });
    expect(transfers.map((t) => [t.args.from, t.args.to, t.args.value])).toEqual([[buyer.address, payTo, PRICE]]);
    expect(await usdcBalance(e.world, payTo)).toBe(PRICE);
    expect(await usdcBalance(e.world, buyer.address)).toBe(1_000_000n - PRICE);
    expect(await e.world.publicClient.getBalance({ address: buyer.address })).toBe(0n);
    expect(await relayerNonce(e.world)).toBe(nonce + 1);

    // Holdfast: a raw transaction of the seller's platform, completed with the hash, its events in the outbox.
    const [relay] = await relaysByHash(hash);
    expect(relay).toMatchObject({ platform_id: p.platformId, kind: 'transfer', status: 'mined' });
    const tx = await completedTx(relay.transaction_id);
    expect(tx).toMatchObject({
      orchestrationType: 'raw',
      fromAddress: buyer.address,
      toAddress: payTo,
      amount: '0.01',
      txHash: hash,
      metadata: { x402: { scheme: 'exact', network: caip2Of(e.world) } },
    });
    expect((await eventsOf(e.sql, relay.transaction_id)).map((ev) => ev.type)).toEqual(['transaction.created', 'transaction.completed']);
    expect(BigInt(relay.fee_paid_wei)).toBe(receipt.gasUsed * receipt.effectiveGasPrice);

    // The status a caller can poll.
    const status = await call(e.svc.url, 'GET', `/api/v2/x402/settlements/${relay.transaction_id}`, { headers: bearer(p.token) });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ status: 'settled', settlement: { success: true, transaction: hash } });
  });

  it('the same payload settled twice at once and again later: one transfer, the same on-chain transaction every time', async () => {
    const buyer = await fundedBuyer();
    const requirements = requirementsFor(e.world, payTo);
    const payment = await paymentFor(buyer, requirements);
    const facilitator = facilitatorFor(e.svc.url, p.token);
    expect(await facilitator.verify(payment, requirements)).toMatchObject({ isValid: true, payer: buyer.address });
    const nonce = await relayerNonce(e.world);
    const before = await usdcBalance(e.world, payTo);

    const [a, b] = await Promise.all([facilitator.settle(payment, requirements), facilitator.settle(payment, requirements)]);
    expect(a).toMatchObject({ success: true, payer: buyer.address });
    expect(b.transaction).toBe(a.transaction);
    const again = await facilitator.settle(payment, requirements);
    expect(again).toMatchObject({ success: true, transaction: a.transaction });
    // The same Holdfast transaction and relay (its status may have moved on meanwhile: completed once applied).
    const { transactionId, relayId } = (a.extra as Loose).holdfast;
    expect(again.extra?.holdfast).toMatchObject({ transactionId, relayId });
    expect((b.extra as Loose).holdfast).toMatchObject({ transactionId, relayId });

    expect(await relayerNonce(e.world)).toBe(nonce + 1);
    expect(await usdcBalance(e.world, payTo)).toBe(before + PRICE);
    const rows = await e.sql<
      Loose[]
    >`select id from transactions where metadata->'x402'->>'network' is not null and lower(from_address) = ${buyer.address.toLowerCase()}`;
    expect(rows).toHaveLength(1);
    expect(await relaysByHash(a.transaction)).toHaveLength(1);
    await completedTx(rows[0].id);

    // Used: verifying it again is refused (a seller must not serve twice for one payment), nothing sent.
    expect(await facilitator.verify(payment, requirements)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_nonce_already_used',
    });
    // The same signed header replayed to the seller: 402, no second transfer.
    const { encodePaymentSignatureHeader } = await import('@x402/core/http');
    const replay = await fetch(`${seller.url}/weather`, { headers: { 'PAYMENT-SIGNATURE': encodePaymentSignatureHeader(payment) } });
    expect(replay.status).toBe(402);
    expect(await relayerNonce(e.world)).toBe(nonce + 1);
    expect(await usdcBalance(e.world, payTo)).toBe(before + PRICE);
  });
});

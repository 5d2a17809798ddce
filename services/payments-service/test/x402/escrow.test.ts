import { EscrowStatus } from '@holdfast/escrow';
import { HoldfastEscrowScheme, PaymentsClient } from '@holdfast/sdk';
import { fileFixture } from '@holdfast/test-fixtures';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, platformWithCredentials, publishChain, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { sessionBody } from '../support/checkout.js';
import { bearer, call, type Loose, newPlatform } from '../support/harness.js';
import { newPayer, RELAYER, relayerNonce, usdcBalance } from '../support/relayer.js';
import { caip2Of, facilitatorFor, startEscrowSeller } from '../support/x402.js';

// holdfast-escrow: a checkout session's x402Url paid by a machine client through @x402/fetch with
// the SDK's HoldfastEscrowScheme (a local account with MockUSDC and no ETH): the payment is locked
// in HoldfastEscrow, the transaction escrowed with the platform's hold, then released after it.

let p: Awaited<ReturnType<typeof platformWithCredentials>>;
let other: Awaited<ReturnType<typeof platformWithCredentials>>;
const e = fileFixture(() => startChainPaymentsEnv({ RELAYER_POLL_INTERVAL: '100ms', PAYMENTS_HOLD_PERIOD_SECONDS: '3' }));
beforeAll(async () => {
  p = await platformWithCredentials(e, 'x402 escrow seller');
  other = await platformWithCredentials(e, 'x402 escrow other');
}, 60_000);

const AMOUNT = 500_000n;
const getTx = async (id: string) => (await call(e.svc.url, 'GET', `/api/v2/transactions/${id}`, { headers: bearer(p.token) })).body;
const txWhen = (id: string, status: string) =>
  waitFor(async () => ((await getTx(id)).status === status ? getTx(id) : null), `${id} ${status}`, 60_000);

async function session() {
  const toAddress = newPayer().address;
  const res = await call(e.svc.url, 'POST', '/api/v2/checkout/sessions', {
    headers: bearer(p.token),
    body: sessionBody({ amount: '0.5', toAddress }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.x402Url).toBe(`${e.svc.url}/api/v2/x402/checkout/${res.body.id}`);
  return res.body as Loose;
}

async function fundedBuyer() {
  const buyer = newPayer();
  await e.world.mint(buyer.address, 1_000_000n);
  return buyer;
}

const buyerFetch = (buyer: ReturnType<typeof newPayer>) =>
  wrapFetchWithPayment(
    fetch,
    x402Client.fromConfig({
      schemes: [{ network: caip2Of(e.world), client: new HoldfastEscrowScheme(buyer) }],
      spendControls: { allowedAssets: [{ network: caip2Of(e.world), asset: e.world.usdc, maxAmountPerPayment: AMOUNT.toString() }] },
    }),
  );

describe('a malformed payment header on the public x402Url', () => {
  it('is a 402 invalid_payload, not a 500, and pays nothing', async () => {
    const s = await session();
    for (const header of ['null', '{}', JSON.stringify({ x402Version: 2, payload: {} }), '"text"']) {
      const res = await fetch(s.x402Url, { headers: { 'PAYMENT-SIGNATURE': Buffer.from(header).toString('base64') } });
      expect(res.status, header).toBe(402);
      expect(((await res.json()) as Loose).error, header).toBe('invalid_payload');
    }
    expect((await call(e.svc.url, 'GET', `/api/v2/checkout/sessions/${s.id}`, { headers: bearer(p.token) })).body.status).toBe('open');
  });
});

describe('a checkout session paid over x402 (holdfast-escrow)', () => {
  it('the x402Url answers 402 with the session requirements; the buyer pays; escrowed; released after the hold', async () => {
    const s = await session();
    const unpaid = await fetch(s.x402Url);
    expect(unpaid.status).toBe(402);
    const required = JSON.parse(Buffer.from(unpaid.headers.get('PAYMENT-REQUIRED') ?? '', 'base64').toString()) as PaymentRequired;
    expect(required.accepts).toEqual([
      expect.objectContaining({
        scheme: 'holdfast-escrow',
        network: caip2Of(e.world),
        asset: e.world.usdc,
        amount: AMOUNT.toString(),
        payTo: s.toAddress,
        extra: expect.objectContaining({ checkoutSessionId: s.id, escrow: e.world.escrow, name: 'USDC', version: '2' }),
      }),
    ]);

    const buyer = await fundedBuyer();
    const nonce = await relayerNonce(e.world);
    const paid = await buyerFetch(buyer)(s.x402Url);
    expect(paid.status, await paid.clone().text()).toBe(200);
    const body = (await paid.json()) as Loose;
    expect(body.session).toMatchObject({ id: s.id, fromAddress: buyer.address });
    const settled = decodePaymentResponseHeader(paid.headers.get('PAYMENT-RESPONSE') ?? '');
    expect(settled).toMatchObject({ success: true, payer: buyer.address, network: caip2Of(e.world) });

    // Locked, not paid out: the escrow holds it, the relayer paid the gas, the buyer has no ETH.
    const txId = body.session.transactionId as string;
    const escrowed = await txWhen(txId, 'escrowed');
    expect(escrowed).toMatchObject({ orchestrationType: 'platform', txHash: settled.transaction, escrowAddress: e.world.escrow });
    expect(await e.world.escrowStatus(txId)).toBe(EscrowStatus.Held);
    expect(await usdcBalance(e.world, s.toAddress)).toBe(0n);
    expect(await e.world.publicClient.getBalance({ address: buyer.address })).toBe(0n);
    expect(await relayerNonce(e.world)).toBe(nonce + 1);
    const receipt = await e.world.publicClient.getTransactionReceipt({ hash: settled.transaction as `0x${string}` });
    expect(receipt.from.toLowerCase()).toBe(RELAYER.toLowerCase());
    const complete = await waitFor(
      async () =>
        (await call(e.svc.url, 'GET', `/api/v2/checkout/sessions/${s.id}`, { headers: bearer(p.token) })).body.status === 'complete'
          ? true
          : null,
      'session complete',
    );
    expect(complete).toBe(true);

    // Paid: the session's page has nothing more to sign, so the buyer's scheme cannot make a second payment of it.
    await expect(new HoldfastEscrowScheme(buyer).createPaymentPayload(2, required.accepts[0] as PaymentRequirements)).rejects.toThrow(
      /nothing to sign/,
    );
    expect(await relayerNonce(e.world)).toBe(nonce + 1);

    // Released after the hold, as any escrowed transaction: attest, the attester's release on chain, completed.
    const attested = await call(e.svc.url, 'POST', `/api/v2/transactions/${txId}/release/attest`, { headers: bearer(p.token) });
    expect(attested.status, JSON.stringify(attested.body)).toBe(200);
    const release = await waitFor(
      async () => {
        const [row] = await e.sql<Loose[]>`select status, tx_hash from settlements where transaction_id = ${txId} and kind = 'release'`;
        return row?.status === 'done' && row.tx_hash ? row : null;
      },
      'the release on chain',
      60_000,
    );
    expect(await e.world.escrowStatus(txId)).toBe(EscrowStatus.Released);
    expect(await usdcBalance(e.world, s.toAddress)).toBe(AMOUNT);
    await publishChain(e.nats.bus, await e.world.indexed(await e.world.publicClient.getTransactionReceipt({ hash: release.tx_hash })));
    await txWhen(txId, 'completed');
    expect((await eventsOf(e.sql, txId)).map((ev) => ev.type)).toEqual([
      'transaction.created',
      'transaction.escrowed',
      'transaction.completed',
    ]);
  }, 120_000);

  it('through the facilitator (a seller middleware with holdfast-escrow requirements): verify, settle twice, one lock; another platform refused', async () => {
    const s = await session();
    const required = (await (await fetch(s.x402Url)).json()) as PaymentRequired;
    const requirements = required.accepts[0] as PaymentRequirements;
    const buyer = await fundedBuyer();
    const made = await new HoldfastEscrowScheme(buyer).createPaymentPayload(2, requirements);
    const payment = { x402Version: 2, accepted: requirements, payload: made.payload };
    const facilitator = facilitatorFor(e.svc.url, p.token);
    expect(await facilitator.verify(payment, requirements)).toMatchObject({ isValid: true, payer: buyer.address });

    // Another platform: the session is not its own; nothing sent.
    const nonce = await relayerNonce(e.world);
    const stranger = await facilitatorFor(e.svc.url, other.token).settle(payment, requirements);
    expect(stranger).toMatchObject({ success: false, errorReason: 'invalid_payment_requirements', transaction: '' });
    expect(await relayerNonce(e.world)).toBe(nonce);

    const [a, b] = await Promise.all([facilitator.settle(payment, requirements), facilitator.settle(payment, requirements)]);
    expect(a).toMatchObject({ success: true, payer: buyer.address });
    expect(b.transaction).toBe(a.transaction);
    expect(await facilitator.settle(payment, requirements)).toMatchObject({ success: true, transaction: a.transaction });
    expect(await relayerNonce(e.world)).toBe(nonce + 1);
    const txId = (a.extra as Loose).holdfast.transactionId;
    await txWhen(txId, 'escrowed');
    expect(await e.sql<Loose[]>`select id from relayed_locks where transaction_id = ${txId}`).toHaveLength(1);

    // The session's payer is named: another wallet cannot take it over (the checkout's 409), nothing sent.
    await expect(new HoldfastEscrowScheme(newPayer()).createPaymentPayload(2, requirements)).rejects.toThrow(/409/);
    expect(await relayerNonce(e.world)).toBe(nonce + 1);
  }, 120_000);

  it('a seller behind @x402/hono asks for holdfast-escrow (SDK scheme and price): the buyer gets the resource, the payment escrowed', async () => {
    const made = await newPlatform(e, {
      name: 'x402 escrow middleware',
      clientScopes: ['read:transactions', 'write:transactions', 'move:transactions'],
    });
    const client = new PaymentsClient({ baseUrl: e.svc.url, clientId: made.client.clientId, clientSecret: made.client.clientSecret });
    const payTo = newPayer().address;
    const seller = await startEscrowSeller(e.world, client, payTo);
    try {
      const unpaid = await fetch(`${seller.url}/vault`);
      expect(unpaid.status).toBe(402);
      const buyer = await fundedBuyer();
      const nonce = await relayerNonce(e.world);
      const res = await buyerFetch(buyer)(`${seller.url}/vault`);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.json()).toEqual({ vault: 'open' });
      const settled = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE') ?? '');
      expect(settled).toMatchObject({ success: true, payer: buyer.address });
      const txId = (settled.extra as Loose).holdfast.transactionId as string;
      const tx = await waitFor(async () => {
        const got = await call(e.svc.url, 'GET', `/api/v2/transactions/${txId}`, { headers: bearer(made.token) });
        return got.body.status === 'escrowed' ? got.body : null;
      }, 'escrowed');
      expect(tx).toMatchObject({ fromAddress: buyer.address, toAddress: payTo, amount: '0.5', txHash: settled.transaction });
      expect(await e.world.escrowStatus(txId)).toBe(EscrowStatus.Held);
      expect(await relayerNonce(e.world)).toBe(nonce + 1);
      expect(await e.world.publicClient.getBalance({ address: buyer.address })).toBe(0n);
    } finally {
      await seller.stop();
    }
  }, 120_000);
});

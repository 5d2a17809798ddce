import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { platformWithCredentials, startChainPaymentsEnv } from '../support/chain.js';
import type { Loose } from '../support/harness.js';
import { newPayer, relayerNonce, usdcBalance } from '../support/relayer.js';
import { buyerFetch, facilitatorCall, handSigned, PRICE, paymentFor, requirementsFor, startSeller, x402Body } from '../support/x402.js';

// Payments the facilitator refuses: the x402 reason in the protocol's answer (200, isValid/success
// false), nothing on chain (the relayer's nonce and the balances unchanged) and no transaction.

let p: Awaited<ReturnType<typeof platformWithCredentials>>;
const payTo = newPayer().address;
const e = fileFixture(() => startChainPaymentsEnv({ RELAYER_POLL_INTERVAL: '100ms' }));
beforeAll(async () => {
  p = await platformWithCredentials(e, 'x402 errors');
}, 60_000);

const transactionsOf = (payer: string) => e.sql<Loose[]>`select id from transactions where lower(from_address) = ${payer.toLowerCase()}`;

/** Both verify and settle refuse with `reason`; nothing is sent, nothing recorded. */
async function expectRefused(body: Loose, reason: string, payer: string) {
  const nonce = await relayerNonce(e.world);
  const balance = await usdcBalance(e.world, payTo);
  const verified = await facilitatorCall(e.svc.url, 'verify', p.token, body);
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  expect(verified.body).toMatchObject({ isValid: false, invalidReason: reason });
  const settled = await facilitatorCall(e.svc.url, 'settle', p.token, body);
  expect(settled.status, JSON.stringify(settled.body)).toBe(200);
  expect(settled.body).toMatchObject({ success: false, errorReason: reason, transaction: '', network: body.paymentRequirements.network });
  expect(await relayerNonce(e.world)).toBe(nonce);
  expect(await usdcBalance(e.world, payTo)).toBe(balance);
  expect(await transactionsOf(payer)).toHaveLength(0);
}

async function fundedBuyer(funds = 1_000_000n) {
  const buyer = newPayer();
  if (funds > 0n) await e.world.mint(buyer.address, funds);
  return buyer;
}

describe('POST /api/v2/x402/verify and /settle: refused payments', () => {
  it('an expired authorization: invalid_exact_evm_payload_authorization_valid_before', async () => {
    const buyer = await fundedBuyer();
    const requirements = requirementsFor(e.world, payTo);
    const now = BigInt(Math.floor(Date.now() / 1000));
    const payment = await handSigned(e.world, buyer, requirements, { validBefore: now - 1n });
    await expectRefused(x402Body(payment, requirements), 'invalid_exact_evm_payload_authorization_valid_before', buyer.address);
  });

  it('an authorization not valid yet: invalid_exact_evm_payload_authorization_valid_after', async () => {
    const buyer = await fundedBuyer();
    const requirements = requirementsFor(e.world, payTo);
    const now = BigInt(Math.floor(Date.now() / 1000));
    const payment = await handSigned(e.world, buyer, requirements, { validAfter: now + 600n, validBefore: now + 900n });
    await expectRefused(x402Body(payment, requirements), 'invalid_exact_evm_payload_authorization_valid_after', buyer.address);
  });

  it('an underfunded payer: invalid_exact_evm_insufficient_balance; through the libraries the seller answers 402', async () => {
    const buyer = await fundedBuyer(PRICE - 1n);
    const requirements = requirementsFor(e.world, payTo);
    await expectRefused(
      x402Body(await paymentFor(buyer, requirements), requirements),
      'invalid_exact_evm_insufficient_balance',
      buyer.address,
    );

    const seller = await startSeller(e.world, e.svc.url, p.token, payTo);
    try {
      const nonce = await relayerNonce(e.world);
      const res = await buyerFetch(e.world, buyer)(`${seller.url}/weather`);
      expect(res.status).toBe(402);
      expect(await relayerNonce(e.world)).toBe(nonce);
      expect(await usdcBalance(e.world, buyer.address)).toBe(PRICE - 1n);
      expect(await transactionsOf(buyer.address)).toHaveLength(0);
    } finally {
      await seller.stop();
    }
  });

  it('a forged signature (another key signed for the payer): invalid_exact_evm_signature', async () => {
    const buyer = await fundedBuyer();
    const requirements = requirementsFor(e.world, payTo);
    const payment = await handSigned(e.world, newPayer(), requirements, { from: buyer.address });
    await expectRefused(x402Body(payment, requirements), 'invalid_exact_evm_signature', buyer.address);
  });

  it('an authorization to another address than payTo, or of another amount', async () => {
    const buyer = await fundedBuyer();
    const requirements = requirementsFor(e.world, payTo);
    const elsewhere = await handSigned(e.world, buyer, requirements, { to: newPayer().address });
    await expectRefused(x402Body(elsewhere, requirements), 'invalid_exact_evm_recipient_mismatch', buyer.address);
    const less = await handSigned(e.world, buyer, requirements, { value: PRICE - 1n });
    await expectRefused(x402Body(less, requirements), 'invalid_exact_evm_authorization_value', buyer.address);
  });

  it('a network, scheme, asset or EIP-712 domain Holdfast does not serve', async () => {
    const buyer = await fundedBuyer();
    const requirements = requirementsFor(e.world, payTo);
    const payment = await paymentFor(buyer, requirements);
    const variants: [Partial<typeof requirements>, string][] = [
      [{ network: 'eip155:1' }, 'invalid_network'],
      [{ scheme: 'upto' }, 'unsupported_scheme'],
      [{ asset: newPayer().address }, 'invalid_payment_requirements'],
      [{ extra: { name: 'USD Coin', version: '2' } }, 'invalid_exact_evm_token_name_mismatch'],
      [{ extra: {} }, 'invalid_exact_evm_missing_eip712_domain'],
    ];
    for (const [override, reason] of variants) {
      const changed = { ...requirements, ...override };
      await expectRefused(x402Body({ ...payment, accepted: changed }, changed), reason, buyer.address);
    }
    // The payload accepted other requirements than the ones the seller sends.
    await expectRefused(
      x402Body({ ...payment, accepted: { ...requirements, amount: '1' } }, requirements),
      'invalid_payment_requirements',
      buyer.address,
    );
  });

  it('a malformed request is 400 naming the field, and an unknown x402 version the protocol reason', async () => {
    const res = await facilitatorCall(e.svc.url, 'settle', p.token, { x402Version: 2, paymentPayload: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error.details)).toMatch(/paymentRequirements|paymentPayload/);

    const buyer = await fundedBuyer();
    const requirements = requirementsFor(e.world, payTo);
    const payment = await paymentFor(buyer, requirements);
    await expectRefused({ ...x402Body(payment, requirements), x402Version: 1 }, 'invalid_x402_version', buyer.address);
    const noSignature = { ...payment, payload: { authorization: (payment.payload as Loose).authorization } };
    await expectRefused(x402Body(noSignature, requirements), 'invalid_payload', buyer.address);
  });
});

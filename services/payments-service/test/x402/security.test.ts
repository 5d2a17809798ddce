import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { platformWithCredentials, startChainPaymentsEnv } from '../support/chain.js';
import { bearer, call, type Loose } from '../support/harness.js';
import { newPayer, relayerNonce, usdcBalance } from '../support/relayer.js';
import { facilitatorCall, handSigned, PRICE, paymentFor, requirementsFor, x402Body } from '../support/x402.js';

// Who may use the facilitator: a platform's v2 bearer token with move:transactions (it pays the
// gas). A call without one, with a read-only one, or reaching into another platform's payment is
// refused, and nothing is sent.

let seller: Awaited<ReturnType<typeof platformWithCredentials>>;
let other: Awaited<ReturnType<typeof platformWithCredentials>>;
const payTo = newPayer().address;
const e = fileFixture(() => startChainPaymentsEnv({ RELAYER_POLL_INTERVAL: '100ms' }));
beforeAll(async () => {
  seller = await platformWithCredentials(e, 'x402 seller');
  other = await platformWithCredentials(e, 'x402 other tenant');
}, 60_000);

async function signedPayment() {
  const buyer = newPayer();
  await e.world.mint(buyer.address, 1_000_000n);
  const requirements = requirementsFor(e.world, payTo);
  return { buyer, requirements, body: x402Body(await paymentFor(buyer, requirements), requirements) };
}

describe('x402 facilitator: authentication and tenancy', () => {
  it('refuses verify, settle and supported without a bearer token (401), and settles nothing', async () => {
    const { body } = await signedPayment();
    const nonce = await relayerNonce(e.world);
    for (const op of ['verify', 'settle'] as const) {
      const res = await facilitatorCall(e.svc.url, op, null, body);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toMatch(/UNAUTHORIZED|AUTHENTICATION/);
    }
    expect((await call(e.svc.url, 'GET', '/api/v2/x402/supported')).status).toBe(401);
    // An API key is a v1 credential: v2 takes bearer tokens only.
    const keyed = await call(e.svc.url, 'POST', '/api/v2/x402/settle', { headers: { 'x-api-key': seller.apiKey }, body });
    expect(keyed.status).toBe(401);
    expect(await relayerNonce(e.world)).toBe(nonce);
    expect(await usdcBalance(e.world, payTo)).toBe(0n);
  });

  it('refuses a token without move:transactions (403): a read-only credential cannot spend the platform gas', async () => {
    const { body } = await signedPayment();
    const nonce = await relayerNonce(e.world);
    const res = await facilitatorCall(e.svc.url, 'settle', seller.readOnly, body);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('INSUFFICIENT_SCOPE');
    expect(await relayerNonce(e.world)).toBe(nonce);
  });

  it("another platform cannot read a payment's settlement (404) nor settle its payload again (refused before gas)", async () => {
    const { buyer, body } = await signedPayment();
    const settled = await facilitatorCall(e.svc.url, 'settle', seller.token, body);
    expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
    const transactionId = settled.body.extra.holdfast.transactionId;
    const nonce = await relayerNonce(e.world);

    const read = await call(e.svc.url, 'GET', `/api/v2/x402/settlements/${transactionId}`, { headers: bearer(other.token) });
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('NOT_FOUND');
    const own = await call(e.svc.url, 'GET', `/api/v2/x402/settlements/${transactionId}`, { headers: bearer(seller.token) });
    expect(own.status).toBe(200);

    // The same signed payload by another platform: the authorization is used, nothing sent, no transaction of theirs.
    const replay = await facilitatorCall(e.svc.url, 'settle', other.token, body);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used', transaction: '' });
    expect(await relayerNonce(e.world)).toBe(nonce);
    expect(await usdcBalance(e.world, payTo)).toBe(PRICE);
    const theirs = await e.sql<Loose[]>`
      select id from transactions where platform_id = ${other.platformId} and lower(from_address) = ${buyer.address.toLowerCase()}`;
    expect(theirs).toHaveLength(0);
  });
});

describe('x402 facilitator: a settled nonce pays once', () => {
  it('the nonce of a settled payment, sent again for a dearer payment with a junk signature, is refused, not answered success', async () => {
    const { body } = await signedPayment();
    const settled = await facilitatorCall(e.svc.url, 'settle', seller.token, body);
    expect(settled.body, JSON.stringify(settled.body)).toMatchObject({ success: true });
    const nonce = await relayerNonce(e.world);
    const paid = await usdcBalance(e.world, payTo);
    // The attack: same payer and EIP-3009 nonce (the idempotency key's parts), twice the price, a
    // signature that signs nothing. Answered the first payment's success, a seller would serve it.
    const dearer = structuredClone(body) as Loose;
    const doubled = (PRICE * 2n).toString();
    dearer.paymentRequirements.amount = doubled;
    dearer.paymentPayload.accepted.amount = doubled;
    dearer.paymentPayload.payload.authorization.value = doubled;
    dearer.paymentPayload.payload.signature = `0x${'11'.repeat(65)}`;
    const replay = await facilitatorCall(e.svc.url, 'settle', seller.token, dearer);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used', transaction: '' });
    expect(await relayerNonce(e.world)).toBe(nonce);
    expect(await usdcBalance(e.world, payTo)).toBe(paid);
    // The very same payload again still answers its own settlement.
    const again = await facilitatorCall(e.svc.url, 'settle', seller.token, body);
    expect(again.body).toMatchObject({ success: true, transaction: settled.body.transaction });
  });
});

describe("x402 facilitator: a nonce is the authorizer's own", () => {
  it("a payer cannot block another payer's payment by signing with the same EIP-3009 nonce", async () => {
    // EIP-3009 nonces are per authorizer: the same 32 bytes signed by two payers are two
    // authorizations. Keyed by the nonce alone, the attacker's pending relay refused the victim as nonce_used.
    const requirements = requirementsFor(e.world, payTo);
    const attacker = newPayer();
    const victim = newPayer();
    await e.world.mint(attacker.address, 1_000_000n);
    await e.world.mint(victim.address, 1_000_000n);
    const nonce = `0x${'ab'.repeat(32)}` as const;
    const first = await facilitatorCall(
      e.svc.url,
      'settle',
      seller.token,
      x402Body(await handSigned(e.world, attacker, requirements, { nonce }), requirements),
    );
    expect(first.body, JSON.stringify(first.body)).toMatchObject({ success: true });
    const paid = await usdcBalance(e.world, payTo);
    const second = await facilitatorCall(
      e.svc.url,
      'settle',
      seller.token,
      x402Body(await handSigned(e.world, victim, requirements, { nonce }), requirements),
    );
    expect(second.body, JSON.stringify(second.body)).toMatchObject({ success: true, payer: victim.address });
    expect(second.body.transaction).not.toBe(first.body.transaction);
    expect(await usdcBalance(e.world, payTo)).toBe(paid + PRICE);
    const rows = await e.sql<{ derived_nonce: string }[]>`
      select derived_nonce from relayed_locks where derived_nonce like ${`%:${nonce}`} order by sent_at`;
    expect(rows.map((r) => r.derived_nonce)).toEqual([
      `${attacker.address.toLowerCase()}:${nonce}`,
      `${victim.address.toLowerCase()}:${nonce}`,
    ]);
  });
});

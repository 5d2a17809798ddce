import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { platformWithCredentials, RECEIVER, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { checkoutClient, sessionEvents, sessionRow } from '../support/checkout.js';
import { signCheckout } from '../support/checkout-wallet.js';
import { call, type Loose } from '../support/harness.js';
import { newPayer, testClientOf } from '../support/relayer.js';

// A `processing` session whose transaction is never funded (docs/checkout.md "A payment that never
// locks"): past its expiry the worker expires it with checkout.session.expired, but only once no
// signature can still lock it: not while a relay is in flight, not while the latest authorization's
// window is open. One whose relay lands after its expiry completes as usual.

const e = fileFixture(() => startChainPaymentsEnv({ CHECKOUT_EXPIRY_INTERVAL: '100ms', RELAYER_POLL_INTERVAL: '100ms' }));
let p: Awaited<ReturnType<typeof platformWithCredentials>>;
let api: ReturnType<typeof checkoutClient>;

beforeAll(async () => {
  p = await platformWithCredentials(e, 'checkout unfunded');
  api = checkoutClient(e.svc.url);
}, 60_000);

const page = async (id: string) => (await call(e.svc.url, 'GET', `/api/v2/checkout/sessions/${id}/page`)).body as Loose;

/** A session with its payer named (processing, its transaction created); the payer holds the amount. */
async function processing() {
  const created = await api.create(p.token, {
    amount: '12.5',
    toAddress: RECEIVER,
    successUrl: 'https://shop.example/thanks',
    cancelUrl: 'https://shop.example/cart',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const payer = newPayer();
  await e.world.mint(payer.address, 12_500_000n);
  const named = await api.payer(created.body.id, payer.address);
  expect(named.status, JSON.stringify(named.body)).toBe(200);
  return { id: created.body.id as string, transactionId: named.body.session.transactionId as string, payer };
}

describe('a processing session never funded', () => {
  it('expires past expiresAt once nothing can lock it; not while a relay is in flight or a window is open', async () => {
    const lapsed = await processing();
    const windowOpen = await processing();
    const inFlight = await processing();
    // The in-flight one: signed and relayed, its lock not mined yet (automine off).
    const test = testClientOf(e.world);
    await test.setAutomine(false);
    try {
      const signature = await signCheckout(inFlight.payer, (await page(inFlight.id)).payment.typedData);
      const sent = await call(e.svc.url, 'POST', `/api/v2/checkout/sessions/${inFlight.id}/authorization`, { body: { signature } });
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);

      // All three past their expiry in one statement (the worker sees them in one pass); the lapsed
      // and in-flight ones' transactions two hours old, so their first authorization window (an hour) closed.
      await e.sql`update checkout_sessions set expires_at = now() - interval '1 second', updated_at = now() - interval '1 hour'
        where id in (${lapsed.id}, ${windowOpen.id}, ${inFlight.id})`;
      await e.sql`update transactions set created_at = now() - interval '2 hours' where id in (${lapsed.transactionId}, ${inFlight.transactionId})`;

      await waitFor(async () => (await sessionRow(e.sql, lapsed.id))?.status === 'expired', 'the lapsed session expired');
      expect(await sessionEvents(e.sql, lapsed.id)).toEqual([
        expect.objectContaining({
          type: 'checkout.session.expired',
          payload: expect.objectContaining({
            data: { session: expect.objectContaining({ id: lapsed.id, status: 'expired', transactionId: lapsed.transactionId }) },
          }),
        }),
      ]);
      expect((await page(lapsed.id)).session.status).toBe('expired');
      const refused = await call(e.svc.url, 'POST', `/api/v2/checkout/sessions/${lapsed.id}/authorization`, {
        body: { signature: `0x${'11'.repeat(65)}` },
      });
      expect(refused.status).toBe(409);

      // The other two were looked at by the pass that expired the first (updated_at moved) and stay processing.
      const [open, flying] = await e.sql<Loose[]>`select id, status, updated_at > now() - interval '1 minute' as looked_at
        from checkout_sessions where id in (${windowOpen.id}, ${inFlight.id}) order by (id = ${inFlight.id})`;
      expect(open).toMatchObject({ status: 'processing', looked_at: true });
      expect(flying).toMatchObject({ status: 'processing', looked_at: true });
      expect(await sessionEvents(e.sql, windowOpen.id)).toEqual([]);
      expect(await sessionEvents(e.sql, inFlight.id)).toEqual([]);

      // The lock lands after the session's expiry: it completes, never expired.
      await test.mine({ blocks: 1 });
    } finally {
      await test.setAutomine(true);
    }
    await waitFor(async () => (await sessionRow(e.sql, inFlight.id))?.status === 'complete', 'the in-flight session completed', 30_000);
    expect((await sessionEvents(e.sql, inFlight.id)).map((ev) => ev.type)).toEqual(['checkout.session.completed']);

    // The window-open one expires once its window closes too.
    await e.sql`update transactions set created_at = now() - interval '2 hours' where id = ${windowOpen.transactionId}`;
    await waitFor(async () => (await sessionRow(e.sql, windowOpen.id))?.status === 'expired', 'the window-open session expired');
    expect((await sessionEvents(e.sql, windowOpen.id)).map((ev) => ev.type)).toEqual(['checkout.session.expired']);
  });
});

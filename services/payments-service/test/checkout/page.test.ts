import { fileFixture } from '@holdfast/test-fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundlePage } from '../../scripts/bundle-page.js';
import { platformWithCredentials, RECEIVER, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { checkoutClient } from '../support/checkout.js';
import { signCheckout } from '../support/checkout-wallet.js';
import { call, type Loose } from '../support/harness.js';
import { newPayer, relayerNonce } from '../support/relayer.js';

// The hosted page's two public calls beside the payer call (docs/checkout.md, "The hosted page"):
// GET …/page (what the page shows and signs) and POST …/authorization (the payer's signature,
// relayed for the session's transaction without the platform's credential), and the page itself
// (`/pay/{id}`: the built shell with its CSP). Real API, PostgreSQL and anvil; every refusal is
// counted on the relayer's nonce (nothing sent).

const e = fileFixture(() => startChainPaymentsEnv({ CHECKOUT_EXPIRY_INTERVAL: '1h', RELAYER_POLL_INTERVAL: '100ms' }));
let p: Awaited<ReturnType<typeof platformWithCredentials>>;
let api: ReturnType<typeof checkoutClient>;

beforeAll(async () => {
  await bundlePage();
  p = await platformWithCredentials(e, 'Acme Shop');
  api = checkoutClient(e.svc.url);
}, 60_000);

const page = (id: string) => call(e.svc.url, 'GET', `/api/v2/checkout/sessions/${id}/page`);
const authorize = (id: string, signature: string) =>
  call(e.svc.url, 'POST', `/api/v2/checkout/sessions/${id}/authorization`, { body: { signature } });

async function session(extra: Loose = {}) {
  const created = await api.create(p.token, {
    amount: '12.5',
    toAddress: RECEIVER,
    successUrl: 'https://shop.example/thanks',
    cancelUrl: 'https://shop.example/cart',
    metadata: { order: 'secret-order-7' },
    customerId: 'cust-secret-9',
    ...extra,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

/** A payer with `funds` base units of MockUSDC and no ETH, named on a new session. */
async function named(funds = 12_500_000n) {
  const payer = newPayer();
  if (funds > 0n) await e.world.mint(payer.address, funds);
  const id = await session();
  const res = await api.payer(id, payer.address);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { payer, id, data: (await page(id)).body };
}

describe('GET /api/v2/checkout/sessions/{id}/page', () => {
  it('before a payer: the session as the payer sees it, the platform name, the chain; never metadata, customer id or credentials', async () => {
    const id = await session();
    const res = await page(id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      session: { id, status: 'open', amount: '12.5', currency: 'USDC', toAddress: RECEIVER, fromAddress: null, transactionId: null },
      escrow: null,
      platform: { name: 'Acme Shop', logoUrl: null },
      wallets: { walletConnectProjectId: null, allowedNetworks: [] },
      chain: { id: e.world.anvil.chainId, name: 'Base Sepolia' },
      payment: null,
    });
    const text = JSON.stringify(res.body);
    for (const secret of ['secret-order-7', 'cust-secret-9', p.platformId, p.token]) expect(text).not.toContain(secret);
  });

  it('after the payer: the transaction, the payer’s balance and the ReceiveWithAuthorization to sign in the token’s own domain', async () => {
    const { payer, data } = await named();
    expect(data.session.status).toBe('processing');
    expect(data.payment).toMatchObject({
      transactionStatus: 'pending_user_action',
      amountBaseUnits: '12500000',
      balanceBaseUnits: '12500000',
      relay: null,
    });
    const typed = data.payment.typedData;
    expect(typed.domain).toMatchObject({ chainId: e.world.anvil.chainId, verifyingContract: e.world.usdc });
    expect(typed.types.EIP712Domain.map((f: Loose) => f.name)).toEqual(Object.keys(typed.domain));
    expect(typed.message).toMatchObject({ from: payer.address, to: e.world.escrow, value: '12500000' });
    expect(Number(typed.message.validBefore) - Number(typed.message.validAfter)).toBe(3660);
    expect(data.escrow).toMatchObject({ contractAddress: e.world.escrow, amountBaseUnits: '12500000' });
  });

  it('an unknown session is 404; a malformed id 400', async () => {
    expect((await page('01890000-0000-7000-8000-000000000000')).status).toBe(404);
    const bad = await page('nope');
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('POST /api/v2/checkout/sessions/{id}/authorization', () => {
  it('relays the payer’s one signature for the platform’s transaction (202), the same again 200 and nothing sent twice, then complete', async () => {
    const { payer, id, data } = await named();
    const signature = await signCheckout(payer, data.payment.typedData);
    const nonce = await relayerNonce(e.world);
    const res = await authorize(id, signature);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    // Sent: still in flight, or already mined when the relayer worker was quicker than the answer.
    expect(['submitted', 'mined']).toContain(res.body.payment.relay.status);
    expect(JSON.stringify(res.body)).not.toContain('secret-order-7');
    const again = await authorize(id, signature);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.payment.relay.txHash).toBe(res.body.payment.relay.txHash);
    const done = await waitFor(
      async () => ((await page(id)).body.session.status === 'complete' ? (await page(id)).body : null),
      'complete',
      30_000,
    );
    expect(done.payment).toMatchObject({ transactionStatus: 'escrowed', typedData: null });
    expect(await relayerNonce(e.world)).toBe(nonce + 1);
    expect(await e.world.publicClient.getBalance({ address: payer.address })).toBe(0n);
  });

  it('a signature by another key: 422 invalid_signature, nothing sent', async () => {
    const { id, data } = await named();
    const nonce = await relayerNonce(e.world);
    const res = await authorize(id, await signCheckout(newPayer(), data.payment.typedData));
    expect([res.status, res.body.error.code, res.body.error.details.reason]).toEqual([422, 'AUTHORIZATION_REFUSED', 'invalid_signature']);
    expect(await relayerNonce(e.world)).toBe(nonce);
  });

  it('a payer holding too little: the page shows the balance, the signature is refused with insufficient_balance, nothing sent', async () => {
    const { payer, id, data } = await named(2_000_000n);
    expect(data.payment.balanceBaseUnits).toBe('2000000');
    const nonce = await relayerNonce(e.world);
    const res = await authorize(id, await signCheckout(payer, data.payment.typedData));
    expect([res.status, res.body.error.details.reason]).toEqual([422, 'insufficient_balance']);
    expect(await relayerNonce(e.world)).toBe(nonce);
    expect(await e.sql`select 1 from relayed_locks where transaction_id = ${data.session.transactionId}`).toEqual([]);
  });

  it('no payer yet, an expired session, an unknown one, a malformed signature: 409, 409, 404, 400', async () => {
    const sig = `0x${'11'.repeat(65)}`;
    const open = await session();
    const noPayer = await authorize(open, sig);
    expect([noPayer.status, noPayer.body.error.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
    expect((await api.expire(p.token, open)).status).toBe(200);
    const expired = await authorize(open, sig);
    expect([expired.status, expired.body.error.details.status]).toEqual([409, 'expired']);
    expect((await page(open)).body.session.status).toBe('expired');
    expect((await authorize('01890000-0000-7000-8000-000000000000', sig)).status).toBe(404);
    const bad = await authorize(open, 'nope');
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });
});

describe('GET /pay/{id}', () => {
  it('the built shell with a strict Content-Security-Policy header and no inline script; its script and style from this origin', async () => {
    const id = await session();
    const res = await fetch(`${e.svc.url}/pay/${id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    // A platform with no workspace WalletConnect projectId: no third-party host (docs/checkout.md "Wallet choices").
    expect(csp).not.toMatch(/walletconnect|frame-src|wss:/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]![2]!.trim()).toBe('');
    const src = /src="([^"]+)"/.exec(scripts[0]![1]!)![1]!;
    expect(src).toMatch(/^\/pay\/assets\/page-[0-9A-Z]{8}\.js$/);
    const js = await fetch(`${e.svc.url}${src}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('text/javascript');
    expect(js.headers.get('cache-control')).toContain('immutable');
    // The chunk the script imports is preloaded beside it; the WalletConnect client is not named by the shell.
    const preloads = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]!);
    for (const href of preloads) {
      expect(href).toMatch(/^\/pay\/assets\/chunk-[0-9A-Z]{8}\.js$/);
      expect((await fetch(`${e.svc.url}${href}`)).status).toBe(200);
    }
    expect(html).not.toContain('walletconnect');
    const client = /walletconnect-client-[0-9A-Z]{8}\.js/.exec(await js.text())?.[0];
    expect(client).toBeDefined();
    const chunk = await fetch(`${e.svc.url}/pay/assets/${client}`);
    expect([chunk.status, chunk.headers.get('cache-control')]).toEqual([200, 'public, max-age=31536000, immutable']);
    // A link to no session gets the strict policy too (its page says "not found").
    const unknown = await fetch(`${e.svc.url}/pay/01890000-0000-7000-8000-000000000000`);
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get('content-security-policy')).toBe(csp);
    expect((await fetch(`${e.svc.url}/pay/assets/nothing.js`)).status).toBe(404);
    const bad = await fetch(`${e.svc.url}/pay/not-an-id`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Loose).error.code).toBe('VALIDATION_ERROR');
  });
});

import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PAYMENTS_COMMANDS } from '@holdfast/contracts';
import { sendCommand } from '@holdfast/messaging';
import { fileFixture, type Receiver, startReceiver } from '@holdfast/test-fixtures';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { createWalletClient, http, type LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePage } from '../../scripts/bundle-page.js';
import { LOCAL_RELAYER_KEY } from '../../src/config.js';
import { RECEIVER, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { checkoutClient } from '../support/checkout.js';
import { answer, type RemoteWallet, remoteWallet, type TestWallet, testWallet, WalletError } from '../support/checkout-test-wallets.js';
import { startDispatcherFor } from '../support/dispatcher.js';
import { bearer, call, key, type Loose, newPlatform, type Running, tokenFor } from '../support/harness.js';
import { newPayer, RELAYER, relayerNonce, testClientOf } from '../support/relayer.js';
import { type RelayStandIn, startRelayStandIn } from '../support/walletconnect-relay.js';

// The hosted payer page in a real Chromium (Debian's, driven by playwright-core: ADR 46) against
// the real payments-service, webhook-dispatcher, PostgreSQL, NATS and anvil. The wallet is a test
// wallet injected into the page as an EIP-1193 provider announced by EIP-6963; its `request` calls
// back into Node, which signs with a viem local account (a fresh key holding MockUSDC and no ETH).
// Each state the page shows is screenshotted (docs/checkout/ with HOLDFAST_WRITE_SCREENSHOTS=1).
// WalletConnect: the page's WebSocket to wss://relay.walletconnect.org (allowed by that session's
// CSP) is routed by Playwright to the local stand-in relay (support/walletconnect-relay.ts), where a
// wallet-side sign client (support/checkout-test-wallets.ts) pairs with the URI the page shows, as a phone would.

const CHROMIUM = process.env.HOLDFAST_CHROMIUM ?? '/usr/bin/chromium';
// Into docs/checkout/ with HOLDFAST_WRITE_SCREENSHOTS=1 (as HOLDFAST_WRITE_OPENAPI rewrites the API
// documents); otherwise into a temporary folder, so that a test run leaves the checkout unchanged.
const SHOTS =
  process.env.HOLDFAST_WRITE_SCREENSHOTS === '1'
    ? join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'checkout')
    : join(tmpdir(), 'holdfast-checkout-screenshots');
const AMOUNT = 12_500_000n;

const e = fileFixture(() => startChainPaymentsEnv({ CHECKOUT_EXPIRY_INTERVAL: '1h', RELAYER_POLL_INTERVAL: '100ms' }));
let p: { platformId: string; apiKey: string; token: string };
let api: ReturnType<typeof checkoutClient>;
let context: BrowserContext;
let profile: string;
let shop: Receiver;
let dispatcher: Running | undefined;
let relay: RelayStandIn;
const remotes: RemoteWallet[] = [];
const PROJECT_ID = 'c0ffee00c0ffee00c0ffee00c0ffee00';
// The page in Chromium and the phone's wallet in Node: the wallet's core is its own (in a page, one per process).
process.env.DISABLE_GLOBAL_CORE = 'true';

/** The payer's wallet in Node (support/checkout-test-wallets.ts), on the page's chain. */
const walletOf = (account: LocalAccount = newPayer()): TestWallet => testWallet(account, e.world.anvil.chainId, [e.world.anvil.chainId]);

/** Announces the provider as EIP-6963 says, on load and on every request; `request` goes to Node. */
const WALLET_SCRIPT = `(() => {
  const provider = {
    request: ({ method, params }) =>
      window.__testWallet(JSON.stringify({ method, params: params ?? [] })).then((text) => {
        const out = JSON.parse(text);
        if (out.error) throw Object.assign(new Error(out.error.message), { code: out.error.code });
        return out.result;
      }),
    on() {}, removeListener() {},
  };
  const icon = 'data:image/svg+xml;base64,' + btoa('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="6" fill="#f6851b"/></svg>');
  const detail = Object.freeze({ info: { uuid: '3b1f6c1e-2f7a-4c39-9a0e-7d1c0f0a6e51', name: 'Test Wallet', icon, rdns: 'test.holdfast.wallet' }, provider });
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
})();`;

/** A tab on the session's page with `wallet` injected (none: a browser without a wallet). */
async function open(sessionId: string, wallet: TestWallet | null): Promise<Page> {
  const page = await context.newPage();
  if (!wallet) {
    await page.goto(`${e.svc.url}/pay/${sessionId}`);
    return page;
  }
  await page.exposeFunction('__testWallet', async (text: string) => {
    const { method, params } = JSON.parse(text) as { method: string; params: unknown[] };
    try {
      return JSON.stringify({ result: await answer(wallet, method, params) });
    } catch (error) {
      return JSON.stringify({ error: { code: error instanceof WalletError ? error.code : -32603, message: String(error) } });
    }
  });
  await page.addInitScript(WALLET_SCRIPT);
  await page.goto(`${e.svc.url}/pay/${sessionId}`);
  return page;
}

const state = (page: Page, name: string) => page.waitForSelector(`main[data-state="${name}"]`, { timeout: 30_000 });
const shot = (page: Page, name: string) => page.locator('main').screenshot({ path: join(SHOTS, `${name}.png`) });
const chooseWallet = (page: Page) => page.getByRole('button', { name: 'Test Wallet' }).click();
const payButton = (page: Page) => page.getByRole('button', { name: /^Pay / });
const relaysOf = (transactionId: string) => e.sql<Loose[]>`select * from relayed_locks where transaction_id = ${transactionId}`;

async function session(extra: Loose = {}, token = p.token) {
  const created = await api.create(token, {
    amount: '12.5',
    toAddress: RECEIVER,
    successUrl: shop.url(`/thanks?order=${Math.random().toString(36).slice(2)}`),
    cancelUrl: shop.url('/cart'),
    metadata: { order: 'A-1' },
    ...extra,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; successUrl: string };
}

/** A payer holding `funds` of MockUSDC and zero ETH. */
async function funded(funds = AMOUNT) {
  const wallet = walletOf();
  if (funds > 0n) await e.world.mint(wallet.account.address, funds);
  expect(await e.world.publicClient.getBalance({ address: wallet.account.address })).toBe(0n);
  return wallet;
}

async function sessionRow(id: string) {
  const [row] = await e.sql<Loose[]>`select status, transaction_id from checkout_sessions where id = ${id}`;
  return row!;
}

/** Clicks Pay and waits for the page to land on the session's successUrl. */
async function payAndLand(page: Page, s: { successUrl: string }, options: { shot?: string } = {}) {
  await payButton(page).click();
  await state(page, 'paid');
  if (options.shot) await shot(page, options.shot);
  await page.waitForURL(s.successUrl, { timeout: 30_000 });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: ./scripts/test installs Debian's chromium, or set HOLDFAST_CHROMIUM`);
  await Promise.all([bundlePage(), mkdir(SHOTS, { recursive: true })]);
  shop = await startReceiver((request) => ({
    status: 200,
    ...(request.path.startsWith('/thanks') ? { headers: { 'content-type': 'text/html' }, body: '<h1>Thank you</h1>' } : {}),
  }));
  [p, dispatcher] = await Promise.all([
    newPlatform(e, {
      name: 'Acme Shop',
      scopes: ['read:transactions', 'write:transactions', 'read:webhooks', 'write:webhooks'],
      clientScopes: ['read:transactions', 'write:transactions', 'move:transactions'],
    }),
    startDispatcherFor(e.db, e.nats, { WEBHOOK_RETRY_SCHEDULE: '1s' }),
  ]);
  api = checkoutClient(e.svc.url);
  relay = await startRelayStandIn();
  profile = await mkdtemp(join(tmpdir(), 'holdfast-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 460, height: 720 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // WalletConnect's relay, routed to the stand-in (the CSP is checked before: a page whose CSP
  // does not name the relay never gets here); its other hosts are out of reach, as offline.
  await context.routeWebSocket(/^wss:\/\/relay\.walletconnect\.(org|com)\//, (ws) => {
    const url = new URL(ws.url());
    // A bridge from the page's socket to the stand-in (Playwright connects only to the URL itself).
    const upstream = new WebSocket(`${relay.url}${url.pathname}${url.search}`);
    const early: string[] = [];
    upstream.onopen = () => {
      for (const m of early.splice(0)) upstream.send(m);
    };
    upstream.onmessage = (event) => ws.send(String(event.data));
    upstream.onclose = () => void ws.close().catch(() => {});
    ws.onMessage((m) => {
      const text = typeof m === 'string' ? m : m.toString();
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else early.push(text);
    });
    ws.onClose(() => upstream.close());
  });
  await context.route(/^https:\/\/[a-z]+\.walletconnect\.(org|com)\//, (route) => route.abort());
}, 120_000);

afterAll(async () => {
  await context?.close();
  for (const r of remotes) await r.close();
  await relay?.close();
  await dispatcher?.stop();
  await shop?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe('the hosted page in Chromium', () => {
  it('a payer with MockUSDC and zero ETH pays with exactly one signature: escrowed, the webhook arrives, the page lands on successUrl', async () => {
    const hook = await call(e.svc.url, 'POST', '/api/v1/webhooks', {
      headers: key(p.apiKey),
      body: { url: shop.url('/webhook'), eventTypes: ['checkout.session.completed'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const s = await session();
    const wallet = await funded();
    const nonce = await relayerNonce(e.world);
    const page = await open(s.id, wallet);
    await state(page, 'choose-wallet');
    expect(await page.locator('#platform').textContent()).toBe('Acme Shop');
    expect(await page.locator('#amount').textContent()).toBe('12.50 USDC');
    await shot(page, 'choose-wallet');
    await chooseWallet(page);
    await state(page, 'ready');
    // The escrow's own terms (docs/checkout.md "What the payer reads"): rescind during the hold, release after it.
    expect(await page.locator('#terms').textContent()).toMatch(
      /^(No hold: once locked, Acme Shop can release the payment to 0x\w{4}…\w{4} at any time, and it cannot be taken back\.|Held in escrow until .+ UTC: until then you can take it back \(rescind\) from your wallet, and 0x\w{4}…\w{4} is paid earlier only if you both agree\. After that Acme Shop can release it to 0x\w{4}…\w{4}, unless a dispute holds it\.)$/,
    );
    await shot(page, 'ready');
    wallet.beforeSign = async () => {
      await state(page, 'signing');
      await shot(page, 'signing');
    };
    await payAndLand(page, s, { shot: 'paid' });
    expect(await page.locator('h1').textContent()).toBe('Thank you');

    expect(wallet.signatures).toBe(1);
    expect(wallet.requests.filter((m) => m === 'eth_signTypedData_v4')).toHaveLength(1);
    const row = await sessionRow(s.id);
    expect(row.status).toBe('complete');
    const tx = await call(e.svc.url, 'GET', `/api/v2/transactions/${row.transaction_id}`, { headers: bearer(p.token) });
    expect(tx.body).toMatchObject({ status: 'escrowed', fromAddress: wallet.account.address });
    expect(await relayerNonce(e.world)).toBe(nonce + 1);
    expect(await e.world.balance(wallet.account.address)).toBe(0n);
    expect(await e.world.publicClient.getBalance({ address: wallet.account.address })).toBe(0n);
    const delivered = await waitFor(async () => shop.received('/webhook')[0], 'the checkout.session.completed webhook', 30_000);
    expect(JSON.parse(delivered.body)).toMatchObject({
      type: 'checkout.session.completed',
      data: { session: { id: s.id, status: 'complete', transactionId: row.transaction_id } },
    });
    await page.close();
  });

  it('live status: connecting, then waiting for the chain until the relayed lock is mined, then paid', async () => {
    const s = await session();
    const wallet = await funded();
    const page = await open(s.id, wallet);
    await state(page, 'choose-wallet');
    wallet.beforeAccounts = async () => {
      wallet.beforeAccounts = undefined;
      await state(page, 'connecting');
      await shot(page, 'connecting');
    };
    await chooseWallet(page);
    await state(page, 'ready');
    const test = testClientOf(e.world);
    await test.setAutomine(false);
    try {
      await payButton(page).click();
      await state(page, 'waiting');
      await shot(page, 'waiting');
      expect((await sessionRow(s.id)).status).toBe('processing');
      await test.mine({ blocks: 1 });
    } finally {
      await test.setAutomine(true);
    }
    await state(page, 'paid');
    await page.waitForURL(s.successUrl);
    expect(wallet.signatures).toBe(1);
    await page.close();
  });

  it('no wallet in the browser, and a link to no session: each says what to do', async () => {
    const s = await session();
    const page = await open(s.id, null);
    await state(page, 'no-wallet');
    expect(await page.locator('#status').textContent()).toContain('Install a browser wallet');
    await shot(page, 'no-wallet');
    await page.goto(`${e.svc.url}/pay/01890000-0000-7000-8000-000000000000`);
    await state(page, 'not-found');
    await shot(page, 'not-found');
    await page.close();
  });

  it('an expired session: says so and leads back to the platform; nothing can be paid', async () => {
    const s = await session();
    expect((await api.expire(p.token, s.id)).status).toBe(200);
    const wallet = await funded();
    const page = await open(s.id, wallet);
    await state(page, 'expired');
    expect(await page.locator('#status').textContent()).toContain('Ask Acme Shop for a new payment link');
    expect(await page.getByRole('link', { name: 'Back to Acme Shop' }).getAttribute('href')).toBe(shop.url('/cart'));
    await shot(page, 'expired');
    expect(wallet.requests).toEqual([]);
    await page.close();
  });

  it('balance too low: a clear message and nothing submitted; once funded, checking again pays', async () => {
    const s = await session();
    const wallet = await funded(2_000_000n);
    const nonce = await relayerNonce(e.world);
    const page = await open(s.id, wallet);
    await state(page, 'choose-wallet');
    await chooseWallet(page);
    await state(page, 'low-balance');
    expect(await page.locator('#status').textContent()).toContain('holds 2.00 USDC; this payment needs 12.50 USDC');
    await shot(page, 'low-balance');
    expect(wallet.requests).not.toContain('eth_signTypedData_v4');
    expect(await relayerNonce(e.world)).toBe(nonce);
    expect(await relaysOf((await sessionRow(s.id)).transaction_id)).toEqual([]);

    await e.world.mint(wallet.account.address, AMOUNT);
    await page.getByRole('button', { name: 'Check again' }).click();
    await state(page, 'ready');
    await payAndLand(page, s);
    expect(wallet.signatures).toBe(1);
    await page.close();
  });

  it('signature declined: says nothing was paid; signing again pays', async () => {
    const s = await session();
    const wallet = await funded();
    wallet.decline = 1;
    const page = await open(s.id, wallet);
    await state(page, 'choose-wallet');
    await chooseWallet(page);
    await state(page, 'ready');
    await payButton(page).click();
    await state(page, 'declined');
    expect(await page.locator('#status').textContent()).toContain('You declined the signature');
    await shot(page, 'declined');
    expect(await relaysOf((await sessionRow(s.id)).transaction_id)).toEqual([]);
    await page.getByRole('button', { name: 'Try again' }).click();
    await state(page, 'paid');
    await page.waitForURL(s.successUrl);
    expect(wallet.signatures).toBe(1);
    expect(wallet.requests.filter((m) => m === 'eth_signTypedData_v4')).toHaveLength(2);
    await page.close();
  });

  it('the wallet on another chain: asked to switch, switched, then pays', async () => {
    const s = await session();
    const wallet = await funded();
    wallet.chainId = 1;
    const page = await open(s.id, wallet);
    await state(page, 'choose-wallet');
    await chooseWallet(page);
    await state(page, 'wrong-chain');
    expect(await page.locator('#status').textContent()).toContain('Your wallet is on another network');
    await shot(page, 'wrong-chain');
    // Nothing is named on the server before the wallet is on the session's chain.
    expect((await sessionRow(s.id)).status).toBe('open');
    await page.getByRole('button', { name: /^Switch to / }).click();
    await state(page, 'ready');
    expect(wallet.chainId).toBe(e.world.anvil.chainId);
    expect(wallet.requests).toContain('wallet_switchEthereumChain');
    await payAndLand(page, s);
    await page.close();
  });

  it('a double click asks for one signature and locks once; the same signature replayed answers the same relay, nothing sent', async () => {
    const s = await session();
    const wallet = await funded();
    const nonce = await relayerNonce(e.world);
    const page = await open(s.id, wallet);
    await state(page, 'choose-wallet');
    await chooseWallet(page);
    await state(page, 'ready');
    await payButton(page).dblclick();
    await state(page, 'paid');
    await page.waitForURL(s.successUrl);
    expect(wallet.signatures).toBe(1);
    const { transaction_id: transactionId } = await sessionRow(s.id);
    const relays = await relaysOf(transactionId);
    expect(relays).toHaveLength(1);
    expect(await relayerNonce(e.world)).toBe(nonce + 1);

    const data = (await call(e.svc.url, 'GET', `/api/v2/checkout/sessions/${s.id}/page`)).body;
    expect(data.payment.typedData).toBeNull();
    const replay = await call(e.svc.url, 'POST', `/api/v2/checkout/sessions/${s.id}/authorization`, {
      body: { signature: relays[0]!.request.signature },
    });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.body.payment.relay.txHash).toBe(relays[0]!.mined_hash ?? relays[0]!.tx_hash);
    expect(await relaysOf(transactionId)).toHaveLength(1);
    expect(await relayerNonce(e.world)).toBe(nonce + 1);
    await page.close();
  });

  it('a session paid from two tabs: one pays, the other says it is already paid and asks for no signature', async () => {
    const s = await session();
    const wallet = await funded();
    const [first, second] = [await open(s.id, wallet), await open(s.id, wallet)];
    for (const tab of [first, second]) {
      await state(tab, 'choose-wallet');
      await chooseWallet(tab);
      await state(tab, 'ready');
    }
    await payAndLand(first, s);
    await payButton(second).click();
    await state(second, 'taken');
    expect(await second.locator('#status').textContent()).toContain('This payment is already made');
    await shot(second, 'taken');
    expect(wallet.signatures).toBe(1);
    expect(await relaysOf((await sessionRow(s.id)).transaction_id)).toHaveLength(1);
    await first.close();
    await second.close();
  });

  it('another account than the one paying: says which account the payment is for', async () => {
    const s = await session();
    const payer = await funded();
    expect((await api.payer(s.id, payer.account.address)).status).toBe(200);
    const other = await funded();
    const page = await open(s.id, other);
    await state(page, 'choose-wallet');
    await chooseWallet(page);
    await state(page, 'wrong-account');
    expect(await page.locator('#status').textContent()).toContain(payer.account.address.slice(0, 6));
    await shot(page, 'wrong-account');
    expect(other.requests).not.toContain('eth_signTypedData_v4');
    await page.close();
  });

  it('a relay that failed on chain (its nonce went to another transaction): nothing paid; trying again signs once more and locks once', async () => {
    const s = await session();
    const wallet = await funded();
    const test = testClientOf(e.world);
    const page = await open(s.id, wallet);
    await state(page, 'choose-wallet');
    await chooseWallet(page);
    await state(page, 'ready');
    const transactionId = (await sessionRow(s.id)).transaction_id;
    await test.setAutomine(false);
    try {
      await payButton(page).click();
      await state(page, 'waiting');
      const [first] = await relaysOf(transactionId);
      // Another transaction of the relayer's key takes the relay's account nonce (higher fees replace it in the pool).
      const relayerWallet = createWalletClient({ account: privateKeyToAccount(LOCAL_RELAYER_KEY), transport: http(e.world.anvil.rpcUrl) });
      await relayerWallet.sendTransaction({
        chain: null,
        to: RELAYER,
        value: 0n,
        gas: 21_000n,
        nonce: Number(first!.account_nonce),
        maxFeePerGas: BigInt(first!.max_fee_per_gas) * 2n,
        maxPriorityFeePerGas: BigInt(first!.max_priority_fee_per_gas) * 2n + 1n,
      });
      await test.mine({ blocks: 1 });
      await waitFor(async () => (await relaysOf(transactionId))[0]?.status === 'failed', 'the relay marked failed');
    } finally {
      await test.setAutomine(true);
    }
    await state(page, 'failed');
    expect(await page.locator('#status').textContent()).toContain('Nothing was paid');
    await shot(page, 'failed');
    expect(await e.world.balance(wallet.account.address)).toBe(AMOUNT);
    await page.getByRole('button', { name: 'Try again' }).click();
    await state(page, 'ready');
    await payAndLand(page, s);
    // A second signature (a window of its own: new bytes, a new relay), and one lock on chain.
    expect(wallet.signatures).toBe(2);
    expect((await relaysOf(transactionId)).map((r) => r.status).sort()).toEqual(['failed', 'mined']);
    expect(await e.world.balance(wallet.account.address)).toBe(0n);
    expect((await sessionRow(s.id)).status).toBe('complete');
    const tx = await call(e.svc.url, 'GET', `/api/v2/transactions/${transactionId}`, { headers: bearer(p.token) });
    expect(tx.body).toMatchObject({ status: 'escrowed' });
    await page.close();
  }, 90_000);

  it('the relayer unavailable (it cannot pay the gas): nothing paid, try again later; trying again with the same signature pays', async () => {
    const s = await session();
    const wallet = await funded();
    const test = testClientOf(e.world);
    const gas = await e.world.publicClient.getBalance({ address: RELAYER });
    await test.setBalance({ address: RELAYER, value: 0n });
    try {
      const page = await open(s.id, wallet);
      await state(page, 'choose-wallet');
      await chooseWallet(page);
      await state(page, 'ready');
      await payButton(page).click();
      await state(page, 'unavailable');
      expect(await page.locator('#status').textContent()).toContain('Nothing was paid');
      await shot(page, 'unavailable');
      expect(await relaysOf((await sessionRow(s.id)).transaction_id)).toEqual([]);
      await test.setBalance({ address: RELAYER, value: gas });
      await page.getByRole('button', { name: 'Try again' }).click();
      await state(page, 'paid');
      await page.waitForURL(s.successUrl);
      expect(wallet.signatures).toBe(1);
      await page.close();
    } finally {
      await test.setBalance({ address: RELAYER, value: gas });
    }
  });
  /** A platform of a workspace whose external wallet configs payments got (the command workspace-service sends). */
  async function workspacePlatform(projectId: string | null) {
    const workspaceId = randomUUID();
    const cred = await sendCommand(e.nats.bus, PAYMENTS_COMMANDS.issueSandboxCredentials, { workspaceId, name: 'Acme Shop' });
    const settings = { appName: 'Acme Shop', ...(projectId ? { projectId } : {}), allowedNetworks: [], allowedTemplateIds: [] };
    const set = await sendCommand(e.nats.bus, PAYMENTS_COMMANDS.setCheckoutWalletSettings, {
      workspaceId,
      settings,
      asOf: new Date().toISOString(),
    });
    expect(set.applied).toBe(true);
    return { token: await tokenFor(e.svc.url, cred.oauthClient) };
  }

  it('a workspace with a WalletConnect projectId: the payer picks WalletConnect, scans its code with a phone wallet on another chain, switches and pays with one signature', async () => {
    const w = await workspacePlatform(PROJECT_ID);
    const s = await session({}, w.token);
    const wallet = testWallet(newPayer(), 1, [1, e.world.anvil.chainId]);
    await e.world.mint(wallet.account.address, AMOUNT);
    const remote = await remoteWallet({ relayUrl: relay.url, projectId: PROJECT_ID, wallet });
    remotes.push(remote);
    const nonce = await relayerNonce(e.world);
    const page = await context.newPage();
    const scripts: string[] = [];
    const violations: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    page.on('console', (m) => {
      if (m.text().includes('Content Security Policy')) violations.push(m.text());
    });
    const shell = await page.goto(`${e.svc.url}/pay/${s.id}`);
    const csp = (await shell!.allHeaders())['content-security-policy']!;
    expect(csp).toContain(
      "connect-src 'self' wss://relay.walletconnect.org wss://relay.walletconnect.com https://verify.walletconnect.org https://verify.walletconnect.com",
    );
    expect(csp).toContain('frame-src https://verify.walletconnect.org https://verify.walletconnect.com');
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe');

    // No wallet in this browser: WalletConnect is the one choice, and its client is not loaded yet.
    await state(page, 'choose-wallet');
    const choice = page.locator('button[data-connector="walletconnect"]');
    expect(await choice.textContent()).toBe('WalletConnect');
    expect(scripts.filter((path) => path.includes('walletconnect-client-'))).toEqual([]);
    await shot(page, 'choose-walletconnect');
    await choice.click();
    await state(page, 'pairing');
    expect(scripts.filter((path) => /^\/pay\/assets\/walletconnect-client-[0-9A-Z]{8}\.js$/.test(path))).toHaveLength(1);
    const uri = await page.locator('#pairing-uri').inputValue();
    expect(uri).toMatch(/^wc:[0-9a-f]{64}@2\?.*relay-protocol=irn.*symKey=[0-9a-f]{64}/);
    expect(await page.locator('canvas.qr').count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Open in a wallet on this device' }).getAttribute('href')).toBe(uri);
    await shot(page, 'walletconnect-pairing');

    // The payer scans it: the wallet approves on its chain (1); the page asks to switch, then pays.
    await remote.pair(uri);
    await state(page, 'wrong-chain');
    await page.getByRole('button', { name: /^Switch to / }).click();
    await state(page, 'ready');
    await payAndLand(page, s);
    expect(wallet.signatures).toBe(1);
    expect(wallet.requests).toEqual(['wallet_switchEthereumChain', 'eth_signTypedData_v4']);
    expect(remote.proposals).toEqual([
      { origin: e.svc.url, chains: [`eip155:${e.world.anvil.chainId}`], methods: ['eth_signTypedData_v4', 'wallet_switchEthereumChain'] },
    ]);
    expect(relay.connections.some((u) => u.searchParams.get('projectId') === PROJECT_ID)).toBe(true);
    const row = await sessionRow(s.id);
    expect(row.status).toBe('complete');
    const tx = await call(e.svc.url, 'GET', `/api/v2/transactions/${row.transaction_id}`, { headers: bearer(w.token) });
    expect(tx.body).toMatchObject({ status: 'escrowed', fromAddress: wallet.account.address });
    expect(await relayerNonce(e.world)).toBe(nonce + 1);
    expect(await e.world.balance(wallet.account.address)).toBe(0n);
    expect(violations).toEqual([]);
    await page.close();
  }, 90_000);

  it('a workspace without a projectId: no WalletConnect choice, a CSP of this origin only, and no request to another host', async () => {
    const w = await workspacePlatform(null);
    const s = await session({}, w.token);
    const wallet = await funded();
    const hosts = new Set<string>();
    const page = await context.newPage();
    page.on('request', (r) => {
      if (/^(https?|wss?):/.test(r.url())) hosts.add(new URL(r.url()).origin);
    });
    await page.exposeFunction('__testWallet', async (text: string) => {
      const { method, params } = JSON.parse(text) as { method: string; params: unknown[] };
      return JSON.stringify({ result: await answer(wallet, method, params) });
    });
    await page.addInitScript(WALLET_SCRIPT);
    const shell = await page.goto(`${e.svc.url}/pay/${s.id}`);
    const csp = (await shell!.allHeaders())['content-security-policy']!;
    expect(csp).toContain("connect-src 'self';");
    expect(csp).not.toMatch(/walletconnect|frame-src|wss:/);
    await state(page, 'choose-wallet');
    expect(await page.locator('.wallets button').allTextContents()).toEqual(['Test Wallet']);
    expect(await page.locator('button[data-connector="walletconnect"]').count()).toBe(0);
    await chooseWallet(page);
    await state(page, 'ready');
    expect([...hosts]).toEqual([e.svc.url]);
    await page.close();
  });
});

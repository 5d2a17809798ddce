// The hosted payer page (`/pay/{id}`, docs/checkout.md "The hosted page"): vanilla TypeScript and
// the DOM, no framework, bundled by scripts/bundle-page.ts. It talks only to its own origin (CSP
// `connect-src 'self'`) unless the workspace configured WalletConnect: the server answers what to
// show and the typed data to sign, the wallet signs once, the server relays. Wallets are reached
// through the connector adapter (wallets/connector.ts): injected ones by EIP-6963, and
// WalletConnect v2 when the page data carries the workspace's projectId. Types come from
// @holdfast/contracts (types only: nothing of it is bundled).
import type { CheckoutPage, CheckoutPayment } from '@holdfast/contracts';
import { chainIdOf, type WalletAdapter, type WalletConnection, type WalletConnector } from './wallets/connector.js';
import { injectedAdapter } from './wallets/injected.js';
import { walletConnectAdapter } from './wallets/walletconnect.js';

interface ApiError {
  status: number;
  code: string;
  message: string;
  details: Record<string, unknown>;
}
type Answer<T> = { ok: true; status: number; body: T } | { ok: false; error: ApiError };

const sessionId = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
const main = document.getElementById('pay') as HTMLElement;
const statusBox = document.getElementById('status') as HTMLElement;
const byId = (id: string) => document.getElementById(id) as HTMLElement;

let data: CheckoutPage;
let connection: WalletConnection | null = null;
/** Stops the wallet discovery under way, and the events of the connection the page holds. */
let stopDiscovery: (() => void)[] = [];
let stopEvents: (() => void)[] = [];
/** Counts connection attempts: a pairing left for another wallet never takes over the page. */
let attempt = 0;
let account: string | null = null;
let signature: string | null = null;
let busy = false;

async function api<T>(path: string, body?: unknown): Promise<Answer<T>> {
  let res: Response;
  try {
    res = await fetch(`/api/v2/checkout/sessions/${encodeURIComponent(sessionId)}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    return { ok: false, error: { status: 0, code: 'NETWORK', message: '', details: {} } };
  }
  const json = (await res.json().catch(() => null)) as { error?: ApiError } | null;
  if (res.ok && json) return { ok: true, status: res.status, body: json as T };
  const e = json?.error;
  return { ok: false, error: { status: res.status, code: e?.code ?? 'UNKNOWN', message: e?.message ?? '', details: e?.details ?? {} } };
}

// ---------- rendering (text only: nothing the server or a wallet says is parsed as HTML) ----------

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function button(label: string, onClick: () => void, kind: 'primary' | 'secondary' = 'primary') {
  const b = el('button', { type: 'button', className: kind, textContent: label });
  b.addEventListener('click', () => {
    if (busy || b.disabled) return;
    b.disabled = true;
    onClick();
  });
  return b;
}

/** One state of the page: a title, a sentence, and the ways forward. */
function show(state: string, title: string, sentence: string, ...actions: Node[]) {
  main.dataset.state = state;
  statusBox.replaceChildren(el('h2', { textContent: title }), el('p', { className: 'note', textContent: sentence }), ...actions);
}

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

function decimals(amount: string, min = 2): string {
  const [whole, frac = ''] = amount.split('.');
  return `${whole}.${frac.padEnd(min, '0')}`;
}
function fromBaseUnits(units: string): string {
  const padded = units.padStart(7, '0');
  const frac = padded.slice(-6).replace(/0+$/, '');
  return decimals(`${padded.slice(0, -6)}${frac ? `.${frac}` : ''}`);
}
const money = () => `${decimals(data.session.amount)} ${data.session.currency}`;
// With its time zone: a payer reading "11:33" must know whose 11:33 it is.
const when = (iso: string) =>
  new Date(iso).toLocaleString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });

/**
 * The hold, rescind and release terms as HoldfastEscrow enforces them (packages/escrow, docs/checkout.md
 * "What the payer reads"): before the hold deadline only the sender can rescind, and the receiver is
 * paid early only if sender and receiver both agree; from the deadline the platform's attester may
 * release (or, in a dispute, split); with no hold the attester may release at once and there is no
 * rescind. `rescindAllowed: false` is the platform's rule, not the escrow's: the contract still lets
 * the sender rescind during the hold, so the page does not promise it cannot happen.
 */
function termsText(): string {
  const { holdDeadline, holdPeriodSeconds, rescindAllowed } = data.terms;
  const receiver = short(data.session.toAddress);
  const platform = data.platform.name;
  const deadline = holdDeadline ?? (holdPeriodSeconds ? new Date(Date.now() + holdPeriodSeconds * 1000).toISOString() : null);
  if (!deadline) {
    // An expired session is never connected: promising the terms "once connected" would mislead.
    return data.session.status === 'expired' ? 'None: this payment can no longer be made.' : 'Shown once your wallet is connected.';
  }
  if (Date.parse(deadline) <= Date.now())
    return `No hold: once locked, ${platform} can release the payment to ${receiver} at any time, and it cannot be taken back.`;
  const back = rescindAllowed
    ? 'until then you can take it back (rescind) from your wallet'
    : `${platform}'s terms do not offer taking it back, though until then the escrow still lets your wallet rescind it`;
  return `Held in escrow until ${when(deadline)}${holdDeadline ? '' : ' (about)'}: ${back}, and ${receiver} is paid earlier only if you both agree. After that ${platform} can release it to ${receiver}, unless a dispute holds it.`;
}

function renderSummary() {
  byId('platform').textContent = data.platform.name;
  document.title = `Pay ${data.platform.name}`;
  const logo = byId('logo') as HTMLImageElement;
  if (data.platform.logoUrl) {
    logo.src = data.platform.logoUrl;
    logo.hidden = false;
  }
  byId('amount').textContent = money();
  byId('receiver').textContent = data.session.toAddress;
  byId('network').textContent = data.chain.name;
  byId('terms').textContent = termsText();
  byId('summary').hidden = false;
}

const cancelLink = () => el('a', { href: data.session.cancelUrl, className: 'secondary', textContent: `Back to ${data.platform.name}` });
const retry = (label: string, again: () => void) => button(label, again);

// ---------- failures in plain words ----------

function unavailable(again: () => void) {
  show(
    'unavailable',
    'Payments are briefly unavailable',
    'Holdfast could not take your payment just now. Nothing was paid. Try again in a moment.',
    retry('Try again', again),
    cancelLink(),
  );
}

function expired() {
  show('expired', 'This payment link has expired', `Nothing was paid. Ask ${data.platform.name} for a new payment link.`, cancelLink());
}

/** A refusal of the server, as the payer reads it, with its way forward. */
function explain(error: ApiError, again: () => void) {
  const reason = String(error.details.reason ?? '');
  if (error.status === 0 || error.status >= 500 || error.code === 'RATE_LIMIT_EXCEEDED' || error.code === 'RELAYER_BUDGET_EXHAUSTED')
    return unavailable(again);
  if (error.status === 404)
    return show('not-found', 'Payment not found', 'This payment link is not valid. Check the link, or ask for a new one.');
  if (error.code === 'INVALID_STATE_TRANSITION' && error.details.status === 'expired') return expired();
  if (error.code === 'CONFLICT' && error.details.field === 'fromAddress') return wrongAccount();
  if (reason === 'insufficient_balance') return lowBalance(String(error.details.balance ?? '0'));
  if (reason === 'expired' || reason === 'expires_too_soon')
    return show('expired', 'The time to sign ran out', `Nothing was paid. Ask ${data.platform.name} for a new payment link.`, cancelLink());
  if (reason === 'invalid_signature') {
    signature = null;
    return show(
      'declined',
      'That signature does not match this payment',
      'Nothing was paid. Sign again with the account this payment is for.',
      retry('Sign again', pay),
    );
  }
  if (reason === 'nonce_used' || error.code === 'CONFLICT') return taken();
  show(
    'failed',
    'This payment could not go through',
    `Nothing was paid. ${error.message || 'Try again, or contact the merchant.'}`,
    retry('Try again', again),
    cancelLink(),
  );
}

/** A wallet's refusal (EIP-1193 codes), as the payer reads it. */
function walletRefusal(error: unknown, again: () => void, what: string) {
  const code = (error as { code?: number }).code;
  if (code === 4001) {
    return show(
      'declined',
      `You declined ${what}`,
      'Nothing was paid. When you are ready, try again.',
      retry('Try again', again),
      cancelLink(),
    );
  }
  if (code === -32002)
    return show('wallet-busy', 'Your wallet is waiting for you', 'Open your wallet and answer its request.', retry('Try again', again));
  show(
    'wallet-error',
    'Your wallet could not do this',
    'Nothing was paid. Unlock your wallet and try again.',
    retry('Try again', again),
    cancelLink(),
  );
}

function wrongAccount() {
  const expected = data.session.fromAddress;
  show(
    'wrong-account',
    'This payment is for another account',
    expected
      ? `This payment is already being paid from ${short(expected)}. Choose that account in your wallet and try again.`
      : 'Choose the account you pay with in your wallet and try again.',
    retry('Try again', () => void connectAgain()),
    cancelLink(),
  );
}

function lowBalance(balanceUnits: string) {
  show(
    'low-balance',
    'Not enough USDC in this wallet',
    `${short(account ?? '')} holds ${fromBaseUnits(balanceUnits)} ${data.session.currency}; this payment needs ${money()}. Add ${data.session.currency} to this wallet, then check again. Nothing was sent.`,
    retry('Check again', () => void afterPayer()),
    cancelLink(),
  );
}

function taken() {
  show(
    'taken',
    'This payment is already made',
    'It was paid from another window or tab. There is nothing more to do here.',
    el('a', { href: data.session.successUrl, className: 'primary', textContent: `Continue to ${data.platform.name}` }),
  );
}

// ---------- the flow ----------

async function load(): Promise<boolean> {
  const answer = await api<CheckoutPage>('/page');
  if (!answer.ok) {
    explain(answer.error, () => void start());
    return false;
  }
  data = answer.body;
  renderSummary();
  return true;
}

function done() {
  show('paid', 'Paid', `Your ${money()} is locked in escrow. Taking you back to ${data.platform.name}…`);
  setTimeout(() => location.assign(data.session.successUrl), 1500);
}

async function start() {
  if (!(await load())) return;
  if (data.session.status === 'complete') return done();
  if (data.session.status === 'expired') return expired();
  chooseWallet();
}

/** The adapters of this session: injected wallets always, WalletConnect with the workspace's projectId. */
function adapters(): WalletAdapter[] {
  const list = [injectedAdapter(window)];
  const projectId = data.wallets.walletConnectProjectId;
  if (projectId) {
    list.push(
      walletConnectAdapter({
        projectId,
        chainId: data.chain.id,
        metadata: { name: data.platform.name, description: `Pay ${data.platform.name}`, url: location.origin, icons: [] },
      }),
    );
  }
  return list;
}

function chooseWallet() {
  for (const stop of stopDiscovery) stop();
  const found = new Map<string, WalletConnector>();
  const list = el('div', { className: 'wallets' });
  const refresh = () => {
    // Injected wallets first (they are in this browser), WalletConnect last.
    const ordered = [...found.values()].sort((a, b) => Number(a.kind === 'walletconnect') - Number(b.kind === 'walletconnect'));
    list.replaceChildren(
      ...ordered.map((c) => {
        const b = button(c.name, () => void connect(c), 'secondary');
        b.dataset.connector = c.kind;
        if (c.icon) b.prepend(el('img', { src: c.icon, alt: '', width: 24, height: 24 }));
        return b;
      }),
    );
    if (found.size > 0) show('choose-wallet', 'Pay with your wallet', 'Choose the wallet that holds your USDC.', list, cancelLink());
  };
  stopDiscovery = adapters().map((adapter) =>
    adapter.discover((c) => {
      if (found.has(c.id)) return;
      found.set(c.id, c);
      refresh();
    }),
  );
  setTimeout(() => {
    if (found.size === 0)
      show(
        'no-wallet',
        'No wallet found',
        'Install a browser wallet (an extension holding your USDC), then reload this page.',
        retry('Reload', () => location.reload()),
        cancelLink(),
      );
  }, 600);
  refresh();
}

/** The pairing of a WalletConnect attempt: its QR code, the link itself, a way back. */
function showPairing(uri: string, qr: boolean[][]) {
  const scale = 4;
  const canvas = el('canvas', { className: 'qr', width: qr.length * scale, height: qr.length * scale });
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', 'WalletConnect pairing code');
  const ctx = canvas.getContext('2d');
  if (ctx) {
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.fillStyle = '#000';
    for (const [y, row] of qr.entries()) for (const [x, dark] of row.entries()) if (dark) ctx.fillRect(x * scale, y * scale, scale, scale);
  }
  const link = document.createElement('input');
  link.className = 'mono pairing-uri';
  link.id = 'pairing-uri';
  link.readOnly = true;
  link.value = uri;
  link.setAttribute('aria-label', 'WalletConnect link');
  const copy = el('button', { type: 'button', className: 'secondary', textContent: 'Copy link' });
  copy.addEventListener('click', () => {
    link.select();
    void navigator.clipboard?.writeText(uri).then(() => {
      copy.textContent = 'Copied';
    });
  });
  const openLink = document.createElement('a');
  openLink.href = uri;
  openLink.className = 'secondary';
  openLink.textContent = 'Open in a wallet on this device';
  show(
    'pairing',
    'Scan with your wallet',
    `Scan this code with the wallet app that holds your USDC, or open the link in a wallet on this device. Then approve ${data.platform.name} in your wallet.`,
    canvas,
    openLink,
    link,
    copy,
    button(
      'Choose another wallet',
      () => {
        attempt += 1;
        chooseWallet();
      },
      'secondary',
    ),
  );
}

/** The states in which the page follows the wallet's own account and chain changes. */
const REACTIVE = ['ready', 'wrong-chain', 'wrong-account', 'low-balance', 'declined', 'wallet-error', 'wallet-busy'];
/** A chain switch of the page's own is under way: its events are its own answer. */
let switching = false;

/** The connection's own events: the payer changed account or chain in the wallet, or it ended. */
function watchConnection(c: WalletConnection) {
  for (const stop of stopEvents) stop();
  // Only while the page waits for the payer: never in the middle of a request of its own.
  const settled = () => switching || busy || !REACTIVE.includes(main.dataset.state ?? '');
  stopEvents = [
    c.on('accountsChanged', (accounts) => {
      if (settled() || connection !== c) return;
      signature = null;
      if (accounts.length === 0) return void disconnected();
      void connectAgain();
    }),
    c.on('chainChanged', () => {
      if (settled() || connection !== c) return;
      void checkChain();
    }),
    c.on('disconnect', () => {
      if (connection !== c) return;
      connection = null;
      if (!busy && !['paid', 'waiting', 'submitting', 'taken'].includes(main.dataset.state ?? '')) disconnected();
    }),
  ];
}

function disconnected() {
  connection = null;
  account = null;
  show(
    'disconnected',
    'Your wallet disconnected',
    'Nothing was paid. Connect your wallet again to pay.',
    retry('Connect again', () => chooseWallet()),
    cancelLink(),
  );
}

async function connect(connector: WalletConnector) {
  const mine = ++attempt;
  for (const stop of stopDiscovery) stop();
  show(
    'connecting',
    'Connecting',
    connector.kind === 'walletconnect'
      ? 'Preparing a WalletConnect pairing…'
      : `Open ${connector.name} and allow this page to see your address.`,
  );
  let opened: WalletConnection;
  try {
    opened = await connector.connect({
      pairing: (uri, qr) => {
        if (mine === attempt) showPairing(uri, qr);
      },
    });
  } catch (error) {
    if (mine !== attempt) return;
    return walletRefusal(error, () => void connect(connector), 'the connection');
  }
  if (mine !== attempt) return void opened.disconnect();
  if (connection && connection !== opened) void connection.disconnect();
  connection = opened;
  watchConnection(opened);
  await connectAgain();
}

async function connectAgain() {
  if (!connection) return chooseWallet();
  try {
    const accounts = (await connection.request({ method: 'eth_requestAccounts' })) as string[];
    account = accounts[0] ?? null;
  } catch (error) {
    return walletRefusal(error, () => void connectAgain(), 'the connection');
  }
  if (!account) return wrongAccount();
  if (data.session.fromAddress && data.session.fromAddress.toLowerCase() !== account.toLowerCase()) return wrongAccount();
  await checkChain();
}

async function checkChain() {
  if (!connection) return;
  let chainId: number;
  try {
    chainId = chainIdOf(await connection.request({ method: 'eth_chainId' }));
  } catch (error) {
    return walletRefusal(error, () => void checkChain(), 'the request');
  }
  if (chainId === data.chain.id) return afterPayer(true);
  show(
    'wrong-chain',
    `Switch your wallet to ${data.chain.name}`,
    `Your wallet is on another network. This payment is made on ${data.chain.name}.`,
    retry(`Switch to ${data.chain.name}`, () => void switchChain()),
    cancelLink(),
  );
}

async function switchChain() {
  if (!connection) return;
  switching = true;
  try {
    await connection.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${data.chain.id.toString(16)}` }] });
  } catch (error) {
    switching = false;
    if ((error as { code?: number }).code === 4902) {
      return show(
        'wrong-chain',
        `Your wallet does not know ${data.chain.name}`,
        `Add the ${data.chain.name} network in your wallet, then try again.`,
        retry('Try again', () => void checkChain()),
        cancelLink(),
      );
    }
    return walletRefusal(error, () => void checkChain(), 'the network switch');
  }
  try {
    await checkChain();
  } finally {
    switching = false;
  }
}

/** Names the payer (creates the session's transaction), then reads what to sign. */
async function afterPayer(name = false) {
  if (!account) return;
  if (name) {
    show('preparing', 'Preparing your payment', 'One moment…');
    const named = await api<CheckoutPayment>('/payer', { fromAddress: account });
    if (!named.ok) return explain(named.error, () => void afterPayer(true));
    if (named.body.session.status === 'complete') {
      await load();
      return taken();
    }
  }
  if (!(await load())) return;
  if (data.session.status === 'complete') return taken();
  if (data.session.status === 'expired') return expired();
  const payment = data.payment;
  if (payment?.relay && (payment.relay.status === 'submitted' || payment.relay.status === 'mined')) return taken();
  if (!payment?.typedData) return unavailable(() => void afterPayer());
  if (
    payment.balanceBaseUnits !== null &&
    payment.amountBaseUnits !== null &&
    BigInt(payment.balanceBaseUnits) < BigInt(payment.amountBaseUnits)
  )
    return lowBalance(payment.balanceBaseUnits);
  show(
    'ready',
    `Pay ${money()}`,
    `Your wallet asks for one signature. It allows exactly this payment to ${short(data.session.toAddress)} and nothing else.`,
    button(`Pay ${money()}`, () => void pay()),
    cancelLink(),
  );
}

async function pay() {
  if (busy || !connection || !account) return;
  busy = true;
  try {
    // Paid from another tab meanwhile: say so rather than ask for a signature.
    if (!(await load())) return;
    const payment = data.payment;
    if (data.session.status === 'complete' || (payment?.relay && payment.relay.status !== 'failed' && payment.relay.status !== 'reverted'))
      return taken();
    if (!payment?.typedData) return unavailable(() => void afterPayer());
    if (!signature) {
      show('signing', 'Confirm in your wallet', `Sign the payment of ${money()} in your wallet.`);
      try {
        signature = (await connection.request({
          method: 'eth_signTypedData_v4',
          params: [account, JSON.stringify(payment.typedData)],
        })) as string;
      } catch (error) {
        return walletRefusal(error, () => void pay(), 'the signature');
      }
    }
    await submit();
  } finally {
    busy = false;
  }
}

async function submit() {
  show('submitting', 'Locking your payment', 'Holdfast is sending your payment to the network. This takes a few seconds.');
  const sent = await api<CheckoutPage>('/authorization', { signature });
  if (!sent.ok) return explain(sent.error, () => void submit());
  data = sent.body;
  await follow();
}

/** Live status: polls the page's data until the session is complete. */
async function follow(delay = 1000) {
  if (data.session.status === 'complete') return done();
  // Never funded and past its expiry (docs/checkout.md "A payment that never locks").
  if (data.session.status === 'expired') return expired();
  const relay = data.payment?.relay;
  if (relay && (relay.status === 'failed' || relay.status === 'reverted')) {
    signature = null;
    return show(
      'failed',
      'The network did not take this payment',
      'Nothing was paid. Try again.',
      retry('Try again', () => void afterPayer()),
      cancelLink(),
    );
  }
  show('waiting', 'Locking your payment', `Waiting for ${data.chain.name} to confirm. Keep this page open.`);
  await new Promise((resolve) => setTimeout(resolve, delay));
  const answer = await api<CheckoutPage>('/page');
  if (answer.ok) data = answer.body;
  await follow(answer.ok ? 1000 : Math.min(delay * 2, 10_000));
}

void start();

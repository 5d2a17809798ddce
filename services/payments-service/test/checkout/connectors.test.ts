import { fileFixture } from '@holdfast/test-fixtures';
import type { LocalAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WalletConnection, WalletConnector } from '../../src/modules/checkout/page/wallets/connector.js';
import { injectedAdapter } from '../../src/modules/checkout/page/wallets/injected.js';
import { walletConnectAdapter } from '../../src/modules/checkout/page/wallets/walletconnect.js';
import { platformWithCredentials, RECEIVER, startChainPaymentsEnv, waitFor } from '../support/chain.js';
import { checkoutClient } from '../support/checkout.js';
import { injectWallet, type RemoteWallet, remoteWallet, type TestWallet, testWallet } from '../support/checkout-test-wallets.js';
import { bearer, call, type Loose } from '../support/harness.js';
import { newPayer, relayerNonce } from '../support/relayer.js';
import { type RelayStandIn, startRelayStandIn } from '../support/walletconnect-relay.js';

// The contract of the hosted page's wallet-connector adapter (src/modules/checkout/page/wallets,
// docs/checkout.md "Wallet choices"), one suite run against both implementations:
//
// - injected (EIP-6963): the adapter discovers a test wallet announced on an EventTarget standing
//   for the page's window, and talks to its EIP-1193 provider;
// - WalletConnect v2: the adapter's real client (@walletconnect/universal-provider, the code the
//   page's chunk bundles), its relayUrl pointed at a local stand-in of WalletConnect's relay
//   (support/walletconnect-relay.ts: the relay only routes end-to-end encrypted messages), and a remote
//   wallet on the other side (@walletconnect/sign-client, as a mobile wallet runs it) that pairs
//   with the URI the connector hands the page, approves, and answers.
//
// Both wallets answer from the same test wallet (a viem local account holding MockUSDC and no
// ETH). The flow is the page's: connect → accounts → chain → switch → eth_signTypedData_v4 → the
// page's relay request (POST …/payer, …/authorization on the real payments-service, relayer and
// anvil) → escrowed, with exactly one signature. WalletConnect's own relay, Verify API and a real
// wallet app cannot be reached here: the browser test (browser.test.ts) shows the page's pairing
// code, routed to the same stand-in.

const PROJECT_ID = 'c0ffee00c0ffee00c0ffee00c0ffee00';
// The page and the wallet are two WalletConnect clients in one process here (in a browser, a page
// is a process of its own): the library's switch for a core per client instead of one per process.
process.env.DISABLE_GLOBAL_CORE = 'true';
const e = fileFixture(() => startChainPaymentsEnv({ CHECKOUT_EXPIRY_INTERVAL: '1h', RELAYER_POLL_INTERVAL: '100ms' }));
let p: Awaited<ReturnType<typeof platformWithCredentials>>;
let api: ReturnType<typeof checkoutClient>;
let relay: RelayStandIn;

beforeAll(async () => {
  [p, relay] = await Promise.all([platformWithCredentials(e, 'Acme Shop'), startRelayStandIn()]);
  api = checkoutClient(e.svc.url);
}, 60_000);

afterAll(async () => {
  await relay?.close();
});

/** What a harness hands the suite: the connector found, connected, and the wallet's own actions. */
interface Connected {
  connector: WalletConnector;
  connection: WalletConnection;
  /** What the connector asked the page to show while connecting (WalletConnect: the pairing URIs). */
  pairings: { uri: string; qr: boolean[][] }[];
  changeAccount(account: LocalAccount): Promise<void>;
  changeChain(chainId: number): Promise<void>;
  walletDisconnect(): Promise<void>;
}

interface Harness {
  kind: WalletConnector['kind'];
  connect(wallet: TestWallet): Promise<Connected>;
}

/** Finds the adapter's first connector. */
function first(adapter: ReturnType<typeof injectedAdapter>): Promise<WalletConnector> {
  return new Promise((resolve) => {
    const stop = adapter.discover((c) => {
      queueMicrotask(() => stop());
      resolve(c);
    });
  });
}

const injected: Harness = {
  kind: 'injected',
  async connect(wallet) {
    const window = new EventTarget();
    const extension = injectWallet(window, wallet);
    const connector = await first(injectedAdapter(window));
    const connection = await connector.connect();
    return {
      connector,
      connection,
      pairings: [],
      changeAccount: async (account) => extension.changeAccount(account),
      changeChain: async (chainId) => extension.changeChain(chainId),
      walletDisconnect: async () => extension.disconnect(),
    };
  },
};

const remotes: RemoteWallet[] = [];
afterAll(async () => {
  for (const r of remotes) await r.close();
});

const walletConnect: Harness = {
  kind: 'walletconnect',
  async connect(wallet) {
    const remote = await remoteWallet({ relayUrl: relay.url, projectId: PROJECT_ID, wallet });
    remotes.push(remote);
    const connector = await first(
      walletConnectAdapter({
        projectId: PROJECT_ID,
        chainId: e.world.anvil.chainId,
        metadata: { name: 'Acme Shop', description: 'Pay Acme Shop', url: e.svc.url, icons: [] },
        relayUrl: relay.url,
      }),
    );
    const pairings: Connected['pairings'] = [];
    const connection = await connector.connect({
      pairing: (uri, qr) => {
        pairings.push({ uri, qr });
        // The payer scans the code with the wallet.
        void remote.pair(uri);
      },
    });
    return {
      connector,
      connection,
      pairings,
      changeAccount: (account) => remote.changeAccount(account),
      changeChain: (chainId) => remote.changeChain(chainId),
      walletDisconnect: () => remote.disconnect(),
    };
  },
};

async function session() {
  const created = await api.create(p.token, {
    amount: '12.5',
    toAddress: RECEIVER,
    successUrl: 'https://shop.example/thanks',
    cancelUrl: 'https://shop.example/cart',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

async function funded(chainId = 1) {
  const account = newPayer();
  await e.world.mint(account.address, 12_500_000n);
  return testWallet(account, chainId, [1, e.world.anvil.chainId]);
}

/** Resolves with the next `event` of `connection`. */
function next<E extends 'accountsChanged' | 'chainChanged' | 'disconnect'>(connection: WalletConnection, event: E) {
  return new Promise<unknown>((resolve) => {
    const stop = connection.on(event, ((...args: unknown[]) => {
      stop();
      resolve(args[0]);
    }) as never);
  });
}

describe.each([injected, walletConnect])('the $kind connector', (harness) => {
  it('is discovered as its kind and connects: the wallet’s account, its chain in hex', async () => {
    const wallet = await funded();
    const { connector, connection, pairings } = await harness.connect(wallet);
    expect(connector.kind).toBe(harness.kind);
    expect(connector.icon).toMatch(/^data:image\//);
    expect(await connection.request({ method: 'eth_requestAccounts' })).toEqual([wallet.account.address]);
    expect(await connection.request({ method: 'eth_chainId' })).toBe('0x1');
    if (harness.kind === 'walletconnect') {
      // One pairing: a WalletConnect v2 URI and its QR code; the relay heard the workspace's projectId.
      expect(pairings).toHaveLength(1);
      expect(pairings[0]!.uri).toMatch(/^wc:[0-9a-f]{64}@2\?.*relay-protocol=irn.*symKey=[0-9a-f]{64}/);
      const qr = pairings[0]!.qr;
      expect(qr.length).toBeGreaterThan(29);
      expect(qr.every((row) => row.length === qr.length)).toBe(true);
      expect(relay.connections.some((u) => u.searchParams.get('projectId') === PROJECT_ID)).toBe(true);
    } else expect(pairings).toEqual([]);
    await connection.disconnect();
  });

  it('connect → chain switch → eth_signTypedData_v4 → the page’s relay request: escrowed with one signature, gas paid by the relayer', async () => {
    const id = await session();
    const wallet = await funded(1);
    const { connection } = await harness.connect(wallet);
    const [account] = (await connection.request({ method: 'eth_requestAccounts' })) as string[];
    expect(account).toBe(wallet.account.address);
    expect(await connection.request({ method: 'eth_chainId' })).toBe('0x1');

    // A chain the wallet does not know: 4902 through the adapter (the page asks the payer to add it).
    await expect(connection.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x3e7' }] })).rejects.toMatchObject({
      code: 4902,
    });
    const target = `0x${e.world.anvil.chainId.toString(16)}`;
    const changed = next(connection, 'chainChanged');
    expect(await connection.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: target }] })).toBeNull();
    expect(await changed).toBe(e.world.anvil.chainId);
    expect(await connection.request({ method: 'eth_chainId' })).toBe(target);
    expect(wallet.chainId).toBe(e.world.anvil.chainId);

    // The page's relay request: names the payer, reads what to sign, signs once through the adapter, relays.
    const named = await api.payer(id, account!);
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    const data = (await call(e.svc.url, 'GET', `/api/v2/checkout/sessions/${id}/page`)).body;
    const nonce = await relayerNonce(e.world);
    const signature = await connection.request({
      method: 'eth_signTypedData_v4',
      params: [account, JSON.stringify(data.payment.typedData)],
    });
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
    expect(wallet.signatures).toBe(1);
    const relayed = await call(e.svc.url, 'POST', `/api/v2/checkout/sessions/${id}/authorization`, { body: { signature } });
    expect(relayed.status, JSON.stringify(relayed.body)).toBe(202);
    const done = await waitFor(
      async () => {
        const page = (await call(e.svc.url, 'GET', `/api/v2/checkout/sessions/${id}/page`)).body;
        return page.session.status === 'complete' ? page : null;
      },
      'the session complete',
      30_000,
    );
    expect(done.payment.transactionStatus).toBe('escrowed');
    const tx = await call(e.svc.url, 'GET', `/api/v2/transactions/${done.session.transactionId}`, { headers: bearer(p.token) });
    expect(tx.body).toMatchObject({ status: 'escrowed', fromAddress: wallet.account.address });
    expect(await relayerNonce(e.world)).toBe(nonce + 1);
    expect(await e.world.balance(wallet.account.address)).toBe(0n);
    expect(await e.world.publicClient.getBalance({ address: wallet.account.address })).toBe(0n);
    expect(wallet.requests.filter((m) => m === 'eth_signTypedData_v4')).toHaveLength(1);
    await connection.disconnect();
  }, 60_000);

  it('a signature declined in the wallet is EIP-1193 4001 through the adapter, and nothing is relayed', async () => {
    const id = await session();
    const wallet = await funded(e.world.anvil.chainId);
    wallet.decline = 1;
    const { connection } = await harness.connect(wallet);
    const [account] = (await connection.request({ method: 'eth_requestAccounts' })) as string[];
    expect((await api.payer(id, account!)).status).toBe(200);
    const data = (await call(e.svc.url, 'GET', `/api/v2/checkout/sessions/${id}/page`)).body;
    await expect(
      connection.request({ method: 'eth_signTypedData_v4', params: [account, JSON.stringify(data.payment.typedData)] }),
    ).rejects.toMatchObject({ code: 4001 });
    expect(wallet.signatures).toBe(0);
    const rows = await e.sql<Loose[]>`select 1 from relayed_locks where transaction_id = ${data.session.transactionId}`;
    expect(rows).toEqual([]);
    await connection.disconnect();
  }, 60_000);

  it('the wallet’s own changes reach the page: accountsChanged, chainChanged, disconnect', async () => {
    const wallet = await funded(e.world.anvil.chainId);
    const { connection, changeAccount, changeChain, walletDisconnect } = await harness.connect(wallet);
    const other = newPayer();
    const accounts = next(connection, 'accountsChanged');
    await changeAccount(other);
    expect(await accounts).toEqual([other.address]);
    expect(await connection.request({ method: 'eth_requestAccounts' })).toEqual([other.address]);
    const chain = next(connection, 'chainChanged');
    await changeChain(1);
    expect(await chain).toBe(1);
    const ended = next(connection, 'disconnect');
    await walletDisconnect();
    await ended;
  }, 60_000);
});

describe('the walletconnect connector only', () => {
  it('a payer who rejects the pairing in the wallet: 4001, as an injected wallet’s refusal', async () => {
    const wallet = await funded();
    const remote = await remoteWallet({ relayUrl: relay.url, projectId: PROJECT_ID, wallet, reject: true });
    remotes.push(remote);
    const connector = await first(
      walletConnectAdapter({
        projectId: PROJECT_ID,
        chainId: e.world.anvil.chainId,
        metadata: { name: 'Acme Shop', description: 'Pay Acme Shop', url: e.svc.url, icons: [] },
        relayUrl: relay.url,
      }),
    );
    await expect(connector.connect({ pairing: (uri) => void remote.pair(uri) })).rejects.toMatchObject({ code: 4001 });
    // The wallet was asked exactly what the page's flow sends, for the session's chain, by this origin.
    expect(remote.proposals).toEqual([
      { origin: e.svc.url, chains: [`eip155:${e.world.anvil.chainId}`], methods: ['eth_signTypedData_v4', 'wallet_switchEthereumChain'] },
    ]);
  }, 60_000);

  it('sends nothing but the page’s methods: another is 4200 before it reaches the wallet or an RPC host', async () => {
    const wallet = await funded(e.world.anvil.chainId);
    const { connection } = await walletConnect.connect(wallet);
    await expect(connection.request({ method: 'eth_getBalance', params: [wallet.account.address, 'latest'] })).rejects.toMatchObject({
      code: 4200,
    });
    expect(wallet.requests).not.toContain('eth_getBalance');
    await connection.disconnect();
    await expect(connection.request({ method: 'eth_chainId' })).rejects.toMatchObject({ code: 4900 });
  }, 60_000);
});

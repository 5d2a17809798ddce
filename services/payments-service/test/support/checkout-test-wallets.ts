import { EventEmitter } from 'node:events';
import { SignClient } from '@walletconnect/sign-client';
import type { LocalAccount } from 'viem';
import { signCheckout } from './checkout-wallet.js';

// The payer's wallet in the connector tests: one test wallet (a viem local account, a chain, what
// it was asked) answering the page's EIP-1193 calls, reached two ways as a real payer's would be:
// injected into the page (an EIP-6963 announcement of an EIP-1193 provider), or remote over
// WalletConnect (a wallet-side @walletconnect/sign-client on the stand-in relay, pairing with the
// page's URI, approving its session, answering its requests and announcing its changes as session
// updates and events, as a mobile wallet does).

export interface TestWallet {
  account: LocalAccount;
  chainId: number;
  /** The chains the wallet knows (a switch to another is EIP-1193 4902). */
  chains: number[];
  /** Signature requests to decline (4001) before signing. */
  decline: number;
  signatures: number;
  requests: string[];
  /** Runs before a signature is answered (the browser test's screenshot of the page asking for it). */
  beforeSign?: () => Promise<void>;
  /** Runs before the accounts are answered (the browser test's screenshot of the page connecting). */
  beforeAccounts?: () => Promise<void>;
}

export const testWallet = (account: LocalAccount, chainId: number, chains: number[]): TestWallet => ({
  account,
  chainId,
  chains,
  decline: 0,
  signatures: 0,
  requests: [],
});

export class WalletError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The wallet's answer to one request (the part both ways share). */
export async function answer(wallet: TestWallet, method: string, params: unknown[]): Promise<unknown> {
  wallet.requests.push(method);
  switch (method) {
    case 'eth_requestAccounts':
    case 'eth_accounts':
      await wallet.beforeAccounts?.();
      return [wallet.account.address];
    case 'eth_chainId':
      return `0x${wallet.chainId.toString(16)}`;
    case 'wallet_switchEthereumChain': {
      const target = Number.parseInt((params[0] as { chainId: string }).chainId, 16);
      if (!wallet.chains.includes(target)) throw new WalletError(4902, 'Unrecognized chain');
      wallet.chainId = target;
      return null;
    }
    case 'eth_signTypedData_v4': {
      if (String(params[0]).toLowerCase() !== wallet.account.address.toLowerCase()) throw new WalletError(4100, 'Unknown account');
      if (wallet.decline > 0) {
        wallet.decline -= 1;
        throw new WalletError(4001, 'User rejected the request.');
      }
      await wallet.beforeSign?.();
      wallet.signatures += 1;
      return signCheckout(wallet.account, String(params[1]));
    }
    default:
      throw new WalletError(4200, `Unsupported method ${method}`);
  }
}

/** An injected wallet: an EIP-1193 provider announced by EIP-6963 on `target` (the page's window). */
export function injectWallet(target: EventTarget, wallet: TestWallet, uuid = '3b1f6c1e-2f7a-4c39-9a0e-7d1c0f0a6e51') {
  const events = new EventEmitter();
  const provider = {
    request: async ({ method, params }: { method: string; params?: unknown }) => {
      const before = wallet.chainId;
      const result = await answer(wallet, method, (params as unknown[]) ?? []);
      // A wallet announces the chain it switched to (EIP-1193 `chainChanged`, hex).
      if (method === 'wallet_switchEthereumChain' && wallet.chainId !== before)
        events.emit('chainChanged', `0x${wallet.chainId.toString(16)}`);
      return result;
    },
    on: (event: string, listener: (...args: unknown[]) => void) => events.on(event, listener),
    removeListener: (event: string, listener: (...args: unknown[]) => void) => events.removeListener(event, listener),
  };
  const detail = Object.freeze({
    info: { uuid, name: 'Test Wallet', icon: 'data:image/svg+xml;base64,PHN2Zy8+', rdns: 'test.holdfast.wallet' },
    provider,
  });
  const announce = () => target.dispatchEvent(Object.assign(new Event('eip6963:announceProvider'), { detail }));
  target.addEventListener('eip6963:requestProvider', announce);
  announce();
  return {
    /** The payer picks another account in the wallet. */
    changeAccount(account: LocalAccount) {
      wallet.account = account;
      events.emit('accountsChanged', [account.address]);
    },
    /** The payer switched the wallet's chain itself (an EIP-1193 `chainChanged`, hex). */
    changeChain(chainId: number) {
      wallet.chainId = chainId;
      events.emit('chainChanged', `0x${chainId.toString(16)}`);
    },
    /** The wallet disconnected the page (EIP-1193 `disconnect`). */
    disconnect: () => void events.emit('disconnect', { code: 4900, message: 'Disconnected' }),
  };
}

type Storage = NonNullable<Parameters<typeof SignClient.init>[0]>['storage'];

function memoryStorage(): Storage {
  const items = new Map<string, unknown>();
  return {
    getKeys: async () => [...items.keys()],
    getEntries: async () => [...items.entries()],
    getItem: async (key: string) => items.get(key),
    setItem: async (key: string, value: unknown) => void items.set(key, value),
    removeItem: async (key: string) => void items.delete(key),
  } as unknown as Storage;
}

const METHODS = ['eth_signTypedData_v4', 'wallet_switchEthereumChain'];
const EVENTS = ['accountsChanged', 'chainChanged'];

/**
 * A remote wallet over WalletConnect: its own sign client on the relay at `relayUrl`. `pair(uri)`
 * is the payer scanning the page's code; the session it approves offers the wallet's current chain
 * and account; a switch to a known chain adds it to the session (an update) and announces
 * `chainChanged`, as wallets do.
 */
export interface RemoteWallet {
  /** What the page proposed: its origin, chains and methods. */
  proposals: { origin: string; chains: string[]; methods: string[] }[];
  /** The payer scans (or opens) the page's pairing URI. */
  pair(uri: string): Promise<unknown>;
  /** The payer picks another account in the wallet: the session is updated and the change announced. */
  changeAccount(account: LocalAccount): Promise<void>;
  /** The payer switched the wallet's chain itself. */
  changeChain(chainId: number): Promise<void>;
  /** The payer ends the session in the wallet. */
  disconnect(): Promise<void>;
  close(): Promise<void>;
}

export async function remoteWallet(options: {
  relayUrl: string;
  projectId: string;
  wallet: TestWallet;
  reject?: boolean;
}): Promise<RemoteWallet> {
  const { wallet } = options;
  const client = await SignClient.init({
    projectId: options.projectId,
    relayUrl: options.relayUrl,
    metadata: { name: 'Test Remote Wallet', description: 'The connector tests’ wallet', url: 'https://wallet.test', icons: [] },
    storage: memoryStorage(),
    telemetryEnabled: false,
    logger: 'silent',
  });
  const chainsOfSession = new Set<number>([wallet.chainId]);
  const namespaces = () => ({
    eip155: {
      chains: [...chainsOfSession].map((c) => `eip155:${c}`),
      accounts: [...chainsOfSession].map((c) => `eip155:${c}:${wallet.account.address}`),
      methods: METHODS,
      events: EVENTS,
    },
  });
  const proposals: { origin: string; chains: string[]; methods: string[] }[] = [];
  let topic: string | undefined;
  let rejectNext = options.reject ?? false;
  client.on('session_proposal', async ({ id, params }) => {
    const eip155 = params.optionalNamespaces.eip155 ?? params.requiredNamespaces.eip155;
    proposals.push({ origin: params.proposer.metadata.url, chains: eip155?.chains ?? [], methods: eip155?.methods ?? [] });
    if (rejectNext) {
      rejectNext = false;
      await client.reject({ id, reason: { code: 5000, message: 'User rejected.' } });
      return;
    }
    const approved = await client.approve({ id, namespaces: namespaces() });
    topic = approved.topic;
    await approved.acknowledged();
  });
  client.on('session_request', async ({ id, topic: t, params }) => {
    const { method, params: args } = params.request as { method: string; params: unknown[] };
    try {
      const result = await answer(wallet, method, args ?? []);
      if (method === 'wallet_switchEthereumChain' && !chainsOfSession.has(wallet.chainId)) {
        chainsOfSession.add(wallet.chainId);
        await (await client.update({ topic: t, namespaces: namespaces() })).acknowledged();
        await client.emit({ topic: t, chainId: `eip155:${wallet.chainId}`, event: { name: 'chainChanged', data: wallet.chainId } });
      }
      await client.respond({ topic: t, response: { id, jsonrpc: '2.0', result } });
    } catch (error) {
      const code = error instanceof WalletError ? error.code : -32603;
      await client.respond({ topic: t, response: { id, jsonrpc: '2.0', error: { code, message: String((error as Error).message) } } });
    }
  });
  return {
    proposals,
    pair: (uri: string) => client.pair({ uri }),
    async changeAccount(account: LocalAccount) {
      wallet.account = account;
      if (!topic) throw new Error('no session');
      await (await client.update({ topic, namespaces: namespaces() })).acknowledged();
      await client.emit({
        topic,
        chainId: `eip155:${wallet.chainId}`,
        event: { name: 'accountsChanged', data: [`eip155:${wallet.chainId}:${account.address}`] },
      });
    },
    async changeChain(chainId: number) {
      if (!topic) throw new Error('no session');
      wallet.chainId = chainId;
      if (!chainsOfSession.has(chainId)) {
        chainsOfSession.add(chainId);
        await (await client.update({ topic, namespaces: namespaces() })).acknowledged();
      }
      await client.emit({ topic, chainId: `eip155:${chainId}`, event: { name: 'chainChanged', data: chainId } });
    },
    async disconnect() {
      if (!topic) throw new Error('no session');
      await client.disconnect({ topic, reason: { code: 6000, message: 'User disconnected.' } });
    },
    async close() {
      await client.core.relayer.transportClose().catch(() => {});
    },
  };
}

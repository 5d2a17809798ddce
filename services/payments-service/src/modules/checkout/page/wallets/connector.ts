// The hosted page's wallet-connector adapter (docs/checkout.md "Wallet choices"): every way of
// reaching a wallet is one `WalletAdapter` that discovers `WalletConnector`s, and a connector,
// once connected, is an EIP-1193 connection the page's flow drives the same way whatever it is
// (accounts, chain, switch, one `eth_signTypedData_v4`). Two adapters: injected wallets (EIP-6963,
// injected.ts) and WalletConnect v2 (walletconnect.ts, only with the workspace's projectId; its
// client is a chunk of its own, loaded when the payer picks it). Nothing here touches the DOM:
// the page (page.ts) renders, the contract test (test/checkout/connectors.test.ts) runs the same
// adapters in Node.

/** An EIP-1193 request. */
export interface RequestArguments {
  method: string;
  params?: unknown;
}

/** What an EIP-1193 provider answers with; the page reads only these. */
export interface Eip1193Provider {
  request(args: RequestArguments): Promise<unknown>;
  on?(event: string, listener: (...args: never[]) => void): unknown;
  removeListener?(event: string, listener: (...args: never[]) => void): unknown;
}

/** The events a connection announces, as EIP-1193 names them. */
export interface ConnectionEvents {
  /** The wallet's accounts now (empty: it locked or disconnected this page). */
  accountsChanged: (accounts: string[]) => void;
  /** The wallet's chain now (EIP-155 number). */
  chainChanged: (chainId: number) => void;
  /** The connection ended (the wallet, or the page, closed it). */
  disconnect: () => void;
}

/** A connected wallet: EIP-1193 requests and events, and a way to close it. */
export interface WalletConnection {
  request(args: RequestArguments): Promise<unknown>;
  /** Listens to one event; returns the unsubscribe. */
  on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): () => void;
  disconnect(): Promise<void>;
}

/** What a connector may need from the page while it connects. */
export interface ConnectHooks {
  /**
   * A pairing to show (WalletConnect): the `wc:` URI the payer's wallet scans or opens, and its QR
   * code (rows of modules, `true` dark, a quiet zone included).
   */
  pairing?(uri: string, qr: boolean[][]): void;
}

/** One wallet the payer can choose. */
export interface WalletConnector {
  /** Unique among the page's connectors (an EIP-6963 uuid, or `walletconnect`). */
  id: string;
  kind: 'injected' | 'walletconnect';
  name: string;
  /** A data: image URL, or none. */
  icon: string | null;
  /**
   * Opens the connection: WalletConnect pairs with the payer's wallet (the session approved there);
   * an injected wallet is there already, its access asked by the page's first `eth_requestAccounts`.
   * Throws the wallet's refusal (EIP-1193 codes).
   */
  connect(hooks?: ConnectHooks): Promise<WalletConnection>;
}

/** A source of connectors. */
export interface WalletAdapter {
  /** Reports each connector as it is found (at once or later); returns the stop. */
  discover(found: (connector: WalletConnector) => void): () => void;
}

/** An EIP-1193 error as the page reads it: a numeric code (4001 declined, 4902 unknown chain, …). */
export class ProviderRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A hex or decimal chain id (wallets answer either; EIP-1193 says hex) as a number. */
export function chainIdOf(value: unknown): number {
  if (typeof value === 'number') return value;
  const text = String(value);
  return text.startsWith('0x') ? Number.parseInt(text, 16) : Number.parseInt(text, 10);
}

/** A small listener registry for a connection's events. */
export function connectionEvents() {
  const listeners: { [E in keyof ConnectionEvents]: Set<ConnectionEvents[E]> } = {
    accountsChanged: new Set(),
    chainChanged: new Set(),
    disconnect: new Set(),
  };
  return {
    on<E extends keyof ConnectionEvents>(event: E, listener: ConnectionEvents[E]): () => void {
      listeners[event].add(listener);
      return () => listeners[event].delete(listener);
    },
    emit<E extends keyof ConnectionEvents>(event: E, ...args: Parameters<ConnectionEvents[E]>) {
      for (const listener of listeners[event]) (listener as (...a: Parameters<ConnectionEvents[E]>) => void)(...args);
    },
  };
}

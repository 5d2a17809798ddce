// The WalletConnect client behind the WalletConnect connector: a chunk of its own
// (scripts/bundle-page.ts), loaded only when the payer picks WalletConnect. It runs WalletConnect's
// Sign protocol v2 through @walletconnect/universal-provider (ADR 61): a pairing URI for the payer's
// wallet to scan, a session approved there, then EIP-1193 requests relayed to the wallet.
import { UniversalProvider } from '@walletconnect/universal-provider';
import { encode } from 'uqr';
import {
  type ConnectHooks,
  chainIdOf,
  connectionEvents,
  ProviderRpcError,
  type RequestArguments,
  type WalletConnection,
} from './connector.js';

/** What the client connects with. Declared here, not in walletconnect.ts, so that no import runs back from this chunk to the page's first script. */
export interface WalletConnectSettings {
  /** The workspace's WalletConnect Cloud project id. */
  projectId: string;
  /** The session's EIP-155 chain: the one the page asks the wallet for. */
  chainId: number;
  /** What the payer's wallet shows of the page (its name, this origin). */
  metadata: { name: string; description: string; url: string; icons: string[] };
  /**
   * The relay's URL: WalletConnect's own (`wss://relay.walletconnect.org`) unless set. The page
   * never sets it; the contract test points it at its local stand-in relay.
   */
  relayUrl?: string;
}

/** What the page asks the wallet to allow: exactly what its flow sends. */
const METHODS = ['eth_signTypedData_v4', 'wallet_switchEthereumChain'];
/** Answered by the provider itself from the approved session. */
const LOCAL = ['eth_requestAccounts', 'eth_accounts', 'eth_chainId'];

type Storage = NonNullable<Parameters<typeof UniversalProvider.init>[0]['storage']>;

/**
 * The client's storage, in memory: nothing of the pairing or the session is kept in the browser's
 * storage of this origin; a reload pairs again.
 */
function memoryStorage(): Storage {
  const items = new Map<string, unknown>();
  return {
    getKeys: async () => [...items.keys()],
    getEntries: async <T = unknown>() => [...items.entries()] as [string, T][],
    getItem: async <T = unknown>(key: string) => items.get(key) as T | undefined,
    setItem: async <T = unknown>(key: string, value: T) => void items.set(key, value),
    removeItem: async (key: string) => void items.delete(key),
  } as Storage;
}

/** A WalletConnect SDK error (`{ code, message }`, 5000 for a rejected proposal) as an EIP-1193 one. */
function asRpcError(error: unknown): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === 5000 || code === 5001 || code === 5002) return new ProviderRpcError(4001, String(message ?? 'User rejected'));
  return error;
}

export async function openWalletConnect(settings: WalletConnectSettings, hooks: ConnectHooks): Promise<WalletConnection> {
  const provider = await UniversalProvider.init({
    projectId: settings.projectId,
    metadata: settings.metadata,
    ...(settings.relayUrl ? { relayUrl: settings.relayUrl } : {}),
    storage: memoryStorage(),
    // No telemetry (pulse.walletconnect.org is not in the page's CSP), no RPC pings.
    telemetryEnabled: false,
    disableProviderPing: true,
    logger: 'silent',
  });
  const onUri = (uri: string) => hooks.pairing?.(uri, encode(uri, { ecc: 'M', border: 4 }).data);
  provider.on('display_uri', onUri);
  try {
    await provider.connect({
      optionalNamespaces: {
        eip155: { chains: [`eip155:${settings.chainId}`], methods: METHODS, events: ['accountsChanged', 'chainChanged'] },
      },
    });
  } catch (error) {
    throw asRpcError(error);
  } finally {
    provider.removeListener('display_uri', onUri);
  }
  const events = connectionEvents();
  let open = true;
  provider.on('accountsChanged', (accounts: string[]) => events.emit('accountsChanged', accounts));
  provider.on('chainChanged', (chainId: unknown) => events.emit('chainChanged', chainIdOf(chainId)));
  provider.on('session_delete', () => {
    open = false;
    events.emit('disconnect');
  });
  return {
    async request(args: RequestArguments) {
      if (!open) throw new ProviderRpcError(4900, 'The WalletConnect session ended');
      if (!LOCAL.includes(args.method) && !METHODS.includes(args.method))
        throw new ProviderRpcError(4200, `The page does not send ${args.method} over WalletConnect`);
      try {
        const result = await provider.request(
          args.params === undefined ? { method: args.method } : { method: args.method, params: args.params as unknown[] },
        );
        // EIP-1193 answers the chain id in hex; the provider answers a number.
        return args.method === 'eth_chainId' ? `0x${chainIdOf(result).toString(16)}` : result;
      } catch (error) {
        throw asRpcError(error);
      }
    },
    on: events.on,
    async disconnect() {
      if (!open) return;
      open = false;
      await provider.disconnect().catch(() => {});
      events.emit('disconnect');
    },
  };
}

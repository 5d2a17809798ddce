// Injected wallets (browser extensions) found by EIP-6963: the page asks with
// `eip6963:requestProvider` and each wallet answers `eip6963:announceProvider` with its info and
// EIP-1193 provider. No third-party host: the wallet is in the payer's browser.
import {
  chainIdOf,
  connectionEvents,
  type Eip1193Provider,
  type WalletAdapter,
  type WalletConnection,
  type WalletConnector,
} from './connector.js';

interface Eip6963Detail {
  info: { uuid: string; name: string; icon: string; rdns: string };
  provider: Eip1193Provider;
}

/** An injected provider as a connection: its requests as they are, its events as the page reads them. */
export function injectedConnection(provider: Eip1193Provider): WalletConnection {
  const events = connectionEvents();
  const onAccounts = (accounts: string[]) => events.emit('accountsChanged', Array.isArray(accounts) ? accounts : []);
  const onChain = (chainId: unknown) => events.emit('chainChanged', chainIdOf(chainId));
  const onDisconnect = () => events.emit('disconnect');
  provider.on?.('accountsChanged', onAccounts as (...args: never[]) => void);
  provider.on?.('chainChanged', onChain as (...args: never[]) => void);
  provider.on?.('disconnect', onDisconnect as (...args: never[]) => void);
  return {
    request: (args) => provider.request(args),
    on: events.on,
    async disconnect() {
      // An injected wallet has no session of the page's to close: the page stops listening.
      provider.removeListener?.('accountsChanged', onAccounts as (...args: never[]) => void);
      provider.removeListener?.('chainChanged', onChain as (...args: never[]) => void);
      provider.removeListener?.('disconnect', onDisconnect as (...args: never[]) => void);
      events.emit('disconnect');
    },
  };
}

/** EIP-6963 discovery on `target` (the page's window): each announced wallet once, by its uuid. */
export function injectedAdapter(target: EventTarget): WalletAdapter {
  return {
    discover(found) {
      const seen = new Set<string>();
      const onAnnounce = (event: Event) => {
        const detail = (event as CustomEvent<Eip6963Detail>).detail;
        if (!detail?.info?.uuid || typeof detail.provider?.request !== 'function' || seen.has(detail.info.uuid)) return;
        seen.add(detail.info.uuid);
        const { info, provider } = detail;
        const connector: WalletConnector = {
          id: info.uuid,
          kind: 'injected',
          name: String(info.name),
          // Only an image data: URL is shown (CSP `img-src data:`); anything else is dropped.
          icon: typeof info.icon === 'string' && info.icon.startsWith('data:image/') ? info.icon : null,
          connect: async () => injectedConnection(provider),
        };
        found(connector);
      };
      target.addEventListener('eip6963:announceProvider', onAnnounce);
      target.dispatchEvent(new Event('eip6963:requestProvider'));
      return () => target.removeEventListener('eip6963:announceProvider', onAnnounce);
    },
  };
}

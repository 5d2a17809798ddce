// WalletConnect v2 as a connector: offered only when the session's workspace configured a
// WalletConnect `projectId` (the page data's `wallets.walletConnectProjectId`), and then the page's
// CSP names WalletConnect's relay and Verify hosts (routes.ts `pagePolicy`). This file is in the
// page's first script and is small; the WalletConnect client (walletconnect-client.ts, with
// @walletconnect/universal-provider: ADR 61) is a chunk of its own, imported only when the payer
// picks WalletConnect, so a payer with an injected wallet never downloads it.
import type { ConnectHooks, WalletAdapter, WalletConnection } from './connector.js';
import type { WalletConnectSettings } from './walletconnect-client.js';

/** A small WalletConnect mark (data: URL, as the CSP's `img-src data:` allows). */
const ICON = `data:image/svg+xml;base64,${btoa(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="6" fill="#3b99fc"/><path d="M6.6 9.4c3-2.9 7.8-2.9 10.8 0l.4.3-1.3 1.3-.5-.5c-2.1-2-5.5-2-7.6 0l-.5.5-1.3-1.3zm13.1 2.3 1.2 1.2-5.3 5.1-2.7-2.6-.9-.9-3.6 3.5-5.3-5.1 1.2-1.2 4.1 3.9 3.6-3.5 3.6 3.5z" fill="#fff"/></svg>',
)}`;

/** Loads the WalletConnect client chunk and connects through it. */
async function open(settings: WalletConnectSettings, hooks: ConnectHooks = {}): Promise<WalletConnection> {
  const { openWalletConnect } = await import('./walletconnect-client.js');
  return openWalletConnect(settings, hooks);
}

/** The WalletConnect adapter: one connector, "WalletConnect", found at once. */
export function walletConnectAdapter(settings: WalletConnectSettings): WalletAdapter {
  return {
    discover(found) {
      found({ id: 'walletconnect', kind: 'walletconnect', name: 'WalletConnect', icon: ICON, connect: (hooks) => open(settings, hooks) });
      return () => {};
    },
  };
}

import { holdfastVitestConfig } from '../../vitest.shared.js';

export default holdfastVitestConfig({
  infrastructure: true,
  test: {
    // The WalletConnect client of the checkout page (connectors.test.ts): its ES builds import
    // CommonJS-only packages by their default export (jsonrpc-ws-connection), which only a bundler
    // resolves to the ES build beside it; vite does, once it bundles them rather than Node.
    server: { deps: { inline: [/@walletconnect\//] } },
  },
});

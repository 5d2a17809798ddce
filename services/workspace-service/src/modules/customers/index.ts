// The public face of the customers module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export { customers } from './tables.js';
export { type CustomerWalletRow, customerWallets, walletLinkNonces } from './wallet-tables.js';

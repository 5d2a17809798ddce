// The public face of the customers module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export type { CustomerAdmin } from './admin.js';
export type { CustomerSessions } from './customer-sessions.js';
export { customers } from './tables.js';
export { type CustomerWalletRow, customerWallets, walletLinkNonces } from './wallet-tables.js';

// The public face of the wallets module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export { platformWalletAccounts } from './providers/tables.js';

// The public face of the relayer module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export type { RelayerChain } from './chain.js';
export type { RelayRow } from './repository.js';
export { checkoutWindow, type Funding, type RelayerService } from './service.js';

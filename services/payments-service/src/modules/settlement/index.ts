// The public face of the settlement module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export type { ChainAccess } from './chain.js';
export { refuseUnless, requireOrchestration, type SettlementOperations } from './operations.js';

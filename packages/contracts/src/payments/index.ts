// The Payments API (v1 and v2): scopes and credentials, transactions, batches, controls, settlement,
// compliance, disputes, the endpoint catalogue and the v2 operation table read from it.
export * from './access.js';
export * from './batches.js';
export * from './checkout.js';
export * from './compliance.js';
export * from './controls.js';
export * from './disputes.js';
export * from './endpoint.js';
export * as paymentsEndpoints from './endpoints/index.js';
export * from './event-stream.js';
export * from './operations.js';
export * from './relayer.js';
export * from './settlement.js';
export * from './transactions.js';
export * from './v2.js';
export * from './x402.js';

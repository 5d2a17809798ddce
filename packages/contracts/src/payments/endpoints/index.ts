/*
 * The Payments API, one entry per operation (method, path, documentation, schemas, answers, tier
 * and scopes), one file per resource, mirroring the service's modules (services/payments-service/
 * src/modules/<resource>/routes.ts serves the entries of <resource>.ts). A v2 entry names the v1
 * paths it succeeds (`v1`): the service serves those as deprecated twins from the same entry
 * (ADR 33). The v2 operation table (`PAYMENTS_V2_OPERATIONS`, docs/api/versions.md) is read from
 * these entries. Imported as `paymentsEndpoints`.
 */

export * from './batches.js';
export * from './checkout.js';
export * from './compliance.js';
export * from './controls.js';
export * from './disputes.js';
export * from './event-stream.js';
export * from './oauth.js';
export * from './platforms.js';
export * from './quotes.js';
export * from './reconciliation.js';
export * from './relayer.js';
export * from './settlement.js';
export * from './settlement-review.js';
export * from './test-helpers.js';
export * from './transactions.js';
export * from './webhooks.js';
export * from './x402.js';

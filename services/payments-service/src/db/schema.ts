// Every table of payments-service, for drizzle (queries) and drizzle-kit (migrations).
import { outboxTable } from '@holdfast/db';
import { paymentsSchema } from './pg-schema.js';

// drizzle-kit writes CREATE SCHEMA only for an exported pgSchema.
export { paymentsSchema, SCHEMA_NAME } from './pg-schema.js';
export const outbox = outboxTable(paymentsSchema);
export { credentialInvalidations } from '../modules/auth/tables.js';
export { checkoutSessions, checkoutWalletSettings } from '../modules/checkout/tables.js';
export { identityProviderEvents, verifications } from '../modules/compliance/tables.js';
export { codeDeliveries, controlChallenges, controlResults, controlTemplates } from '../modules/controls/tables.js';
export { disputeEvidence, disputes } from '../modules/disputes/tables.js';
export { idempotentRequests } from '../modules/idempotency/tables.js';
export { oauthClients, oauthTokens } from '../modules/oauth/tables.js';
export { apiKeys, platforms } from '../modules/platforms/tables.js';
export { quotes } from '../modules/quotes/tables.js';
export { reconciliationMismatches } from '../modules/reconciliation/tables.js';
export { relayedLocks, relayerAccounts } from '../modules/relayer/tables.js';
export { remoteTasks } from '../modules/remote-tasks/tables.js';
export {
  appliedChainMessages,
  claimedTransfers,
  disputedClaims,
  earlyReleaseAttestations,
  rescindRequests,
  settlementOperatorActions,
  settlements,
} from '../modules/settlement/tables.js';
export { batches, transactions, transactionTransitions } from '../modules/transactions/tables.js';

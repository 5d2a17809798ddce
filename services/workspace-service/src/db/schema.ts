// Every table of workspace-service, for drizzle (queries) and drizzle-kit (migrations).
import { outboxTable, rateLimitCountersTable } from '@holdfast/db';
import { workspaceSchema } from './pg-schema.js';

// drizzle-kit writes CREATE SCHEMA only for an exported pgSchema.
export { SCHEMA_NAME, workspaceSchema } from './pg-schema.js';
export const outbox = outboxTable(workspaceSchema);
export const rateLimitCounters = rateLimitCountersTable(workspaceSchema);

// Wallets: provider configs, the built-in HD wallet, external wallets, customer wallets, contracts.
export { contractDeployments } from '../modules/contracts/tables.js';
export { customerWallets, walletLinkNonces } from '../modules/customer-wallets/tables.js';
export { externalWalletConfigs } from '../modules/external-wallets/tables.js';
export { platformWalletAccounts, platformWallets } from '../modules/providers/tables.js';
export { walletProviderConfigs } from '../modules/wallet-providers/tables.js';

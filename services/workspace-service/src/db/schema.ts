// Every table of workspace-service, for drizzle (queries) and drizzle-kit (migrations).

export { auditLogs } from '../modules/audit/tables.js';
export { customerRefreshTokens, customerSessions, customers } from '../modules/customers/tables.js';
export { customerWallets, walletLinkNonces } from '../modules/customers/wallet-tables.js';
export { workspaceIntegrations } from '../modules/integrations/tables.js';
export { notificationPreferences, notifications } from '../modules/notifications/tables.js';
export { remoteTasks } from '../modules/remote-tasks/tables.js';
export { sandboxIssuances } from '../modules/sandbox-credentials/tables.js';
export { loginThrottles, refreshTokens, sessions, verificationCodes } from '../modules/sessions/tables.js';
export { settings } from '../modules/settings/tables.js';
export { users } from '../modules/users/tables.js';
// Wallets: provider configs, the built-in HD wallet, external wallets, customer wallets, contracts.
export { contractDeployments } from '../modules/wallets/contracts/tables.js';
export { externalWalletConfigs } from '../modules/wallets/external/tables.js';
export { walletProviderConfigs } from '../modules/wallets/provider-configs/tables.js';
export { platformWalletAccounts, platformWallets } from '../modules/wallets/providers/tables.js';
export { platformMappings, workspaceBilling, workspaces, workspaceWalletSettings } from '../modules/workspaces/tables.js';
// drizzle-kit writes CREATE SCHEMA only for an exported pgSchema.
export { SCHEMA_NAME, workspaceSchema } from './pg-schema.js';

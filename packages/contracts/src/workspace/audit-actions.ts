/**
 * What a mutating Workspace API route does, for its audit entries: the action and the type of the
 * resource it acts on. An endpoint of the catalogue names its action (`audit`); the service's
 * audit trail records it (docs/workspace-audit-logs.md lists them all).
 */
export interface AuditAction {
  action: string;
  resourceType: string;
}

/** Every audited action of the Workspace API but those of customers and wallets (below). */
export const WORKSPACE_AUDIT = {
  signup: { action: 'auth.signup', resourceType: 'user' },
  verifyEmail: { action: 'auth.verify_email', resourceType: 'user' },
  resendCode: { action: 'auth.resend_code', resourceType: 'user' },
  login: { action: 'auth.login', resourceType: 'session' },
  refresh: { action: 'auth.refresh', resourceType: 'session' },
  logout: { action: 'auth.logout', resourceType: 'session' },
  bootstrap: { action: 'user.bootstrap_super_admin', resourceType: 'user' },
  userCreate: { action: 'user.create', resourceType: 'user' },
  userUpdate: { action: 'user.update', resourceType: 'user' },
  userDelete: { action: 'user.delete', resourceType: 'user' },
  profileUpdate: { action: 'user.profile_update', resourceType: 'user' },
  passwordChange: { action: 'user.password_change', resourceType: 'user' },
  userAvatarUpload: { action: 'user.avatar_upload', resourceType: 'user' },
  userAvatarDelete: { action: 'user.avatar_delete', resourceType: 'user' },
  workspaceCreate: { action: 'workspace.create', resourceType: 'workspace' },
  workspaceUpdate: { action: 'workspace.update', resourceType: 'workspace' },
  workspaceDelete: { action: 'workspace.delete', resourceType: 'workspace' },
  workspaceAvatarUpload: { action: 'workspace.avatar_upload', resourceType: 'workspace' },
  workspaceAvatarDelete: { action: 'workspace.avatar_delete', resourceType: 'workspace' },
  billingUpdate: { action: 'workspace.billing_update', resourceType: 'workspace_billing' },
  walletSettingsUpdate: { action: 'workspace.wallet_settings_update', resourceType: 'workspace_wallet_settings' },
  // Integrations, settings and notifications (issue 9).
  integrationCreate: { action: 'integration.create', resourceType: 'workspace_integration' },
  integrationUpdate: { action: 'integration.update', resourceType: 'workspace_integration' },
  integrationDelete: { action: 'integration.delete', resourceType: 'workspace_integration' },
  integrationDisable: { action: 'integration.disable', resourceType: 'workspace_integration' },
  integrationValidate: { action: 'integration.validate', resourceType: 'workspace_integration' },
  settingUpsert: { action: 'setting.upsert', resourceType: 'setting' },
  settingUpdate: { action: 'setting.update', resourceType: 'setting' },
  globalSettingsBulk: { action: 'global_setting.bulk_upsert', resourceType: 'global_setting' },
  notificationRead: { action: 'notification.read', resourceType: 'notification' },
  notificationsReadAll: { action: 'notification.read_all', resourceType: 'notification' },
  notificationsDeleteAll: { action: 'notification.delete_all', resourceType: 'notification' },
  notificationPreferencesUpdate: { action: 'notification.preferences_update', resourceType: 'notification_preferences' },
  sandboxCredentialIssue: { action: 'sandbox_credential.issue', resourceType: 'sandbox_credential' },
  sandboxCredentialRevoke: { action: 'sandbox_credential.revoke', resourceType: 'sandbox_credential' },
  oauthClientCreate: { action: 'oauth_client.create', resourceType: 'oauth_client' },
  oauthClientUpdate: { action: 'oauth_client.update', resourceType: 'oauth_client' },
  oauthClientDelete: { action: 'oauth_client.delete', resourceType: 'oauth_client' },
  oauthClientRevokeTokens: { action: 'oauth_client.revoke_tokens', resourceType: 'oauth_client' },
  transactionCreate: { action: 'transaction.create', resourceType: 'transaction' },
  transactionSubmitEscrowHash: { action: 'transaction.submit_escrow_hash', resourceType: 'transaction' },
  webhookCreate: { action: 'webhook.create', resourceType: 'webhook' },
  webhookUpdate: { action: 'webhook.update', resourceType: 'webhook' },
  webhookDelete: { action: 'webhook.delete', resourceType: 'webhook' },
  webhookRotateSecret: { action: 'webhook.rotate_secret', resourceType: 'webhook' },
  webhookCompleteRotation: { action: 'webhook.complete_rotation', resourceType: 'webhook' },
  webhookResetCircuitBreaker: { action: 'webhook.reset_circuit_breaker', resourceType: 'webhook' },
  webhookTest: { action: 'webhook.test', resourceType: 'webhook' },
  webhookResendDelivery: { action: 'webhook.resend_delivery', resourceType: 'webhook' },
  webhookReplay: { action: 'webhook.replay', resourceType: 'webhook' },
} as const satisfies Record<string, AuditAction>;

/** The audit actions of customers (docs/workspace-audit-logs.md lists them). */
export const CUSTOMER_AUDIT = {
  create: { action: 'customer.create', resourceType: 'customer' },
  update: { action: 'customer.update', resourceType: 'customer' },
  delete: { action: 'customer.delete', resourceType: 'customer' },
  register: { action: 'customer.register', resourceType: 'customer' },
  login: { action: 'customer.login', resourceType: 'customer_session' },
  refresh: { action: 'customer.refresh', resourceType: 'customer_session' },
  logout: { action: 'customer.logout', resourceType: 'customer_session' },
} as const satisfies Record<string, AuditAction>;

/** The audit actions of the wallet features (docs/workspace-audit-logs.md lists them). */
export const WALLET_AUDIT = {
  providerConfigCreate: { action: 'wallet_provider_config.create', resourceType: 'wallet_provider_config' },
  providerConfigUpdate: { action: 'wallet_provider_config.update', resourceType: 'wallet_provider_config' },
  providerConfigDelete: { action: 'wallet_provider_config.delete', resourceType: 'wallet_provider_config' },
  providerConfigSetDefault: { action: 'wallet_provider_config.set_default', resourceType: 'wallet_provider_config' },
  externalConfigUpsert: { action: 'external_wallet_config.upsert', resourceType: 'external_wallet_config' },
  externalConfigDelete: { action: 'external_wallet_config.delete', resourceType: 'external_wallet_config' },
  accountsCreate: { action: 'wallet_account.create', resourceType: 'wallet_account' },
  customerWalletLink: { action: 'customer_wallet.link', resourceType: 'customer_wallet' },
  custodyAWalletCreate: { action: 'customer_wallet.custody_a_create', resourceType: 'customer_wallet' },
  customerWalletAutoCreate: { action: 'customer_wallet.auto_create', resourceType: 'customer_wallet' },
  customerWalletAutoCreateSkip: { action: 'customer_wallet.auto_create_skip', resourceType: 'customer_wallet' },
  contractDeploy: { action: 'contract_deployment.deploy', resourceType: 'contract_deployment' },
  contractDeprecate: { action: 'contract_deployment.deprecate', resourceType: 'contract_deployment' },
} as const satisfies Record<string, AuditAction>;

/** What a mutating route does, for its audit entries. */
export interface AuditAction {
  action: string;
  resourceType: string;
}

/** Every audited action (docs/audit-logs.md lists them). Routes name theirs in `config.audit`. */
export const AUDIT = {
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
  sandboxCredentialIssue: { action: 'sandbox_credential.issue', resourceType: 'sandbox_credential' },
  sandboxCredentialRevoke: { action: 'sandbox_credential.revoke', resourceType: 'sandbox_credential' },
  oauthClientCreate: { action: 'oauth_client.create', resourceType: 'oauth_client' },
  oauthClientUpdate: { action: 'oauth_client.update', resourceType: 'oauth_client' },
  oauthClientDelete: { action: 'oauth_client.delete', resourceType: 'oauth_client' },
  oauthClientRevokeTokens: { action: 'oauth_client.revoke_tokens', resourceType: 'oauth_client' },
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

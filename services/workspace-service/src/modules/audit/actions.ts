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
} as const satisfies Record<string, AuditAction>;

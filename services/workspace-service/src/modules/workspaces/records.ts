import type { PlatformMapping, WalletSettings, WorkspaceBilling, WorkspaceRecord } from '@holdfast/contracts';
import type { PlatformMappingRow } from './platform-mappings.js';
import type { BillingRow, WalletSettingsRow, WorkspaceRow } from './repository.js';

export function toWorkspaceRecord(row: WorkspaceRow): WorkspaceRecord {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    email: row.email,
    status: row.status,
    avatarPath: row.avatarPath,
    webhookUrl: row.webhookUrl,
    walletProvider: row.walletProvider,
    walletId: row.walletId,
    custodyCOrganizationId: row.custodyCOrganizationId,
    metadata: row.metadata,
    billingEnabled: row.billingEnabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The fields of a workspace an audit entry shows. */
export function auditedWorkspace(row: WorkspaceRow): Record<string, unknown> {
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = toWorkspaceRecord(row);
  return rest;
}

export function toBilling(workspace: WorkspaceRow, row: BillingRow | undefined): WorkspaceBilling {
  return {
    workspaceId: workspace.id,
    billingEnabled: workspace.billingEnabled,
    plan: row?.plan ?? 'sandbox',
    billingEmail: row?.billingEmail ?? null,
    companyName: row?.companyName ?? null,
    taxId: row?.taxId ?? null,
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}

export function toWalletSettings(workspace: WorkspaceRow, row: WalletSettingsRow | undefined): WalletSettings {
  return {
    workspaceId: workspace.id,
    walletProvider: workspace.walletProvider,
    walletId: workspace.walletId,
    custodyCOrganizationId: workspace.custodyCOrganizationId,
    defaultNetwork: row?.defaultNetwork ?? null,
    enabledNetworks: row?.enabledNetworks ?? [],
    defaultCurrency: row?.defaultCurrency ?? null,
    autoCreateCustomerWallets: row?.autoCreateCustomerWallets ?? false,
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}

export function toPlatformMapping(row: PlatformMappingRow): PlatformMapping {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    platformId: row.platformId,
    kind: row.kind,
    name: row.name,
    status: row.status,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

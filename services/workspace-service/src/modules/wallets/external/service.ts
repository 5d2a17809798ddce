import {
  AppError,
  type CheckoutWalletSettings,
  type ExternalWalletConfig,
  type ExternalWalletConfigDeleted,
  type ExternalWalletConfigList,
  type ExternalWalletSettings,
  type ExternalWalletType,
  type UpsertExternalWalletConfigBody,
  uuidv7,
} from '@holdfast/contracts';
import type { SecretBox } from '@holdfast/secrets';
import { type ActorContext, type AuditSink, diffChanges, WALLET_AUDIT } from '../common/audit.js';
import type { Tx } from '../provider-configs/repository.js';
import type { ExternalWalletConfigRepository, ExternalWalletPatch } from './repository.js';
import type { ExternalWalletConfigRow } from './tables.js';

/**
 * How payments learns of a change (its hosted checkout page shows the configs' name and logo and
 * bounds sessions by their networks and templates): `enqueue` writes a remote task in the change's
 * transaction, `attempt` sends it right after the commit (the runner retries until answered).
 */
export interface CheckoutSettingsSync {
  enqueue: (tx: Tx, workspaceId: string) => Promise<string[]>;
  attempt: (taskIds: string[]) => Promise<void>;
}

export interface ExternalWalletConfigServiceDeps {
  repository: ExternalWalletConfigRepository;
  secrets: SecretBox;
  audit: AuditSink;
  sync?: CheckoutSettingsSync;
}

/** `BASE_SEPOLIA` (the configs' names) -> `base-sepolia` (payments'). */
export const paymentsNetworkOf = (network: string) => network.toLowerCase().replaceAll('_', '-');

/**
 * What payments' checkout takes of a workspace's configs: the enabled ones merged, in type order
 * (EXTERNAL_WALLET_1 first): the first name, logo and project id set; the union of their networks
 * and templates, where one enabled config that allows any (an empty list) allows any. Null when
 * none is enabled (payments' defaults). The RPC key never leaves: the page does not use it.
 */
export function checkoutSettingsOf(rows: ExternalWalletConfigRow[]): CheckoutWalletSettings | null {
  const enabled = rows.filter((r) => r.isEnabled).sort((a, b) => a.providerType.localeCompare(b.providerType));
  if (enabled.length === 0) return null;
  const first = (key: 'appName' | 'appLogoUrl' | 'projectId') =>
    enabled.map((r) => r.settings[key]).find((v) => v !== undefined && v !== '');
  const union = (lists: string[][]) => (lists.some((l) => l.length === 0) ? [] : [...new Set(lists.flat())]);
  const appName = first('appName');
  const appLogoUrl = first('appLogoUrl');
  const projectId = first('projectId');
  return {
    ...(appName !== undefined ? { appName } : {}),
    ...(appLogoUrl !== undefined ? { appLogoUrl } : {}),
    ...(projectId !== undefined ? { projectId } : {}),
    allowedNetworks: union(enabled.map((r) => r.allowedNetworks.map(paymentsNetworkOf))),
    allowedTemplateIds: union(enabled.map((r) => r.allowedTemplateIds)),
  };
}

/** Where a config's sealed RPC key is bound: a value copied to another row does not open. */
export function rpcKeyContext(id: string): string {
  return `external_wallet_configs.rpc_provider_api_key:${id}`;
}

const AUDITED = ['isEnabled', 'allowedNetworks', 'allowedTemplateIds', 'settings'] as const;

/**
 * The browser wallet connectors (EXTERNAL_WALLET_1..4) a workspace offers its customers. The RPC
 * provider key is a client-side key the customer's browser needs, so it is returned; it is still
 * sealed at rest and only a redacted marker reaches the audit trail.
 */
export function createExternalWalletConfigService(deps: ExternalWalletConfigServiceDeps) {
  const { repository, secrets } = deps;

  function toApi(row: ExternalWalletConfigRow): ExternalWalletConfig {
    const config: ExternalWalletSettings = { ...row.settings };
    if (row.rpcProviderApiKeySealed) config.rpcProviderApiKey = secrets.open(row.rpcProviderApiKeySealed, rpcKeyContext(row.id));
    return {
      id: row.id,
      workspaceId: row.workspaceId,
      providerType: row.providerType,
      isEnabled: row.isEnabled,
      allowedNetworks: row.allowedNetworks as ExternalWalletConfig['allowedNetworks'],
      allowedTemplateIds: row.allowedTemplateIds,
      config,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  /** The public part of `config` and the sealed key, for a row id. */
  function split(id: string, config: ExternalWalletSettings): Pick<ExternalWalletPatch, 'settings' | 'rpcProviderApiKeySealed'> {
    const { rpcProviderApiKey, ...settings } = config;
    return { settings, rpcProviderApiKeySealed: rpcProviderApiKey ? secrets.seal(rpcProviderApiKey, rpcKeyContext(id)) : null };
  }

  return {
    /** The merged settings payments' checkout takes, read now, and the database time they were read at (the remote task's handler). */
    checkoutSettings: async (workspaceId: string): Promise<{ settings: CheckoutWalletSettings | null; asOf: string }> => {
      const { rows, asOf } = await repository.listAsOf(workspaceId);
      return { settings: checkoutSettingsOf(rows), asOf };
    },

    /** GET /workspaces/{id}/external-wallet-configs: `{configs}`, by type. */
    list: async (workspaceId: string): Promise<ExternalWalletConfigList> => ({
      configs: (await repository.list(workspaceId)).map(toApi),
    }),

    /** GET .../external-wallet-configs/{type}: the bare config; 404 when the type is not configured. */
    get: async (workspaceId: string, type: ExternalWalletType): Promise<ExternalWalletConfig> => {
      const row = await repository.find(workspaceId, type);
      if (!row) throw new AppError('NOT_FOUND', `${type} is not configured for this workspace`);
      return toApi(row);
    },

    /**
     * PUT .../external-wallet-configs/{type}: creates the config (isEnabled false and empty lists
     * unless given) or updates the fields given; `config` replaces the whole settings object.
     */
    upsert: async (
      workspaceId: string,
      type: ExternalWalletType,
      body: UpsertExternalWalletConfigBody,
      actor: ActorContext,
    ): Promise<ExternalWalletConfig> => {
      const row = await repository.transaction(async (tx) => {
        await repository.lock(tx, workspaceId, type);
        const before = await repository.find(workspaceId, type, tx);
        const keyTouched = body.config !== undefined && (body.config.rpcProviderApiKey !== undefined || !!before?.rpcProviderApiKeySealed);
        let after: ExternalWalletConfigRow;
        if (!before) {
          const id = uuidv7();
          after = await repository.insert(tx, {
            id,
            workspaceId,
            providerType: type,
            isEnabled: body.isEnabled ?? false,
            allowedNetworks: body.allowedNetworks ?? [],
            allowedTemplateIds: body.allowedTemplateIds ?? [],
            ...split(id, body.config ?? {}),
          });
        } else {
          const patch: ExternalWalletPatch = {};
          if (body.isEnabled !== undefined) patch.isEnabled = body.isEnabled;
          if (body.allowedNetworks !== undefined) patch.allowedNetworks = body.allowedNetworks;
          if (body.allowedTemplateIds !== undefined) patch.allowedTemplateIds = body.allowedTemplateIds;
          if (body.config !== undefined) Object.assign(patch, split(before.id, body.config));
          after = await repository.update(tx, before.id, patch);
        }
        await deps.audit(tx, {
          ...WALLET_AUDIT.externalConfigUpsert,
          resourceId: after.id,
          details: `${before ? 'Updated' : 'Created'} the ${type} config`,
          workspaceId,
          changes: diffChanges(
            before ?? null,
            after,
            AUDITED,
            keyTouched || (!before && !!after.rpcProviderApiKeySealed) ? ['config.rpcProviderApiKey'] : [],
          ),
          actor,
        });
        return { after, taskIds: (await deps.sync?.enqueue(tx, workspaceId)) ?? [] };
      });
      if (row.taskIds.length > 0) await deps.sync?.attempt(row.taskIds);
      return toApi(row.after);
    },

    /** DELETE .../external-wallet-configs/{type}: `{message}`; 404 when the type is not configured. */
    remove: async (workspaceId: string, type: ExternalWalletType, actor: ActorContext): Promise<ExternalWalletConfigDeleted> => {
      const taskIds = await repository.transaction(async (tx) => {
        await repository.lock(tx, workspaceId, type);
        const before = await repository.find(workspaceId, type, tx);
        if (!before) throw new AppError('NOT_FOUND', `${type} is not configured for this workspace`);
        await repository.delete(tx, before.id);
        await deps.audit(tx, {
          ...WALLET_AUDIT.externalConfigDelete,
          resourceId: before.id,
          workspaceId,
          changes: diffChanges(before, null, AUDITED, before.rpcProviderApiKeySealed ? ['config.rpcProviderApiKey'] : []),
          actor,
        });
        return (await deps.sync?.enqueue(tx, workspaceId)) ?? [];
      });
      if (taskIds.length > 0) await deps.sync?.attempt(taskIds);
      return { message: `${type} configuration deleted` };
    },
  };
}
export type ExternalWalletConfigService = ReturnType<typeof createExternalWalletConfigService>;

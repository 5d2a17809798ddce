import {
  type AppEnv,
  AppError,
  type CheckDuplicateQuery,
  type ConnectionTestResult,
  type CreateWalletProviderConfigBody,
  CUSTODY_CONFIG_SCHEMAS,
  type CustodyConfig,
  type CustodyProviderType,
  type DuplicateCheckResult,
  type FieldError,
  type ListWalletProviderConfigsQuery,
  notFound,
  paginationMeta,
  type UpdateWalletProviderConfigBody,
  uuidv7,
  validationError,
  type WalletProviderConfig,
  type WalletProviderConfigList,
  type WalletProviderStatus,
} from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { createOutboundPolicy, type OutboundPolicy } from '@holdfast/outbound';
import type { SecretBox } from '@holdfast/secrets';
import { Value } from '@sinclair/typebox/value';
import { type ActorContext, type AuditSink, canAccess, diffChanges, WALLET_AUDIT, type WorkspaceAccess } from '../common/audit.js';
import type { WalletProviderAdapter } from '../providers/adapter.js';
import { createCustodyAdapter } from '../providers/registry.js';
import type { VendorAdapterDeps } from '../providers/vendor-common.js';
import type { ConfigPatch, Tx, WalletProviderConfigRepository } from './repository.js';
import type { WalletProviderConfigRow } from './tables.js';

/**
 * Which configs a caller may see and change. Global configs are visible to everyone who may see
 * any; changing them needs `manageGlobal`. The routes derive this from the session's role.
 */
export interface ConfigAccess {
  workspaces: WorkspaceAccess;
  manageGlobal: boolean;
}

/** A SUPER_ADMIN's access: every workspace and the global configs. */
export const FULL_CONFIG_ACCESS: ConfigAccess = { workspaces: 'all', manageGlobal: true };

/** Where a config's sealed credentials are bound: a value copied to another row does not open. */
export function configContext(id: string): string {
  return `wallet_provider_configs.config:${id}`;
}

const AUDITED_FIELDS = [
  'workspaceId',
  'isGlobal',
  'providerType',
  'providerName',
  'walletSetId',
  'defaultWalletId',
  'isActive',
  'isDefault',
  'supportedNetworks',
  'metadata',
] as const;

export interface WalletProviderConfigServiceDeps {
  repository: WalletProviderConfigRepository;
  secrets: SecretBox;
  audit: AuditSink;
  appEnv: AppEnv;
  vendor: VendorAdapterDeps;
  logger: Logger;
  /**
   * Where a tenant's `baseUrl` may point (checked on create and update) and the guarded dispatcher
   * every vendor call goes through. Default: the policy of `appEnv` (public addresses only outside
   * `local`) with the system resolver.
   */
  outbound?: OutboundPolicy;
}

export function toWalletProviderConfig(row: WalletProviderConfigRow): WalletProviderConfig {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    isGlobal: row.isGlobal,
    providerType: row.providerType,
    providerName: row.providerName,
    walletSetId: row.walletSetId,
    defaultWalletId: row.defaultWalletId,
    isActive: row.isActive,
    isDefault: row.isDefault,
    supportedNetworks: row.supportedNetworks,
    metadata: row.metadata,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Every reason a credential object is unusable for its provider type; values are never echoed. */
export function credentialProblems(providerType: CustodyProviderType, config: unknown, appEnv: AppEnv): FieldError[] {
  const schema = CUSTODY_CONFIG_SCHEMAS[providerType];
  const problems: FieldError[] = [];
  const seen = new Set<string>();
  for (const error of Value.Errors(schema, config)) {
    const field = `config${error.path.replaceAll('/', '.')}`;
    if (seen.has(field)) continue;
    seen.add(field);
    const reason =
      error.message === 'Expected required property'
        ? 'is required'
        : error.message === 'Unexpected property'
          ? 'is not a known parameter'
          : error.message.replace(/^Expected/, 'must be').toLowerCase();
    problems.push({ field, reason });
  }
  const baseUrl = (config as { baseUrl?: unknown } | null)?.baseUrl;
  if (problems.length === 0 && appEnv !== 'local' && typeof baseUrl === 'string' && !baseUrl.startsWith('https://')) {
    problems.push({ field: 'config.baseUrl', reason: 'must be an https URL outside local' });
  }
  return problems;
}

/**
 * Where a schema-valid config's `baseUrl` points, checked against the outbound policy: outside
 * `local`, not a loopback, private, link-local or otherwise non-public address, neither as written
 * nor as its host resolves now (connections are checked again, so a later DNS change does not get
 * through either). Runs only on an https URL outside `local`: the scheme has its own message.
 */
export async function baseUrlProblems(policy: OutboundPolicy, baseUrl: unknown): Promise<FieldError[]> {
  if (!policy.publicOnly || typeof baseUrl !== 'string' || !baseUrl.startsWith('https://')) return [];
  return policy.checkUrl(baseUrl, { field: 'config.baseUrl', httpsOnly: true });
}

/**
 * Wallet provider configs: custody vendor credentials per workspace (and global ones the operator
 * inserts). Credentials are sealed with AES-256-GCM bound to the row and leave the service only
 * towards their vendor; answers, logs and audit entries never hold them.
 */
export function createWalletProviderConfigService(deps: WalletProviderConfigServiceDeps) {
  const { repository, secrets, audit } = deps;
  const outbound = deps.outbound ?? createOutboundPolicy({ appEnv: deps.appEnv, connectTimeoutMs: deps.vendor.timeoutMs });
  const vendor: VendorAdapterDeps = { ...deps.vendor, dispatcher: deps.vendor.dispatcher ?? outbound.dispatcher() };

  function visible(row: WalletProviderConfigRow | undefined, access: ConfigAccess): row is WalletProviderConfigRow {
    if (!row) return false;
    if (row.isGlobal) return true;
    return row.workspaceId !== null && canAccess(access.workspaces, row.workspaceId);
  }

  function assertManageable(row: WalletProviderConfigRow, access: ConfigAccess): void {
    if (row.isGlobal && !access.manageGlobal) throw new AppError('FORBIDDEN', 'Global wallet provider configs are managed by super admins');
  }

  function assertWorkspaceAccess(workspaceId: string, access: ConfigAccess): void {
    if (!canAccess(access.workspaces, workspaceId)) {
      throw new AppError('FORBIDDEN', 'No access to this workspace');
    }
  }

  async function lockedVisible(tx: Tx, id: string, access: ConfigAccess): Promise<WalletProviderConfigRow> {
    const row = await repository.findById(id, tx, true);
    if (!visible(row, access)) throw notFound('Wallet provider config');
    return row;
  }

  /** Opens the stored credentials (and checks them again: the schema may have tightened since). */
  function openConfig(row: WalletProviderConfigRow): CustodyConfig {
    const config = JSON.parse(secrets.open(row.configSealed, configContext(row.id))) as unknown;
    if (!Value.Check(CUSTODY_CONFIG_SCHEMAS[row.providerType], config)) {
      throw new AppError('WALLET_PROVIDER_NOT_CONFIGURED', `The stored ${row.providerType} credentials are incomplete; update the config`);
    }
    return config as CustodyConfig;
  }

  /**
   * Takes the default flag from the scope's other configs. Their change is part of this act: its
   * one audit entry names them (`metadata.previousDefaultIds`).
   */
  async function clearOtherDefaults(tx: Tx, row: Pick<WalletProviderConfigRow, 'id' | 'workspaceId'>): Promise<string[]> {
    const cleared = await repository.clearDefault(tx, row.workspaceId, row.id);
    return cleared.map((other) => other.id);
  }

  const previousDefaults = (ids: string[]) => (ids.length > 0 ? { metadata: { previousDefaultIds: ids } } : {});

  function adapterOf(row: WalletProviderConfigRow): WalletProviderAdapter {
    return createCustodyAdapter({ providerType: row.providerType, config: openConfig(row), walletSetId: row.walletSetId }, vendor);
  }

  return {
    /** POST /wallet-provider-configs. 400 on a bad credential object; 403 outside the caller's workspaces. */
    create: async (body: CreateWalletProviderConfigBody, access: ConfigAccess, actor: ActorContext): Promise<WalletProviderConfig> => {
      assertWorkspaceAccess(body.workspaceId, access);
      const problems = credentialProblems(body.providerType, body.config, deps.appEnv);
      if (problems.length === 0) problems.push(...(await baseUrlProblems(outbound, (body.config as { baseUrl?: unknown }).baseUrl)));
      const isActive = body.isActive ?? true;
      const isDefault = body.isDefault ?? false;
      if (isDefault && !isActive) problems.push({ field: 'isDefault', reason: 'cannot be true for an inactive config' });
      if (problems.length > 0) throw validationError(problems);
      const id = uuidv7();
      const row = await repository.transaction(async (tx) => {
        // The old default loses its flag before the new one is inserted: the unique index on the
        // scope's default allows one at a time, and both moves share this transaction.
        if (isDefault) await repository.lockScope(tx, body.workspaceId);
        const cleared = isDefault ? await clearOtherDefaults(tx, { id, workspaceId: body.workspaceId }) : [];
        const inserted = await repository.insert(tx, {
          id,
          workspaceId: body.workspaceId,
          isGlobal: false,
          providerType: body.providerType,
          providerName: body.providerName,
          walletSetId: body.walletSetId ?? null,
          defaultWalletId: body.defaultWalletId ?? null,
          isActive,
          isDefault,
          supportedNetworks: body.supportedNetworks ?? [],
          metadata: body.metadata ?? {},
          configSealed: secrets.seal(JSON.stringify(body.config), configContext(id)),
        });
        await audit(tx, {
          ...WALLET_AUDIT.providerConfigCreate,
          resourceId: id,
          workspaceId: inserted.workspaceId,
          details: `Created ${inserted.providerType} config ${inserted.providerName}`,
          changes: diffChanges(null, inserted, AUDITED_FIELDS, ['config']),
          actor,
          ...previousDefaults(cleared),
        });
        return inserted;
      });
      return toWalletProviderConfig(row);
    },

    /** GET /wallet-provider-configs: `{data, total, page, limit, totalPages}`, newest first. */
    list: async (query: ListWalletProviderConfigsQuery, access: ConfigAccess): Promise<WalletProviderConfigList> => {
      const page = query.page ?? 1;
      const limit = query.limit ?? 20;
      const { rows, total } = await repository.list(
        {
          workspaces: access.workspaces,
          isGlobal: query.isGlobal,
          workspaceId: query.workspaceId,
          providerType: query.providerType,
          isActive: query.isActive,
        },
        page,
        limit,
      );
      const { totalPages } = paginationMeta(page, limit, total);
      return { data: rows.map(toWalletProviderConfig), total, page, limit, totalPages };
    },

    /** GET /wallet-provider-configs/{id}. 404 when it does not exist or is not the caller's. */
    get: async (id: string, access: ConfigAccess): Promise<WalletProviderConfig> => {
      const row = await repository.findById(id);
      if (!visible(row, access)) throw notFound('Wallet provider config');
      return toWalletProviderConfig(row);
    },

    /**
     * PATCH /wallet-provider-configs/{id}. `config` is merged over the stored credentials and checked
     * whole. Deactivating a config also takes its default flag. Every change raises `version`.
     */
    update: async (
      id: string,
      body: UpdateWalletProviderConfigBody,
      access: ConfigAccess,
      actor: ActorContext,
    ): Promise<WalletProviderConfig> => {
      // A new baseUrl is checked before the row is locked (the check may wait for DNS); a stored
      // one was checked when it was set, and every connection is checked anyway.
      const newBaseUrl = (body.config as { baseUrl?: unknown } | undefined)?.baseUrl;
      const urlProblems = await baseUrlProblems(outbound, newBaseUrl);
      const row = await repository.transaction(async (tx) => {
        const before = await lockedVisible(tx, id, access);
        assertManageable(before, access);
        const patch: ConfigPatch = {};
        const problems: FieldError[] = [];
        if (body.config !== undefined) {
          const merged = { ...(openConfig(before) as Record<string, unknown>), ...body.config };
          const credentials = credentialProblems(before.providerType, merged, deps.appEnv);
          problems.push(...credentials, ...(credentials.length === 0 ? urlProblems : []));
          patch.configSealed = secrets.seal(JSON.stringify(merged), configContext(before.id));
        }
        const isActive = body.isActive ?? before.isActive;
        let isDefault = body.isDefault ?? before.isDefault;
        if (body.isDefault === true && !isActive) problems.push({ field: 'isDefault', reason: 'cannot be true for an inactive config' });
        if (!isActive) isDefault = false;
        if (problems.length > 0) throw validationError(problems);
        for (const key of ['providerName', 'walletSetId', 'defaultWalletId', 'supportedNetworks', 'metadata'] as const) {
          if (body[key] !== undefined) (patch as Record<string, unknown>)[key] = body[key];
        }
        patch.isActive = isActive;
        patch.isDefault = isDefault;
        let cleared: string[] = [];
        if (isDefault && !before.isDefault) {
          await repository.lockScope(tx, before.workspaceId);
          cleared = await clearOtherDefaults(tx, before);
        }
        const after = await repository.update(tx, id, patch);
        if (!after) throw notFound('Wallet provider config');
        await audit(tx, {
          ...WALLET_AUDIT.providerConfigUpdate,
          resourceId: id,
          workspaceId: after.workspaceId,
          changes: diffChanges(before, after, AUDITED_FIELDS, body.config !== undefined ? ['config'] : []),
          actor,
          ...previousDefaults(cleared),
        });
        return after;
      });
      return toWalletProviderConfig(row);
    },

    /** DELETE /wallet-provider-configs/{id} (answer 204). */
    remove: async (id: string, access: ConfigAccess, actor: ActorContext): Promise<void> => {
      await repository.transaction(async (tx) => {
        const before = await lockedVisible(tx, id, access);
        assertManageable(before, access);
        await repository.delete(tx, id);
        await audit(tx, {
          ...WALLET_AUDIT.providerConfigDelete,
          resourceId: id,
          workspaceId: before.workspaceId,
          changes: diffChanges(before, null, AUDITED_FIELDS, ['config']),
          actor,
        });
      });
    },

    /**
     * POST /wallet-provider-configs/{id}/set-default: the default of its scope (its workspace, or the
     * global configs); the scope's previous default loses the flag. Answers the config.
     */
    setDefault: async (id: string, access: ConfigAccess, actor: ActorContext): Promise<WalletProviderConfig> => {
      const row = await repository.transaction(async (tx) => {
        const before = await lockedVisible(tx, id, access);
        assertManageable(before, access);
        if (!before.isActive) throw validationError([{ field: 'id', reason: 'is an inactive config; activate it first' }]);
        if (before.isDefault) return before;
        await repository.lockScope(tx, before.workspaceId);
        const cleared = await clearOtherDefaults(tx, before);
        const after = await repository.update(tx, id, { isDefault: true });
        if (!after) throw notFound('Wallet provider config');
        await audit(tx, {
          ...WALLET_AUDIT.providerConfigSetDefault,
          resourceId: id,
          workspaceId: after.workspaceId,
          changes: { isDefault: { from: false, to: true } },
          actor,
          ...previousDefaults(cleared),
        });
        return after;
      });
      return toWalletProviderConfig(row);
    },

    /**
     * GET /wallet-provider-configs/check-duplicate: is there already a config of this type in the
     * scope (the workspace, or the global configs when no workspaceId)? Advisory: create allows it.
     */
    checkDuplicate: async (query: CheckDuplicateQuery, access: ConfigAccess): Promise<DuplicateCheckResult> => {
      if (query.workspaceId) assertWorkspaceAccess(query.workspaceId, access);
      const existing = await repository.findSameTypeInScope(query.providerType, query.workspaceId ?? null, query.excludeId);
      return { isDuplicate: existing !== undefined, existingConfig: existing ? toWalletProviderConfig(existing) : null };
    },

    /** GET /wallet-provider-configs/status (X-Internal-API-Key): every config and its version, for caches. */
    status: async (query: { workspaceId?: string | undefined } = {}): Promise<WalletProviderStatus> => {
      const rows = await repository.listAll(query.workspaceId);
      return {
        configs: rows.map((r) => ({
          id: r.id,
          workspaceId: r.workspaceId,
          isGlobal: r.isGlobal,
          providerType: r.providerType,
          providerName: r.providerName,
          version: r.version,
          isActive: r.isActive,
          isDefault: r.isDefault,
          updatedAt: r.updatedAt.toISOString(),
        })),
        total: rows.length,
        timestamp: new Date().toISOString(),
      };
    },

    /** POST /wallet-provider-configs/{id}/test-connection: asks the vendor; a vendor failure is `success: false`, never an error. */
    testConnection: async (id: string, access: ConfigAccess): Promise<ConnectionTestResult> => {
      const row = await repository.findById(id);
      if (!visible(row, access)) throw notFound('Wallet provider config');
      let adapter: WalletProviderAdapter;
      try {
        adapter = adapterOf(row);
      } catch (error) {
        if (error instanceof AppError) {
          return { success: false, message: error.message, details: { providerType: row.providerType, reason: 'incomplete_config' } };
        }
        deps.logger.error({ err: error, configId: row.id }, 'stored wallet provider credentials do not open');
        return {
          success: false,
          message: 'The stored credentials cannot be read with the current DATA_ENCRYPTION_KEY; enter them again',
          details: { providerType: row.providerType, reason: 'undecryptable' },
        };
      }
      return adapter.testConnection();
    },

    /**
     * The adapter a workspace uses for a custody provider type (its own active config before a
     * global one; the default first). WALLET_PROVIDER_NOT_CONFIGURED (400) when there is none.
     */
    usableAdapter: async (workspaceId: string, providerType: CustodyProviderType) => {
      const row = await repository.findUsable(workspaceId, providerType);
      if (!row) throw new AppError('WALLET_PROVIDER_NOT_CONFIGURED', `No active ${providerType} wallet provider config for this workspace`);
      return { config: toWalletProviderConfig(row), adapter: adapterOf(row) };
    },

    /**
     * Records, in the caller's transaction, the wallet a config's workspace accounts live in (first
     * created by the wallet accounts feature, whose audit entry shows the change). Returns it.
     */
    recordDefaultWallet: async (tx: Tx, id: string, walletId: string) => {
      const before = await repository.findById(id, tx, true);
      if (!before || before.defaultWalletId === walletId) return {};
      const after = await repository.update(tx, id, { defaultWalletId: walletId });
      return diffChanges(before, after ?? null, ['defaultWalletId']);
    },
  };
}
export type WalletProviderConfigService = ReturnType<typeof createWalletProviderConfigService>;

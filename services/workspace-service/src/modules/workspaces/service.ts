import {
  type AppEnv,
  type CreateWorkspaceBody,
  conflict,
  type FieldError,
  forbidden,
  notFound,
  type PlatformMapping,
  type PlatformMappingQuery,
  paginationMeta,
  type ReplaceWalletSettingsBody,
  type UpdateBillingBody,
  type UpdateWalletSettingsBody,
  type UpdateWorkspaceBody,
  uuidv7,
  validationError,
  type WalletSettings,
  type WorkspaceBilling,
  type WorkspaceListQuery,
  type WorkspaceRecord,
} from '@holdfast/contracts';
import type { Store } from '../../db/store.js';
import {
  type Actor,
  adminReadScope,
  assertWorkspaceAccess,
  assertWorkspaceAdmin,
  type Caller,
  isSuperAdmin,
  ownWorkspaceId,
  requireActor,
} from '../access/index.js';
import { AUDIT, type AuditRepository, type AuditService, diffChanges } from '../audit/index.js';
import { type RemoteTaskRunner, type RemoteTasksRepository, task } from '../remote-tasks/index.js';
import type { AvatarStore, Upload } from '../storage/index.js';
import type { PlatformMappingsRepository } from './platform-mappings.js';
import { auditedWorkspace, toBilling, toPlatformMapping, toWalletSettings, toWorkspaceRecord } from './records.js';
import { isDuplicateSlug, type WorkspacePatch, type WorkspaceRow, type WorkspacesRepository } from './repository.js';
import { slugFromName, slugWithSuffix } from './slug.js';
import { revokesCredentials } from './status.js';

/**
 * The members of a workspace as its creation and deletion need them. The users repository
 * implements it: users depend on workspaces, never the reverse.
 */
export interface WorkspaceMembers {
  findByIdForUpdate(id: string): Promise<{ workspaceId: string | null } | undefined>;
  update(id: string, patch: { workspaceId: string }): Promise<unknown>;
  idsInWorkspace(workspaceId: string): Promise<string[]>;
}

export interface WorkspacesRepos {
  workspaces: WorkspacesRepository;
  users: WorkspaceMembers;
  platformMappings: PlatformMappingsRepository;
  remoteTasks: RemoteTasksRepository;
  audit: AuditRepository;
}

/** Largest `metadata` object, serialised. */
export const METADATA_MAX_BYTES = 16 * 1024;
const SLUG_ATTEMPTS = 5;

/** What a PUT of the wallet settings resets a field it leaves out to. */
const WALLET_SETTINGS_DEFAULTS = {
  walletProvider: null,
  walletId: null,
  custodyCOrganizationId: null,
  defaultNetwork: null,
  enabledNetworks: [],
  defaultCurrency: null,
  autoCreateCustomerWallets: false,
} satisfies Required<ReplaceWalletSettingsBody>;

/**
 * Workspaces (tenants) and their settings. Reads need workspace access (a member or a SUPER_ADMIN);
 * administration needs an ADMIN of the workspace or a SUPER_ADMIN; only a SUPER_ADMIN sets a
 * workspace's `status`, its plan or whether billing is enabled.
 */
export function createWorkspacesService(deps: {
  store: Store<WorkspacesRepos>;
  audit: AuditService;
  avatars: AvatarStore;
  appEnv: AppEnv;
  tasks: Pick<RemoteTaskRunner, 'attempt'>;
}) {
  const { store, audit, avatars } = deps;

  async function found(repos: WorkspacesRepos, id: string, lock = false): Promise<WorkspaceRow> {
    const row = lock ? await repos.workspaces.findByIdForUpdate(id) : await repos.workspaces.findById(id);
    if (!row) throw notFound('Workspace');
    return row;
  }

  /** Field rules a schema cannot say: https webhooks in production, metadata size, avatar paths. */
  function fieldProblems(body: Partial<UpdateWorkspaceBody>, current?: WorkspaceRow): FieldError[] {
    const problems: FieldError[] = [];
    if (body.webhookUrl && deps.appEnv === 'production' && !body.webhookUrl.startsWith('https://')) {
      problems.push({ field: 'webhookUrl', reason: 'must be an https URL in production' });
    } else if (body.webhookUrl && !/^https?:\/\//.test(body.webhookUrl)) {
      problems.push({ field: 'webhookUrl', reason: 'must be an http or https URL' });
    }
    if (body.metadata && Buffer.byteLength(JSON.stringify(body.metadata)) > METADATA_MAX_BYTES) {
      problems.push({ field: 'metadata', reason: `must be at most ${METADATA_MAX_BYTES} bytes as JSON` });
    }
    if (body.avatarPath && body.avatarPath !== current?.avatarPath && !body.avatarPath.startsWith('https://')) {
      problems.push({
        field: 'avatarPath',
        reason: 'must be null, an https URL, or the current value (upload with POST /workspaces/{id}/avatar)',
      });
    }
    return problems;
  }

  function assertStatusChange(actor: Actor, status: unknown, current?: WorkspaceRow): void {
    if (status !== undefined && status !== current?.status && !isSuperAdmin(actor)) {
      throw forbidden("Only a SUPER_ADMIN sets a workspace's status");
    }
  }

  /**
   * In the status change's transaction: the workspace's mappings are marked revoked and payments is
   * told (a remote task, sent right after the commit and retried until answered) to deactivate every
   * platform of the workspace: their API keys stop, their OAuth tokens are revoked, no new token is
   * minted, and the dispatcher deactivates each platform's webhooks. Reactivation does not restore
   * them: an active workspace is issued new credentials.
   */
  async function revokeCredentials(repos: WorkspacesRepos, id: string): Promise<{ platformIds: string[]; taskIds: string[] }> {
    const mappings = await repos.platformMappings.list(id, { status: 'active' });
    for (const mapping of mappings) await repos.platformMappings.revoke(id, mapping.platformId);
    const taskIds = await repos.remoteTasks.enqueue([task.deactivateWorkspacePlatforms(id)]);
    return { platformIds: mappings.map((m) => m.platformId), taskIds };
  }

  async function applyUpdate(caller: Caller, id: string, body: UpdateWorkspaceBody): Promise<WorkspaceRecord> {
    const actor = requireActor(caller);
    const row = await store.transaction(async (repos) => {
      const current = await found(repos, id, true);
      assertStatusChange(actor, body.status, current);
      const problems = fieldProblems(body, current);
      if (problems.length > 0) throw validationError(problems);
      const patch: WorkspacePatch = {};
      for (const key of ['name', 'email', 'status', 'avatarPath', 'webhookUrl', 'walletProvider', 'metadata'] as const) {
        if (body[key] !== undefined)
          (patch as Record<string, unknown>)[key] = key === 'email' ? String(body.email).toLowerCase() : body[key];
      }
      const next = await repos.workspaces.update(id, patch);
      const revoked = revokesCredentials(current.status, next.status) ? await revokeCredentials(repos, id) : undefined;
      const changes = diffChanges(auditedWorkspace(current), auditedWorkspace(next));
      await audit.record(repos, caller, AUDIT.workspaceUpdate, {
        resourceId: id,
        workspaceId: id,
        details: `Updated workspace ${next.slug}: ${Object.keys(changes).join(', ') || 'no change'}${
          revoked ? `; its payments platforms are deactivated (${revoked.platformIds.length} mapped)` : ''
        }`,
        changes,
        ...(revoked && { metadata: { revokedPlatformIds: revoked.platformIds, remoteTaskIds: revoked.taskIds } }),
      });
      return { next, replacedAvatar: current.avatarPath !== next.avatarPath ? current.avatarPath : null, taskIds: revoked?.taskIds ?? [] };
    });
    await avatars.remove(row.replacedAvatar);
    if (row.taskIds.length > 0) await deps.tasks.attempt(row.taskIds);
    return toWorkspaceRecord(row.next);
  }

  const service = {
    list: async (actor: Actor, query: WorkspaceListQuery) => {
      const scope = adminReadScope(actor);
      if (scope.kind === 'self') return { workspaces: [], pagination: paginationMeta(query.page, query.limit, 0) };
      const { rows, total } = await store.repos.workspaces.list(
        { onlyId: scope.kind === 'workspace' ? scope.workspaceId : undefined, status: query.status, search: query.search },
        query.page,
        query.limit,
      );
      return { workspaces: rows.map(toWorkspaceRecord), pagination: paginationMeta(query.page, query.limit, total) };
    },

    /** A new `pending` workspace. An ADMIN without one becomes its first member; a SUPER_ADMIN does not join. */
    create: async (caller: Caller, body: CreateWorkspaceBody): Promise<WorkspaceRecord> => {
      const actor = requireActor(caller);
      assertStatusChange(actor, body.status);
      const problems = fieldProblems(body);
      if (problems.length > 0) throw validationError(problems);
      try {
        const row = await store.transaction(async (repos) => {
          const joins = !isSuperAdmin(actor);
          if (joins) {
            const me = await repos.users.findByIdForUpdate(actor.id);
            if (me?.workspaceId) {
              throw conflict('You already belong to a workspace; a user belongs to one workspace', { workspaceId: me.workspaceId });
            }
          }
          let slug = body.slug;
          if (slug !== undefined) {
            if (await repos.workspaces.slugTaken(slug)) throw conflict(`The slug "${slug}" is taken`, { field: 'slug' });
          } else {
            const base = slugFromName(body.name);
            slug = base;
            for (let attempt = 0; attempt < SLUG_ATTEMPTS && (await repos.workspaces.slugTaken(slug)); attempt += 1)
              slug = slugWithSuffix(base);
          }
          const inserted = await repos.workspaces.insert({
            id: uuidv7(),
            name: body.name,
            slug,
            email: body.email.toLowerCase(),
            status: body.status ?? 'pending',
            webhookUrl: body.webhookUrl ?? null,
            walletProvider: body.walletProvider ?? null,
            metadata: body.metadata ?? {},
            createdBy: actor.id,
          });
          if (joins) await repos.users.update(actor.id, { workspaceId: inserted.id });
          await audit.record(repos, caller, AUDIT.workspaceCreate, {
            resourceId: inserted.id,
            workspaceId: inserted.id,
            details: `Created workspace ${inserted.slug}${joins ? ' and joined it' : ''}`,
            changes: diffChanges({}, auditedWorkspace(inserted)),
          });
          return inserted;
        });
        return toWorkspaceRecord(row);
      } catch (error) {
        if (isDuplicateSlug(error)) throw conflict('The slug is taken', { field: 'slug' });
        throw error;
      }
    },

    getMe: async (actor: Actor): Promise<WorkspaceRecord> => {
      const id = ownWorkspaceId(actor);
      return toWorkspaceRecord(await found(store.repos, id));
    },

    /** Any member may update its own workspace (a SUPER_ADMIN only sets `status`). */
    updateMe: async (caller: Caller, body: UpdateWorkspaceBody): Promise<WorkspaceRecord> => {
      const id = ownWorkspaceId(requireActor(caller));
      return applyUpdate(caller, id, body);
    },

    get: async (actor: Actor, id: string): Promise<WorkspaceRecord> => {
      assertWorkspaceAccess(actor, id);
      return toWorkspaceRecord(await found(store.repos, id));
    },

    update: async (caller: Caller, id: string, body: UpdateWorkspaceBody): Promise<WorkspaceRecord> => {
      assertWorkspaceAdmin(requireActor(caller), id);
      return applyUpdate(caller, id, body);
    },

    /**
     * Deletes the workspace and its data in this service (billing, wallet settings, platform
     * mappings); its members stay as users without a workspace; audit entries are kept. In the same
     * transaction, the commands owed to the other processes are queued (remote tasks): payments
     * deactivates every platform of the workspace, the dispatcher every subscription of the
     * workspace and of each platform. They are sent right after the commit; whatever does not get
     * an answer then is retried until it does (the deletion itself is never undone).
     */
    delete: async (caller: Caller, id: string): Promise<{ platformIds: string[]; memberIds: string[] }> => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, id);
      const outcome = await store.transaction(async (repos) => {
        const current = await found(repos, id, true);
        const mappings = await repos.platformMappings.list(id);
        const memberIds = await repos.users.idsInWorkspace(id);
        await repos.workspaces.delete(id);
        const platformIds = mappings.filter((m) => m.status === 'active').map((m) => m.platformId);
        const reason = 'its workspace was deleted';
        const taskIds = await repos.remoteTasks.enqueue([
          task.deactivateWorkspacePlatforms(id),
          task.deactivateWebhooks(id, { workspaceId: id }, reason),
          ...mappings.map((m) => task.deactivateWebhooks(id, { platformId: m.platformId }, reason)),
        ]);
        await audit.record(repos, caller, AUDIT.workspaceDelete, {
          resourceId: id,
          workspaceId: id,
          details: `Deleted workspace ${current.slug}; ${memberIds.length} member(s) detached, ${mappings.length} platform mapping(s) removed`,
          changes: diffChanges(auditedWorkspace(current), {}),
          metadata: { detachedUserIds: memberIds, platformIds, remoteTaskIds: taskIds },
        });
        return { avatarPath: current.avatarPath, platformIds, memberIds, taskIds };
      });
      await avatars.remove(outcome.avatarPath);
      await deps.tasks.attempt(outcome.taskIds);
      return { platformIds: outcome.platformIds, memberIds: outcome.memberIds };
    },

    uploadAvatar: async (caller: Caller, id: string, upload: Upload): Promise<WorkspaceRecord> => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, id);
      await found(store.repos, id);
      const path = await avatars.save(upload);
      try {
        const outcome = await store.transaction(async (repos) => {
          const current = await found(repos, id, true);
          const next = await repos.workspaces.update(id, { avatarPath: path });
          await audit.record(repos, caller, AUDIT.workspaceAvatarUpload, {
            resourceId: id,
            workspaceId: id,
            details: `Uploaded an avatar for workspace ${next.slug}`,
            changes: diffChanges({ avatarPath: current.avatarPath }, { avatarPath: path }),
            metadata: { bytes: upload.data.length, contentType: upload.declaredType },
          });
          return { next, previous: current.avatarPath };
        });
        await avatars.remove(outcome.previous);
        return toWorkspaceRecord(outcome.next);
      } catch (error) {
        await avatars.remove(path);
        throw error;
      }
    },

    deleteAvatar: async (caller: Caller, id: string): Promise<void> => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, id);
      const previous = await store.transaction(async (repos) => {
        const current = await found(repos, id, true);
        await repos.workspaces.update(id, { avatarPath: null });
        await audit.record(repos, caller, AUDIT.workspaceAvatarDelete, {
          resourceId: id,
          workspaceId: id,
          details: current.avatarPath ? `Removed the avatar of workspace ${current.slug}` : 'No avatar to remove',
          changes: diffChanges({ avatarPath: current.avatarPath }, { avatarPath: null }),
        });
        return current.avatarPath;
      });
      await avatars.remove(previous);
    },

    getBilling: async (actor: Actor, id: string): Promise<WorkspaceBilling> => {
      assertWorkspaceAccess(actor, id);
      const workspace = await found(store.repos, id);
      return toBilling(workspace, await store.repos.workspaces.findBilling(id));
    },

    /** Contact details: the workspace's ADMINs; `billingEnabled` and `plan`: SUPER_ADMIN only. */
    updateBilling: async (caller: Caller, id: string, body: UpdateBillingBody): Promise<WorkspaceBilling> => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, id);
      const result = await store.transaction(async (repos) => {
        const workspace = await found(repos, id, true);
        const before = toBilling(workspace, await repos.workspaces.findBilling(id));
        const changesOperatorFields =
          (body.billingEnabled !== undefined && body.billingEnabled !== before.billingEnabled) ||
          (body.plan !== undefined && body.plan !== before.plan);
        if (changesOperatorFields && !isSuperAdmin(actor)) throw forbidden('Only a SUPER_ADMIN enables billing or changes the plan');
        const current =
          workspace.billingEnabled === (body.billingEnabled ?? workspace.billingEnabled)
            ? workspace
            : await repos.workspaces.update(id, { billingEnabled: body.billingEnabled });
        const saved = await repos.workspaces.upsertBilling({
          workspaceId: id,
          plan: body.plan ?? before.plan,
          billingEmail: body.billingEmail !== undefined ? (body.billingEmail?.toLowerCase() ?? null) : before.billingEmail,
          companyName: body.companyName !== undefined ? body.companyName : before.companyName,
          taxId: body.taxId !== undefined ? body.taxId : before.taxId,
          updatedBy: actor.id,
        });
        const after = toBilling(current, saved);
        const { updatedAt: _b, ...beforeFields } = before;
        const { updatedAt: _a, ...afterFields } = after;
        const changes = diffChanges(beforeFields, afterFields);
        await audit.record(repos, caller, AUDIT.billingUpdate, {
          resourceId: id,
          workspaceId: id,
          details: `Updated billing of workspace ${workspace.slug}: ${Object.keys(changes).join(', ') || 'no change'}`,
          changes,
        });
        return after;
      });
      return result;
    },

    getWalletSettings: async (actor: Actor, id: string): Promise<WalletSettings> => {
      assertWorkspaceAccess(actor, id);
      const workspace = await found(store.repos, id);
      return toWalletSettings(workspace, await store.repos.workspaces.findWalletSettings(id));
    },

    updateWalletSettings: async (caller: Caller, id: string, body: UpdateWalletSettingsBody): Promise<WalletSettings> => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, id);
      return store.transaction(async (repos) => {
        const workspace = await found(repos, id, true);
        const before = toWalletSettings(workspace, await repos.workspaces.findWalletSettings(id));
        const enabledNetworks = body.enabledNetworks ?? before.enabledNetworks;
        const defaultNetwork = body.defaultNetwork !== undefined ? body.defaultNetwork : before.defaultNetwork;
        if (defaultNetwork && enabledNetworks.length > 0 && !enabledNetworks.includes(defaultNetwork)) {
          throw validationError([{ field: 'defaultNetwork', reason: 'must be one of enabledNetworks' }]);
        }
        const workspacePatch: WorkspacePatch = {};
        if (body.walletProvider !== undefined) workspacePatch.walletProvider = body.walletProvider;
        if (body.walletId !== undefined) workspacePatch.walletId = body.walletId;
        if (body.custodyCOrganizationId !== undefined) workspacePatch.custodyCOrganizationId = body.custodyCOrganizationId;
        const current = Object.keys(workspacePatch).length > 0 ? await repos.workspaces.update(id, workspacePatch) : workspace;
        const saved = await repos.workspaces.upsertWalletSettings({
          workspaceId: id,
          defaultNetwork,
          enabledNetworks,
          defaultCurrency: body.defaultCurrency !== undefined ? body.defaultCurrency : before.defaultCurrency,
          autoCreateCustomerWallets: body.autoCreateCustomerWallets ?? before.autoCreateCustomerWallets,
          updatedBy: actor.id,
        });
        const after = toWalletSettings(current, saved);
        const { updatedAt: _b, ...beforeFields } = before;
        const { updatedAt: _a, ...afterFields } = after;
        const changes = diffChanges(beforeFields, afterFields);
        await audit.record(repos, caller, AUDIT.walletSettingsUpdate, {
          resourceId: id,
          workspaceId: id,
          details: `Updated wallet settings of workspace ${workspace.slug}: ${Object.keys(changes).join(', ') || 'no change'}`,
          changes,
        });
        return after;
      });
    },

    /** PUT: every field a replacement sends, the defaults for the others (one audited write, as PATCH). */
    replaceWalletSettings: async (caller: Caller, id: string, body: ReplaceWalletSettingsBody): Promise<WalletSettings> =>
      service.updateWalletSettings(caller, id, { ...WALLET_SETTINGS_DEFAULTS, ...body }),

    platformMappings: async (actor: Actor, id: string, query: PlatformMappingQuery): Promise<PlatformMapping[]> => {
      assertWorkspaceAccess(actor, id);
      await found(store.repos, id);
      const rows = await store.repos.platformMappings.list(id, query);
      return rows.map(toPlatformMapping);
    },

    /** For the audit service: does the workspace exist. */
    exists: async (id: string): Promise<boolean> => (await store.repos.workspaces.findById(id)) !== undefined,
  };
  return service;
}

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;

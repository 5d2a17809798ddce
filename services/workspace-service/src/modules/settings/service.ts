import {
  type BulkGlobalSettingsBody,
  type BulkGlobalSettingsResult,
  DEFAULT_SETTING_CATEGORY,
  type FieldError,
  forbidden,
  type GlobalSettingListQuery,
  notFound,
  paginationMeta,
  type Setting,
  type SettingListQuery,
  type UpdateSettingBody,
  type UpsertSettingBody,
  uuidv7,
  validationError,
} from '@holdfast/contracts';
import type { SecretBox } from '@holdfast/secrets';
import type { Store } from '../../db/store.js';
import { type Actor, type Caller, isSuperAdmin, ownWorkspaceId, requireActor } from '../access/index.js';
import { AUDIT, type AuditRepository, type AuditService, REDACTED } from '../audit/index.js';
import type { WorkspacesRepository } from '../workspaces/index.js';
import type { SettingRow, SettingScope, SettingsRepository } from './repository.js';

export interface SettingsRepos {
  settings: SettingsRepository;
  workspaces: WorkspacesRepository;
  audit: AuditRepository;
}

/** Where an encrypted value is bound: a sealed value copied to another row does not open. */
export function settingContext(id: string): string {
  return `settings.value:${id}`;
}

/** Encrypted values are write-only: answers carry an empty string. */
export function toSetting(row: SettingRow): Setting {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    key: row.key,
    value: row.isEncrypted ? '' : row.value,
    category: row.category,
    description: row.description,
    isEncrypted: row.isEncrypted,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

type Change = { from: unknown; to: unknown };

/**
 * Settings (docs/workspace-settings.md). `/settings` are the settings of one workspace: an ADMIN's
 * own, or for a SUPER_ADMIN the one named by `workspaceId`. `/global-settings` are platform-wide:
 * ADMINs and SUPER_ADMINs read them, only SUPER_ADMINs write them. Encrypted values are sealed
 * (AES-256-GCM, bound to the row) and never returned, logged or audited.
 */
export function createSettingsService(deps: { store: Store<SettingsRepos>; audit: AuditService; secrets: SecretBox }) {
  const { store, audit, secrets } = deps;

  /** The workspace whose settings a `/settings` call reaches (the route already refused other roles). */
  async function workspaceOf(actor: Actor, requested: string | undefined): Promise<string> {
    if (isSuperAdmin(actor)) {
      const workspaceId = requested ?? actor.workspaceId;
      if (!workspaceId) {
        throw validationError([
          { field: 'workspaceId', reason: 'is required for a SUPER_ADMIN: name the workspace whose settings you mean' },
        ]);
      }
      if (!(await store.repos.workspaces.findById(workspaceId))) throw notFound('Workspace');
      return workspaceId;
    }
    const own = ownWorkspaceId(actor);
    if (requested !== undefined && requested !== own) throw forbidden('Not a member of this workspace');
    return own;
  }

  function plaintextOf(row: SettingRow): string {
    return row.isEncrypted ? secrets.open(row.value, settingContext(row.id)) : row.value;
  }

  /** `{field: {from, to}}` of a setting's change; an encrypted side of `value` reads "[redacted]". */
  function changesOf(before: SettingRow | undefined, after: SettingRow): Record<string, Change> {
    const changes: Record<string, Change> = {};
    const field = (name: string, from: unknown, to: unknown) => {
      if (JSON.stringify(from ?? null) !== JSON.stringify(to ?? null)) changes[name] = { from: from ?? null, to: to ?? null };
    };
    field('key', before?.key, after.key);
    field('category', before?.category, after.category);
    field('description', before?.description, after.description);
    field('isEncrypted', before?.isEncrypted, after.isEncrypted);
    const valueChanged = !before || before.isEncrypted !== after.isEncrypted || plaintextOf(before) !== plaintextOf(after);
    if (valueChanged) {
      changes.value = {
        from: before ? (before.isEncrypted ? REDACTED : before.value) : null,
        to: after.isEncrypted ? REDACTED : after.value,
      };
    }
    return changes;
  }

  /** Creates or updates one setting of a scope, inside the caller's transaction. */
  async function upsert(
    repos: SettingsRepos,
    actor: Actor,
    scope: SettingScope,
    body: UpsertSettingBody,
  ): Promise<{ before: SettingRow | undefined; after: SettingRow }> {
    let before = await repos.settings.findByKey(scope, body.key, true);
    if (!before) {
      const id = uuidv7();
      const isEncrypted = body.isEncrypted ?? false;
      const inserted = await repos.settings.insertIfAbsent({
        id,
        workspaceId: scope,
        key: body.key,
        value: isEncrypted ? secrets.seal(body.value, settingContext(id)) : body.value,
        isEncrypted,
        category: body.category ?? DEFAULT_SETTING_CATEGORY,
        description: body.description ?? null,
        createdBy: actor.id,
        updatedBy: actor.id,
      });
      if (inserted) return { before: undefined, after: inserted };
      // Another request created the key in between: update it instead.
      before = await repos.settings.findByKey(scope, body.key, true);
      if (!before) throw new Error(`setting ${body.key} neither inserted nor found`);
    }
    const isEncrypted = body.isEncrypted ?? before.isEncrypted;
    const after = await repos.settings.update(before.id, {
      value: isEncrypted ? secrets.seal(body.value, settingContext(before.id)) : body.value,
      isEncrypted,
      category: body.category ?? before.category,
      description: body.description !== undefined ? body.description : before.description,
      updatedBy: actor.id,
    });
    return { before, after };
  }

  async function page(scope: SettingScope, query: { category?: string | undefined; page: number; limit: number }) {
    const { rows, total } = await store.repos.settings.list(scope, query.category, query.page, query.limit);
    const meta = paginationMeta(query.page, query.limit, total);
    return { list: { settings: rows.map(toSetting), meta }, pagination: meta };
  }

  return {
    list: async (actor: Actor, query: SettingListQuery) => page(await workspaceOf(actor, query.workspaceId), query),

    get: async (actor: Actor, key: string, requested: string | undefined): Promise<Setting> => {
      const row = await store.repos.settings.findByKey(await workspaceOf(actor, requested), key);
      if (!row) throw notFound('Setting');
      return toSetting(row);
    },

    /** POST /settings: creates the key in the workspace or updates it (fields left out keep their value). */
    upsert: async (caller: Caller, body: UpsertSettingBody, requested: string | undefined): Promise<Setting> => {
      const actor = requireActor(caller);
      const workspaceId = await workspaceOf(actor, requested);
      const row = await store.transaction(async (repos) => {
        const { before, after } = await upsert(repos, actor, workspaceId, body);
        await audit.record(repos, caller, AUDIT.settingUpsert, {
          resourceId: after.id,
          workspaceId,
          details: `${before ? 'Updated' : 'Created'} setting ${after.key}${after.isEncrypted ? ' (encrypted)' : ''}`,
          changes: changesOf(before, after),
        });
        return after;
      });
      return toSetting(row);
    },

    /** PUT /settings/{key}: updates an existing key (404 otherwise). */
    update: async (caller: Caller, key: string, body: UpdateSettingBody, requested: string | undefined): Promise<Setting> => {
      const actor = requireActor(caller);
      const workspaceId = await workspaceOf(actor, requested);
      const row = await store.transaction(async (repos) => {
        if (!(await repos.settings.findByKey(workspaceId, key))) throw notFound('Setting');
        const { before, after } = await upsert(repos, actor, workspaceId, { key, ...body });
        await audit.record(repos, caller, AUDIT.settingUpdate, {
          resourceId: after.id,
          workspaceId,
          details: `Updated setting ${after.key}${after.isEncrypted ? ' (encrypted)' : ''}`,
          changes: changesOf(before, after),
        });
        return after;
      });
      return toSetting(row);
    },

    listGlobal: async (query: GlobalSettingListQuery) => page(null, query),

    /** POST /global-settings/bulk: every setting created or updated, in one transaction (SUPER_ADMIN; the route checks). */
    bulkGlobal: async (caller: Caller, body: BulkGlobalSettingsBody): Promise<BulkGlobalSettingsResult> => {
      const actor = requireActor(caller);
      const seen = new Map<string, number>();
      const problems: FieldError[] = [];
      body.settings.forEach((s, i) => {
        const first = seen.get(s.key);
        if (first !== undefined) problems.push({ field: `settings.${i}.key`, reason: `repeats settings.${first}.key` });
        else seen.set(s.key, i);
      });
      if (problems.length > 0) throw validationError(problems);
      return store.transaction(async (repos) => {
        const saved: SettingRow[] = [];
        const changes: Record<string, Change> = {};
        let created = 0;
        for (const item of body.settings) {
          const { before, after } = await upsert(repos, actor, null, item);
          if (!before) created += 1;
          saved.push(after);
          for (const [field, change] of Object.entries(changesOf(before, after))) changes[`${after.key}.${field}`] = change;
        }
        await audit.record(repos, caller, AUDIT.globalSettingsBulk, {
          resourceId: null,
          workspaceId: null,
          details: `Saved ${saved.length} global setting(s): ${created} created, ${saved.length - created} updated`,
          changes,
          metadata: { keys: saved.map((s) => s.key) },
        });
        return { settings: saved.map(toSetting), created, updated: saved.length - created };
      });
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;

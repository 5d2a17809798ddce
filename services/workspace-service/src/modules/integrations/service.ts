import {
  AppError,
  type CreateWorkspaceIntegrationBody,
  conflict,
  type FieldError,
  INTEGRATION_CATALOG,
  type IntegrationCatalogEntry,
  type IntegrationStatus,
  type IntegrationValidation,
  notFound,
  type ProviderCheckOutcome,
  SECRET_MASK,
  secretFieldsOf,
  type UpdateWorkspaceIntegrationBody,
  uuidv7,
  type ValidateIntegrationBody,
  validationError,
  type WorkspaceIntegration,
  type WorkspaceIntegrationStatus,
} from '@holdfast/contracts';
import type { SecretBox } from '@holdfast/secrets';
import type { Store } from '../../db/store.js';
import { type Actor, assertWorkspaceAccess, type Caller, requireActor } from '../access/index.js';
import { AUDIT, type AuditRepository, type AuditService, diffChanges, REDACTED } from '../audit/index.js';
import { METADATA_MAX_BYTES, type WorkspacesRepository } from '../workspaces/index.js';
import type { IntegrationProviders, ProviderVerdict } from './adapters.js';
import { type Config, catalogEntry, configProblems, type Kind, kindById, maskedConfig, splitSecrets } from './catalog.js';
import { type IntegrationPatch, type IntegrationRow, type IntegrationsRepository, isDuplicateIntegration } from './repository.js';

export interface IntegrationsRepos {
  integrations: IntegrationsRepository;
  workspaces: WorkspacesRepository;
  audit: AuditRepository;
}

/** Where a row's sealed secrets are bound: a sealed value copied to another row does not open. */
export function secretsContext(id: string): string {
  return `workspace_integrations.secrets:${id}`;
}

export function statusOf(row: IntegrationRow): IntegrationStatus {
  if (row.disabledAt) return 'disabled';
  return row.checkState === 'passed' ? 'active' : row.checkState === 'failed' ? 'error' : 'pending';
}

function kindOfRow(row: IntegrationRow): Kind {
  const kind = kindById(row.integrationId);
  // The catalog never loses a kind within a version; a row of an unknown kind is a bug.
  if (!kind) throw new Error(`workspace integration ${row.id} is of an unknown kind ${row.integrationId}`);
  return kind;
}

export function toWorkspaceIntegration(row: IntegrationRow): WorkspaceIntegration {
  const kind = kindOfRow(row);
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    integrationId: row.integrationId,
    integration: { key: kind.key, name: kind.name, category: kind.category },
    status: statusOf(row),
    config: maskedConfig(row.config, Object.fromEntries(row.secretFields.map((name) => [name, true]))),
    errorMessage: row.errorMessage,
    lastValidatedAt: row.lastValidatedAt?.toISOString() ?? null,
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The fields of an integration an audit entry shows; secret values never (see secretChanges). */
function audited(row: IntegrationRow): Record<string, unknown> {
  return {
    integrationId: row.integrationId,
    status: statusOf(row),
    metadata: row.metadata,
    ...Object.fromEntries(Object.entries(row.config).map(([name, value]) => [`config.${name}`, value])),
  };
}

/** `{config.<secret>: {from, to}}` for each secret set, changed or removed, both sides "[redacted]". */
function secretChanges(before: Config, after: Config): Record<string, { from: unknown; to: unknown }> {
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[name] === after[name]) continue;
    changes[`config.${name}`] = { from: before[name] === undefined ? null : REDACTED, to: after[name] === undefined ? null : REDACTED };
  }
  return changes;
}

function metadataProblems(metadata: Record<string, unknown> | undefined): FieldError[] {
  if (metadata && Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES) {
    return [{ field: 'metadata', reason: `must be at most ${METADATA_MAX_BYTES} bytes as JSON` }];
  }
  return [];
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Workspace integrations (docs/workspace-integrations.md): at most one per catalog kind, readable
 * and writable by the workspace's members and SUPER_ADMINs. Secret config fields are sealed
 * (AES-256-GCM, bound to the row) and never leave the service except towards their provider.
 */
export function createIntegrationsService(deps: {
  store: Store<IntegrationsRepos>;
  audit: AuditService;
  secrets: SecretBox;
  providers: IntegrationProviders;
}) {
  const { store, audit, secrets, providers } = deps;

  const available = (kind: Kind) => !kind.callsProvider || providers[kind.key] !== undefined;

  async function accessible(actor: Actor, workspaceId: string): Promise<void> {
    assertWorkspaceAccess(actor, workspaceId);
    if (!(await store.repos.workspaces.findById(workspaceId))) throw notFound('Workspace');
  }

  /** Why a body's `integrationId` cannot be used: not in the catalog, or not set up on this deployment. */
  function kindProblem(kind: Kind | undefined, mustBeAvailable: boolean): FieldError | undefined {
    if (!kind) return { field: 'integrationId', reason: 'is not a kind of the integration catalog (GET /api/v1/integrations)' };
    if (mustBeAvailable && !available(kind)) {
      return { field: 'integrationId', reason: `is not available on this deployment (${kind.key} has no provider endpoint)` };
    }
    return undefined;
  }

  /** The kind a body names; 400 when it cannot be used. */
  function kindOfBody(integrationId: string, mustBeAvailable = true): Kind {
    const kind = kindById(integrationId);
    const problem = kindProblem(kind, mustBeAvailable);
    if (problem || !kind) throw validationError(problem ? [problem] : []);
    return kind;
  }

  async function found(repos: IntegrationsRepos, workspaceId: string, ref: string, lock = false): Promise<IntegrationRow> {
    const row = lock ? await repos.integrations.findForUpdate(workspaceId, ref) : await repos.integrations.find(workspaceId, ref);
    if (!row) throw notFound('Integration');
    return row;
  }

  function openSecrets(row: IntegrationRow): Config {
    return row.secretsSealed ? (JSON.parse(secrets.open(row.secretsSealed, secretsContext(row.id))) as Config) : {};
  }

  function sealed(id: string, values: Config): { secretsSealed: string | null; secretFields: string[] } {
    const names = Object.keys(values).sort();
    return {
      secretsSealed: names.length > 0 ? secrets.seal(JSON.stringify(values), secretsContext(id)) : null,
      secretFields: names,
    };
  }

  /** Asks the kind's provider; kinds that call none pass once their fields do. */
  async function providerVerdict(kind: Kind, config: Config): Promise<{ verdict: ProviderVerdict; check: ProviderCheckOutcome }> {
    if (!kind.callsProvider) return { verdict: { outcome: 'passed' }, check: 'not_applicable' };
    const provider = providers[kind.key];
    if (!provider) {
      return { verdict: { outcome: 'unreachable', reason: 'this deployment has no provider endpoint for the kind' }, check: 'unreachable' };
    }
    const verdict = await provider.check(config);
    return { verdict, check: verdict.outcome };
  }

  /** Checks a whole config: its fields first, then (when they pass) its provider. */
  async function check(kind: Kind, config: Config): Promise<{ valid: boolean; errors: FieldError[]; check: ProviderCheckOutcome }> {
    const problems = configProblems(kind, config);
    if (problems.length > 0) return { valid: false, errors: problems, check: kind.callsProvider ? 'skipped' : 'not_applicable' };
    const { verdict, check: outcome } = await providerVerdict(kind, config);
    if (verdict.outcome === 'passed') return { valid: true, errors: [], check: outcome };
    if (verdict.outcome === 'refused') return { valid: false, errors: verdict.errors, check: outcome };
    return { valid: false, errors: [{ field: 'config', reason: `could not be checked: ${verdict.reason}` }], check: outcome };
  }

  async function create(caller: Caller, workspaceId: string, body: CreateWorkspaceIntegrationBody, validate: boolean) {
    const actor = requireActor(caller);
    await accessible(actor, workspaceId);
    const named = kindById(body.integrationId);
    const kindError = kindProblem(named, true);
    const problems = [
      ...(kindError ? [kindError] : []),
      ...(named && !kindError ? configProblems(named, body.config) : []),
      ...metadataProblems(body.metadata),
    ];
    if (problems.length > 0 || !named) throw validationError(problems);
    const kind = named;
    const duplicate = () =>
      conflict(`The workspace already has the ${kind.key} integration; change it with PATCH`, { integrationId: kind.id });
    if (await store.repos.integrations.find(workspaceId, kind.id)) throw duplicate();
    let passed = !kind.callsProvider;
    if (validate && kind.callsProvider) {
      const { verdict } = await providerVerdict(kind, body.config);
      if (verdict.outcome === 'refused') throw validationError(verdict.errors);
      if (verdict.outcome === 'unreachable') {
        throw new AppError(
          'INTEGRATION_PROVIDER_ERROR',
          `The ${kind.key} provider gave no usable answer: ${verdict.reason}; nothing was saved`,
          {
            reason: verdict.reason,
          },
        );
      }
      passed = true;
    }
    const id = uuidv7();
    const { plain, secrets: secretValues } = splitSecrets(kind, body.config);
    const now = new Date();
    try {
      const row = await store.transaction(async (repos) => {
        const inserted = await repos.integrations.insert({
          id,
          workspaceId,
          integrationId: kind.id,
          config: plain,
          ...sealed(id, secretValues),
          checkState: passed ? 'passed' : 'unchecked',
          lastValidatedAt: passed ? now : null,
          metadata: body.metadata ?? {},
          createdBy: actor.id,
        });
        await audit.record(repos, caller, AUDIT.integrationCreate, {
          resourceId: id,
          workspaceId,
          details: `Set up the ${kind.key} integration${validate ? ' (validated)' : ''}: ${statusOf(inserted)}`,
          changes: { ...diffChanges({}, audited(inserted)), ...secretChanges({}, secretValues) },
          metadata: { integrationKey: kind.key, validated: validate },
        });
        return inserted;
      });
      return toWorkspaceIntegration(row);
    } catch (error) {
      if (isDuplicateIntegration(error)) throw duplicate();
      throw error;
    }
  }

  return {
    /** The catalog, with what this deployment can set up. */
    catalog: (): IntegrationCatalogEntry[] => INTEGRATION_CATALOG.map((kind) => catalogEntry(kind, available(kind))),

    list: async (actor: Actor, workspaceId: string): Promise<WorkspaceIntegration[]> => {
      await accessible(actor, workspaceId);
      return (await store.repos.integrations.list(workspaceId)).map(toWorkspaceIntegration);
    },

    /** Saves a config whose fields pass; a kind that calls a provider stays `pending` until validated. */
    create: (caller: Caller, workspaceId: string, body: CreateWorkspaceIntegrationBody) => create(caller, workspaceId, body, false),

    /** Checks the config with its provider, then saves it `active`; a refused config saves nothing (400). */
    createWithConfig: (caller: Caller, workspaceId: string, body: CreateWorkspaceIntegrationBody) =>
      create(caller, workspaceId, body, true),

    get: async (actor: Actor, workspaceId: string, ref: string): Promise<WorkspaceIntegration> => {
      await accessible(actor, workspaceId);
      return toWorkspaceIntegration(await found(store.repos, workspaceId, ref));
    },

    status: async (actor: Actor, workspaceId: string, ref: string): Promise<WorkspaceIntegrationStatus> => {
      await accessible(actor, workspaceId);
      const row = await found(store.repos, workspaceId, ref);
      return {
        id: row.id,
        integrationId: row.integrationId,
        key: kindOfRow(row).key,
        status: statusOf(row),
        errorMessage: row.errorMessage,
        lastValidatedAt: row.lastValidatedAt?.toISOString() ?? null,
        needsValidation: row.checkState !== 'passed',
        updatedAt: row.updatedAt.toISOString(),
      };
    },

    /**
     * `config` is merged over the stored one field by field (`null` removes a field; a field left out,
     * or a secret sent back as the mask, keeps its value) and checked whole. A changed config of a
     * kind that calls a provider is `pending` again until validated.
     */
    update: async (
      caller: Caller,
      workspaceId: string,
      ref: string,
      body: UpdateWorkspaceIntegrationBody,
    ): Promise<WorkspaceIntegration> => {
      const actor = requireActor(caller);
      await accessible(actor, workspaceId);
      const row = await store.transaction(async (repos) => {
        const before = await found(repos, workspaceId, ref, true);
        const kind = kindOfRow(before);
        const beforeSecrets = openSecrets(before);
        const problems: FieldError[] = metadataProblems(body.metadata);
        const patch: IntegrationPatch = {};
        let afterSecrets = beforeSecrets;
        if (body.config !== undefined) {
          const secretNames = new Set(secretFieldsOf(kind));
          const merged: Config = { ...before.config, ...beforeSecrets };
          for (const [name, value] of Object.entries(body.config)) {
            if (value === null) delete merged[name];
            else if (secretNames.has(name) && value === SECRET_MASK) continue;
            else merged[name] = value;
          }
          problems.push(...configProblems(kind, merged));
          const split = splitSecrets(kind, merged);
          if (!sameJson(split.plain, before.config) || !sameJson(split.secrets, beforeSecrets)) {
            afterSecrets = split.secrets;
            Object.assign(patch, { config: split.plain, ...sealed(before.id, split.secrets) });
            patch.checkState = kind.callsProvider ? 'unchecked' : 'passed';
            patch.errorMessage = null;
            patch.lastValidatedAt = kind.callsProvider ? null : new Date();
          }
        }
        if (problems.length > 0) throw validationError(problems);
        if (body.metadata !== undefined) patch.metadata = body.metadata;
        if (body.enabled === true) patch.disabledAt = null;
        if (body.enabled === false) patch.disabledAt = before.disabledAt ?? new Date();
        const after = await repos.integrations.update(before.id, patch);
        const changes = { ...diffChanges(audited(before), audited(after)), ...secretChanges(beforeSecrets, afterSecrets) };
        await audit.record(repos, caller, AUDIT.integrationUpdate, {
          resourceId: before.id,
          workspaceId,
          details: `Updated the ${kind.key} integration: ${Object.keys(changes).join(', ') || 'no change'}`,
          changes,
          metadata: { integrationKey: kind.key },
        });
        return after;
      });
      return toWorkspaceIntegration(row);
    },

    /** Deletes the integration and its sealed secrets. */
    remove: async (caller: Caller, workspaceId: string, ref: string): Promise<void> => {
      const actor = requireActor(caller);
      await accessible(actor, workspaceId);
      await store.transaction(async (repos) => {
        const before = await found(repos, workspaceId, ref, true);
        const kind = kindOfRow(before);
        await repos.integrations.delete(before.id);
        await audit.record(repos, caller, AUDIT.integrationDelete, {
          resourceId: before.id,
          workspaceId,
          details: `Removed the ${kind.key} integration`,
          changes: {
            ...diffChanges(audited(before), {}),
            ...Object.fromEntries(before.secretFields.map((name) => [`config.${name}`, { from: REDACTED, to: null }])),
          },
          metadata: { integrationKey: kind.key },
        });
      });
    },

    /** Switches the integration off (kept with its config; PATCH `enabled: true` switches it on). */
    disable: async (caller: Caller, workspaceId: string, ref: string): Promise<WorkspaceIntegration> => {
      const actor = requireActor(caller);
      await accessible(actor, workspaceId);
      const row = await store.transaction(async (repos) => {
        const before = await found(repos, workspaceId, ref, true);
        const kind = kindOfRow(before);
        const after = before.disabledAt ? before : await repos.integrations.update(before.id, { disabledAt: new Date() });
        await audit.record(repos, caller, AUDIT.integrationDisable, {
          resourceId: before.id,
          workspaceId,
          details: before.disabledAt ? `The ${kind.key} integration was already disabled` : `Disabled the ${kind.key} integration`,
          changes: diffChanges({ status: statusOf(before) }, { status: statusOf(after) }),
          metadata: { integrationKey: kind.key },
        });
        return after;
      });
      return toWorkspaceIntegration(row);
    },

    /**
     * With `config`: checks it (fields, then provider) and saves nothing. Without: re-checks the
     * config the workspace saved for the kind and records the outcome on it.
     */
    validate: async (caller: Caller, workspaceId: string, body: ValidateIntegrationBody): Promise<IntegrationValidation> => {
      const actor = requireActor(caller);
      await accessible(actor, workspaceId);
      if (body.config !== undefined) {
        const kind = kindOfBody(body.integrationId);
        const outcome = await check(kind, body.config);
        const result: IntegrationValidation = {
          integrationId: kind.id,
          valid: outcome.valid,
          errors: outcome.errors,
          providerCheck: outcome.check,
          saved: false,
          checkedAt: new Date().toISOString(),
        };
        await audit.recordOutside(caller, AUDIT.integrationValidate, {
          resourceId: kind.id,
          workspaceId,
          details: `Checked a ${kind.key} config: ${outcome.valid ? 'valid' : `invalid (${outcome.errors.map((e) => e.field).join(', ')})`}`,
          metadata: { integrationKey: kind.key, providerCheck: outcome.check, saved: false },
        });
        return result;
      }
      const kind = kindOfBody(body.integrationId, false);
      const stored = await found(store.repos, workspaceId, kind.id);
      const outcome = await check(kind, { ...stored.config, ...openSecrets(stored) });
      const checkedAt = new Date();
      const message = outcome.valid ? null : outcome.errors.map((e) => `${e.field} ${e.reason}`).join('; ');
      return store.transaction(async (repos) => {
        const current = await repos.integrations.findForUpdate(workspaceId, stored.id);
        // A config changed while it was being checked keeps its own state: the outcome is not its.
        const saved = current !== undefined && current.updatedAt.getTime() === stored.updatedAt.getTime();
        if (saved) {
          await repos.integrations.update(stored.id, {
            checkState: outcome.valid ? 'passed' : 'failed',
            errorMessage: message,
            ...(outcome.valid ? { lastValidatedAt: checkedAt } : {}),
          });
        }
        await audit.record(repos, caller, AUDIT.integrationValidate, {
          resourceId: stored.id,
          workspaceId,
          details: `Re-checked the ${kind.key} integration: ${outcome.valid ? 'valid' : `invalid (${outcome.errors.map((e) => e.field).join(', ')})`}`,
          metadata: { integrationKey: kind.key, providerCheck: outcome.check, saved },
        });
        return {
          integrationId: kind.id,
          valid: outcome.valid,
          errors: outcome.errors,
          providerCheck: outcome.check,
          saved,
          checkedAt: checkedAt.toISOString(),
        };
      });
    },
  };
}

export type IntegrationsService = ReturnType<typeof createIntegrationsService>;

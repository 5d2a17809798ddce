import {
  type ApiKeyCreated,
  type AppEnv,
  AppError,
  type CreateApiKeyBody,
  DEFAULT_KEY_SCOPES,
  notFound,
  OPERATOR_ONLY_SCOPES,
  type Platform,
  SHOWN_ONCE_WARNING,
  type UpdatePlatformBody,
  V1_SCOPES,
  type V1Scope,
  type VerifyApiKeyResult,
  validationError,
} from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import {
  credentialHash,
  hasScope,
  type InvalidationFeed,
  keyHint,
  keyMatchesEnvironment,
  looksLikeApiKey,
  newApiKey,
  type Principal,
} from '../auth/index.js';
import { type RemoteTasksOutbox, task } from '../remote-tasks/index.js';
import { checkFinalitySettings } from './finality.js';
import type { NewPlatform, PlatformChanges, PlatformRow, PlatformsRepository } from './repository.js';

export const BOOTSTRAP_PLATFORM_NAME = 'bootstrap';

export function toPlatform(row: PlatformRow): Platform {
  return {
    id: row.id,
    name: row.name,
    workspaceId: row.workspaceId,
    sandbox: row.sandbox,
    webhookUrl: row.webhookUrl,
    settings: row.settings,
    scopes: row.scopes,
    isActive: row.isActive,
    apiKeyHint: row.apiKeyHint,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export interface PlatformsService {
  create: (principal: Principal, body: CreateApiKeyBody) => Promise<ApiKeyCreated>;
  regenerate: (principal: Principal, platformId: string) => Promise<ApiKeyCreated>;
  me: (principal: Principal) => Promise<Platform>;
  get: (principal: Principal, id: string) => Promise<Platform>;
  update: (principal: Principal, id: string, body: UpdatePlatformBody) => Promise<Platform>;
  deactivate: (principal: Principal, id: string) => Promise<void>;
  list: (principal: Principal, filter: { workspaceId?: string }) => Promise<Platform[]>;
  verify: (apiKey: string | undefined) => Promise<VerifyApiKeyResult>;
  /** PAYMENTS_BOOTSTRAP_API_KEY: the `bootstrap` platform holds this key with every scope, active. */
  ensureBootstrap: (apiKey: string) => Promise<void>;
  /** Creates a platform and its first key inside the caller's transaction (sandbox credentials). */
  createWithKey: (tx: Queryable, platform: NewPlatform) => Promise<{ platform: PlatformRow; apiKey: string }>;
  /**
   * Deactivates inside the caller's transaction: the key stops working, unexpired tokens are
   * revoked, the dispatcher is told (a remote task) to deactivate the platform's webhook
   * subscriptions. The caller announces `{kind: 'platform', ref}` after commit. Idempotent.
   */
  deactivateInTransaction: (tx: Queryable, id: string) => Promise<{ revokedTokens: number }>;
}

/** Operator-only scopes never go to a workspace's platform. */
function checkScopesFor(workspaceId: string | null, scopes: readonly V1Scope[]): void {
  if (workspaceId === null) return;
  const refused = scopes.filter((s) => OPERATOR_ONLY_SCOPES.includes(s));
  if (refused.length > 0) {
    throw validationError([{ field: 'scopes', reason: `${refused.join(', ')} cannot be given to a workspace's platform` }]);
  }
}

export function createPlatformsService(deps: {
  repository: PlatformsRepository;
  feed: Pick<InvalidationFeed, 'announce'>;
  appEnv: AppEnv;
  /** Commands owed to other processes (ADR 15): the webhooks of a deactivated platform. */
  remoteTasks: RemoteTasksOutbox;
}): PlatformsService {
  const { repository, feed, appEnv, remoteTasks } = deps;

  function checkWebhookUrl(url: string | null | undefined): void {
    if (appEnv === 'production' && url && !url.startsWith('https://')) {
      throw validationError([{ field: 'webhookUrl', reason: 'must be an https:// URL in production' }]);
    }
  }

  /** Another platform is invisible (404) to a caller without admin:platform. */
  async function visible(tx: Queryable | undefined, principal: Principal, id: string, forUpdate = false): Promise<PlatformRow> {
    const row = await repository.get(id, { tx, forUpdate });
    if (!row || (row.id !== principal.platformId && !hasScope(principal, 'admin:platform'))) throw notFound('Platform');
    return row;
  }

  function created(platform: PlatformRow, apiKey: string): ApiKeyCreated {
    return {
      apiKey,
      platformId: platform.id,
      platformName: platform.name,
      scopes: platform.scopes,
      createdAt: platform.createdAt,
      warning: SHOWN_ONCE_WARNING,
    };
  }

  async function createWithKey(tx: Queryable, platform: NewPlatform) {
    const row = await repository.insert(tx, platform);
    const apiKey = newApiKey(appEnv);
    await repository.setKey(tx, row.id, credentialHash(apiKey), keyHint(apiKey));
    return { platform: { ...row, apiKeyHint: keyHint(apiKey) }, apiKey };
  }

  async function applyChanges(
    tx: Queryable,
    row: PlatformRow,
    changes: PlatformChanges,
  ): Promise<{ row: PlatformRow; revokedTokens: number }> {
    const updated = await repository.update(tx, row.id, changes);
    const deactivated = changes.isActive === false && row.isActive;
    const revokedTokens = deactivated ? await repository.revokeTokens(tx, row.id) : 0;
    // Its subscriptions stop delivering too: the dispatcher is told until it answers (not on reactivation).
    if (deactivated) await remoteTasks.enqueue(tx, [task.deactivatePlatformWebhooks(row.id)]);
    return { row: updated, revokedTokens };
  }

  return {
    create: async (_principal, body) => {
      const scopes = body.scopes ?? [...DEFAULT_KEY_SCOPES];
      const workspaceId = body.workspaceId ?? null;
      checkScopesFor(workspaceId, scopes);
      checkWebhookUrl(body.webhookUrl);
      checkFinalitySettings(body.settings);
      const { platform, apiKey } = await repository.transaction((tx) =>
        createWithKey(tx, {
          name: body.name,
          workspaceId,
          sandbox: false,
          webhookUrl: body.webhookUrl ?? null,
          settings: body.settings ?? {},
          scopes,
        }),
      );
      return created(platform, apiKey);
    },

    regenerate: async (principal, platformId) => {
      const apiKey = newApiKey(appEnv);
      const platform = await repository.transaction(async (tx) => {
        const row = await visible(tx, principal, platformId, true);
        if (!hasScope(principal, 'admin:platform') && !hasScope(principal, 'manage:api-keys')) {
          throw new AppError('INSUFFICIENT_SCOPE', 'Regenerating an API key needs manage:api-keys (own platform) or admin:platform', {
            required: ['manage:api-keys', 'admin:platform'],
            anyOf: true,
            granted: [...principal.scopes],
          });
        }
        await repository.setKey(tx, row.id, credentialHash(apiKey), keyHint(apiKey));
        return row;
      });
      // setKey recorded the old key's invalidation; the broadcast makes it immediate everywhere.
      feed.announce([{ kind: 'platform', ref: platform.id }]);
      return created(platform, apiKey);
    },

    me: async (principal) => {
      const found = await repository.get(principal.platformId);
      if (!found) throw notFound('Platform');
      return toPlatform(found);
    },

    get: async (principal, id) => toPlatform(await visible(undefined, principal, id)),

    update: async (principal, id, body) => {
      checkWebhookUrl(body.webhookUrl);
      checkFinalitySettings(body.settings);
      const { row } = await repository.transaction(async (tx) => {
        const current = await visible(tx, principal, id, true);
        const admin = hasScope(principal, 'admin:platform');
        const adminOnly = (['scopes', 'isActive'] as const).filter((f) => body[f] !== undefined);
        if (!admin && adminOnly.length > 0) {
          throw new AppError('INSUFFICIENT_SCOPE', `Changing ${adminOnly.join(' and ')} needs admin:platform`, {
            required: ['admin:platform'],
            granted: [...principal.scopes],
          });
        }
        if (!admin && !hasScope(principal, 'write:platform')) {
          throw new AppError('INSUFFICIENT_SCOPE', 'Changing your platform needs write:platform', {
            required: ['write:platform'],
            granted: [...principal.scopes],
          });
        }
        if (body.scopes) checkScopesFor(current.workspaceId, body.scopes);
        return applyChanges(tx, current, body);
      });
      feed.announce([{ kind: 'platform', ref: id }]);
      if (body.isActive === false) remoteTasks.wake();
      return toPlatform(row);
    },

    deactivate: async (principal, id) => {
      await repository.transaction(async (tx) => {
        const current = await visible(tx, principal, id, true);
        if (current.isActive) await applyChanges(tx, current, { isActive: false });
      });
      feed.announce([{ kind: 'platform', ref: id }]);
      remoteTasks.wake();
    },

    list: async (_principal, filter) => (await repository.list({ workspaceId: filter.workspaceId })).map(toPlatform),

    verify: async (apiKey) => {
      if (!apiKey) throw new AppError('UNAUTHORIZED', 'Missing X-API-Key: send the API key to verify');
      const invalid = { valid: false, platformId: null, platformName: null, isActive: false };
      if (!looksLikeApiKey(apiKey) || !keyMatchesEnvironment(apiKey, appEnv)) return invalid;
      const found = await repository.findKey(credentialHash(apiKey));
      if (!found) return invalid;
      return {
        valid: !found.revoked && found.isActive,
        platformId: found.platformId,
        platformName: found.platformName,
        isActive: found.isActive,
      };
    },

    ensureBootstrap: async (apiKey) => {
      const hash = credentialHash(apiKey);
      const announced = await repository.transaction(async (tx) => {
        await repository.lockBootstrap(tx);
        const owner = await repository.findKeyOwner(tx, hash);
        const current = await repository.findBootstrap(tx);
        if (owner && owner.platformId !== current?.id) {
          throw new Error('PAYMENTS_BOOTSTRAP_API_KEY is the key of another platform; choose a new key');
        }
        if (owner?.revoked) {
          throw new Error('PAYMENTS_BOOTSTRAP_API_KEY was revoked (its key was regenerated); set a new key');
        }
        const wanted: PlatformChanges = { name: BOOTSTRAP_PLATFORM_NAME, scopes: V1_SCOPES, isActive: true };
        if (!current) {
          const row = await repository.insert(tx, {
            name: BOOTSTRAP_PLATFORM_NAME,
            workspaceId: null,
            sandbox: false,
            bootstrap: true,
            webhookUrl: null,
            settings: {},
            scopes: V1_SCOPES,
          });
          await repository.setKey(tx, row.id, hash, keyHint(apiKey));
          return undefined;
        }
        const drifted = current.name !== BOOTSTRAP_PLATFORM_NAME || !current.isActive || current.scopes.length !== V1_SCOPES.length;
        if (drifted) await repository.update(tx, current.id, wanted);
        if (!owner) await repository.setKey(tx, current.id, hash, keyHint(apiKey));
        return drifted || !owner ? current.id : undefined;
      });
      if (announced) feed.announce([{ kind: 'platform', ref: announced }]);
    },

    createWithKey,

    deactivateInTransaction: async (tx, id) => {
      const current = await repository.get(id, { tx, forUpdate: true });
      if (!current?.isActive) return { revokedTokens: 0 };
      return { revokedTokens: (await applyChanges(tx, current, { isActive: false })).revokedTokens };
    },
  };
}

import {
  AppError,
  notFound,
  PAYMENTS_COMMANDS,
  SANDBOX_CREDENTIAL_LIMITS,
  type SandboxCredential,
  type SandboxCredentialSummary,
  uuidv7,
  type WorkspacePlatform,
} from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import { type Bus, sendCommand } from '@holdfast/messaging';
import type { Store } from '../../db/store.js';
import { type Actor, assertWorkspaceAccess, assertWorkspaceAdmin, type Caller, requireActor } from '../access/index.js';
import { AUDIT, type AuditRepository, type AuditService, diffChanges } from '../audit/index.js';
import { type RemoteTaskRow, type RemoteTaskRunner, type RemoteTasksRepository, task } from '../remote-tasks/index.js';
import {
  assertIssuesCredentials,
  type PlatformMappingRow,
  type PlatformMappingsRepository,
  type WorkspacesRepository,
} from '../workspaces/index.js';
import type { SandboxIssuancesRepository } from './repository.js';

export interface SandboxRepos {
  workspaces: WorkspacesRepository;
  platformMappings: PlatformMappingsRepository;
  sandboxIssuances: SandboxIssuancesRepository;
  remoteTasks: RemoteTasksRepository;
  audit: AuditRepository;
}

/**
 * How long after an issuance began its outcome is checked when the request did not record it
 * (payments did not answer, or the mapping could not be written): longer than any command wait.
 */
export const DEFAULT_RECONCILE_AFTER_MS = 60_000;

const WINDOW_MS = SANDBOX_CREDENTIAL_LIMITS.windowSeconds * 1000;

/** `acme-payments sandbox 4e5f6a7b8c9d`: unique per issuance, so the platform can be found by it. */
function issuanceName(slug: string, issuanceId: string): string {
  return `${slug.slice(0, 60)} sandbox ${issuanceId.replaceAll('-', '').slice(-12)}`;
}

interface ReconcilePayload {
  issuanceId: string;
  workspaceId: string;
  name: string;
}

/**
 * The `sandbox.reconcile-issuance` task, due a while after an issuance began: when the request did
 * not record its outcome, it finds the platform payments minted under the issuance's name. A
 * platform without a mapping is deactivated (with its webhooks): no credential works unless the
 * workspace has it on record. Nothing found: payments minted nothing, the issuance failed.
 */
export function reconcileIssuanceHandler(deps: { bus: Bus; logger: Logger }) {
  return async (row: RemoteTaskRow, repos: Pick<SandboxRepos, 'sandboxIssuances' | 'platformMappings' | 'remoteTasks'>) => {
    const { issuanceId, workspaceId, name } = row.payload as unknown as ReconcilePayload;
    const issuance = await repos.sandboxIssuances.findForUpdate(issuanceId);
    if (issuance && issuance.status !== 'pending') return;
    const { platforms } = await sendCommand(deps.bus, PAYMENTS_COMMANDS.listPlatforms, { workspaceId, includeInactive: true });
    const platform = platforms.find((p) => p.name === name);
    if (!platform) {
      if (issuance) await repos.sandboxIssuances.resolve(issuanceId, 'failed');
      return;
    }
    const mapping = await repos.platformMappings.findByPlatform(workspaceId, platform.platformId);
    if (mapping?.status === 'active') {
      if (issuance) await repos.sandboxIssuances.resolve(issuanceId, 'completed', platform.platformId);
      return;
    }
    if (platform.isActive) {
      await sendCommand(deps.bus, PAYMENTS_COMMANDS.deactivatePlatform, { workspaceId, platformId: platform.platformId });
      deps.logger.warn({ workspaceId, platformId: platform.platformId, issuanceId }, 'sandbox platform without a mapping deactivated');
    }
    await repos.remoteTasks.enqueue([
      task.deactivateWebhooks(workspaceId, { platformId: platform.platformId }, 'its sandbox credentials were never handed out'),
    ]);
    if (issuance) await repos.sandboxIssuances.resolve(issuanceId, 'abandoned', platform.platformId);
  };
}

/**
 * Sandbox credentials of a workspace: payments mints a platform with an API key and an OAuth
 * client; the workspace keeps the mapping and enforces the limits (2 active, 5 issued per hour),
 * counting under a lock of the workspace row so that concurrent requests cannot both pass.
 * See docs/workspace-credentials-and-webhooks.md for the failure rules.
 */
export function createSandboxCredentialsService(deps: {
  store: Store<SandboxRepos>;
  audit: AuditService;
  bus: Bus;
  tasks: Pick<RemoteTaskRunner, 'attempt'>;
  logger: Logger;
  reconcileAfterMs: number;
}) {
  const { store, audit, bus, tasks } = deps;

  async function existing(id: string) {
    const row = await store.repos.workspaces.findById(id);
    if (!row) throw notFound('Workspace');
    return row;
  }

  function summary(mapping: PlatformMappingRow, platform: WorkspacePlatform | undefined): SandboxCredentialSummary {
    return {
      platformId: mapping.platformId,
      name: mapping.name,
      status: mapping.status === 'active' && platform?.isActive ? 'active' : 'revoked',
      apiKeyHint: platform?.apiKeyHint ?? null,
      scopes: platform?.scopes ?? [],
      oauthClientIds: platform?.oauthClientIds ?? [],
      createdBy: mapping.createdBy,
      createdAt: mapping.createdAt.toISOString(),
      revokedAt:
        mapping.revokedAt?.toISOString() ?? (platform?.deactivatedAt && mapping.status === 'active' ? platform.deactivatedAt : null),
    };
  }

  /** Tx1: the limits, counted under the workspace row's lock, and the issuance journalled. */
  async function begin(caller: Caller, workspaceId: string) {
    const actor = requireActor(caller);
    return store.transaction(async (repos) => {
      const workspace = await repos.workspaces.findByIdForUpdate(workspaceId);
      if (!workspace) throw notFound('Workspace');
      assertIssuesCredentials(workspace);
      const now = Date.now();
      const pending = await repos.sandboxIssuances.pendingSince(workspaceId);
      const active = (await repos.platformMappings.countActive(workspaceId, 'sandbox')) + pending.length;
      if (active >= SANDBOX_CREDENTIAL_LIMITS.active) {
        throw new AppError(
          'CONFLICT',
          `A workspace holds at most ${SANDBOX_CREDENTIAL_LIMITS.active} active sandbox credentials; revoke one first`,
          { limit: SANDBOX_CREDENTIAL_LIMITS.active, active, ...(pending.length > 0 ? { beingIssued: pending.length } : {}) },
        );
      }
      const since = new Date(now - WINDOW_MS);
      const issued = [
        ...(await repos.platformMappings.creationTimesSince(workspaceId, 'sandbox', since)),
        ...pending.filter((t) => t >= since),
      ].sort((a, b) => a.getTime() - b.getTime());
      if (issued.length >= SANDBOX_CREDENTIAL_LIMITS.issuedPerWindow) {
        // A slot frees when the issuance that makes the count reach the limit leaves the window.
        const freesAt = issued[issued.length - SANDBOX_CREDENTIAL_LIMITS.issuedPerWindow]!.getTime() + WINDOW_MS;
        const retryAfter = Math.max(1, Math.ceil((freesAt - now) / 1000));
        throw new AppError(
          'RATE_LIMIT_EXCEEDED',
          `At most ${SANDBOX_CREDENTIAL_LIMITS.issuedPerWindow} sandbox credentials are issued per workspace per hour; try again in ${retryAfter} s`,
          { limit: SANDBOX_CREDENTIAL_LIMITS.issuedPerWindow, windowSeconds: SANDBOX_CREDENTIAL_LIMITS.windowSeconds, retryAfter },
          { 'Retry-After': String(retryAfter) },
        );
      }
      const issuanceId = uuidv7();
      const name = issuanceName(workspace.slug, issuanceId);
      await repos.sandboxIssuances.insert({ id: issuanceId, workspaceId, name, requestedBy: actor.id });
      const payload: ReconcilePayload = { issuanceId, workspaceId, name };
      const [taskId] = await repos.remoteTasks.enqueue([
        { kind: 'sandbox.reconcile-issuance', workspaceId, payload: { ...payload }, notBefore: new Date(now + deps.reconcileAfterMs) },
      ]);
      return { issuanceId, name, taskId: taskId! };
    });
  }

  return {
    /** Members and SUPER_ADMINs: the workspace's sandbox credentials, newest first, without key material. */
    list: async (actor: Actor, workspaceId: string, requestId: string): Promise<SandboxCredentialSummary[]> => {
      assertWorkspaceAccess(actor, workspaceId);
      await existing(workspaceId);
      const mappings = await store.repos.platformMappings.list(workspaceId, { kind: 'sandbox' });
      if (mappings.length === 0) return [];
      const { platforms } = await sendCommand(bus, PAYMENTS_COMMANDS.listPlatforms, { workspaceId, includeInactive: true }, { requestId });
      const byId = new Map(platforms.map((p) => [p.platformId, p]));
      return mappings.map((m) => summary(m, byId.get(m.platformId)));
    },

    /**
     * An ADMIN of the workspace or a SUPER_ADMIN. The answer holds the API key and the OAuth client
     * secret, shown this once. The issuance is written before payments is asked; the mapping, the
     * issuance's completion and the audit entry are written together after payments answered.
     */
    issue: async (caller: Caller, workspaceId: string): Promise<SandboxCredential> => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, workspaceId);
      let started: Awaited<ReturnType<typeof begin>>;
      try {
        started = await begin(caller, workspaceId);
      } catch (error) {
        // The HTTP layer does not record 429s (those of the rate limiter would flood the trail); this one is an act.
        if (error instanceof AppError && error.code === 'RATE_LIMIT_EXCEEDED') {
          await audit.recordFailure(caller, AUDIT.sandboxCredentialIssue, {
            resourceId: workspaceId,
            errorMessage: error.message,
            statusCode: error.statusCode,
            errorCode: error.code,
          });
        }
        throw error;
      }
      const { issuanceId, name, taskId } = started;

      let credential: SandboxCredential;
      try {
        credential = await sendCommand(
          bus,
          PAYMENTS_COMMANDS.issueSandboxCredentials,
          { workspaceId, name },
          { requestId: caller.requestId },
        );
      } catch (error) {
        const definite = error instanceof AppError && error.statusCode < 500;
        if (definite) {
          // Payments refused: it minted nothing.
          await store.transaction(async (repos) => {
            await repos.sandboxIssuances.resolve(issuanceId, 'failed');
            await repos.remoteTasks.cancelIfIdle(taskId);
          });
        }
        // Otherwise the outcome is unknown: the reconciliation task settles it (and frees the slot).
        throw error;
      }

      const outcome = await store.transaction(async (repos) => {
        // Held until the commit: a status change waits, so it sees this mapping and deactivates its platform.
        const workspace = await repos.workspaces.findByIdForShare(workspaceId);
        const issuance = await repos.sandboxIssuances.findForUpdate(issuanceId);
        if (issuance?.status !== 'pending' || workspace?.status !== 'active') {
          // The workspace was deleted or left `active` meanwhile, or the reconciliation already gave up on this issuance.
          if (issuance?.status === 'pending') await repos.sandboxIssuances.resolve(issuanceId, 'abandoned', credential.platformId);
          const ids = await repos.remoteTasks.enqueue([task.deactivatePlatform(workspaceId, credential.platformId)]);
          return { ok: false as const, ids, gone: !issuance, status: workspace?.status };
        }
        await repos.platformMappings.insert({
          id: uuidv7(),
          workspaceId,
          platformId: credential.platformId,
          kind: 'sandbox',
          name: credential.name,
          createdBy: actor.id,
        });
        await repos.sandboxIssuances.resolve(issuanceId, 'completed', credential.platformId);
        await repos.remoteTasks.cancelIfIdle(taskId);
        await audit.record(repos, caller, AUDIT.sandboxCredentialIssue, {
          resourceId: credential.platformId,
          workspaceId,
          details: `Issued sandbox credentials ${credential.name}`,
          changes: diffChanges(
            {},
            {
              platformId: credential.platformId,
              name: credential.name,
              scopes: credential.scopes,
              oauthClientId: credential.oauthClient.clientId,
            },
          ),
          metadata: { issuanceId },
        });
        return { ok: true as const };
      });
      if (!outcome.ok) {
        await tasks.attempt(outcome.ids);
        if (outcome.gone) throw notFound('Workspace');
        if (outcome.status && outcome.status !== 'active') assertIssuesCredentials({ status: outcome.status });
        throw new AppError(
          'UPSTREAM_UNAVAILABLE',
          'Payments answered too late; the credentials it issued were revoked. Try again.',
          undefined,
          {
            'Retry-After': '1',
          },
        );
      }
      return credential;
    },

    /**
     * An ADMIN of the workspace or a SUPER_ADMIN. Payments deactivates the platform first (its API
     * key and OAuth tokens stop working at once); only then is the mapping marked revoked. If payments
     * cannot be reached the answer is 503 and nothing changed; the platform's webhooks are
     * deactivated by a task that is retried until the dispatcher answers.
     */
    revoke: async (caller: Caller, workspaceId: string, platformId: string): Promise<void> => {
      const actor = requireActor(caller);
      assertWorkspaceAdmin(actor, workspaceId);
      await existing(workspaceId);
      const mapping = await store.repos.platformMappings.findByPlatform(workspaceId, platformId);
      if (mapping?.kind !== 'sandbox' || mapping.status !== 'active') throw notFound('Sandbox credential');
      let revokedTokens = 0;
      try {
        revokedTokens = (
          await sendCommand(bus, PAYMENTS_COMMANDS.deactivatePlatform, { workspaceId, platformId }, { requestId: caller.requestId })
        ).revokedTokens;
      } catch (error) {
        // Payments does not know the platform as the workspace's: there is nothing left to deactivate there.
        if (!(error instanceof AppError && error.code === 'NOT_FOUND')) throw error;
      }
      const ids = await store.transaction(async (repos) => {
        await repos.platformMappings.revoke(workspaceId, platformId);
        const queued = await repos.remoteTasks.enqueue([
          task.deactivateWebhooks(workspaceId, { platformId }, 'its sandbox credentials were revoked'),
        ]);
        await audit.record(repos, caller, AUDIT.sandboxCredentialRevoke, {
          resourceId: platformId,
          workspaceId,
          details: `Revoked sandbox credentials ${mapping.name}`,
          changes: diffChanges({ status: 'active' }, { status: 'revoked' }),
          metadata: { revokedTokens },
        });
        return queued;
      });
      await tasks.attempt(ids);
    },
  };
}

export type SandboxCredentialsService = ReturnType<typeof createSandboxCredentialsService>;

import {
  type CommandDefinition,
  type CreateWebhookBody,
  type DeliveryLogsQuery,
  type ListWebhooksQuery,
  notFound,
  type ReplayWebhookBody,
  type UpdateWebhookBody,
  WEBHOOK_TEST_COMMAND_TIMEOUT_MS,
  WebhookCommands,
  type WebhookSubscription,
  webhookCommandOf,
} from '@holdfast/contracts';
import { type Bus, sendCommand } from '@holdfast/messaging';
import type { Static } from '@sinclair/typebox';
import type { Store } from '../../db/store.js';
import { type Actor, assertWorkspaceAccess, type Caller, requireActor } from '../access/index.js';
import { AUDIT, type AuditAction, type AuditService, diffChanges } from '../audit/index.js';
import type { CatalogService } from '../catalog/index.js';
import type { WorkspacesRepository } from '../workspaces/index.js';

type Owned<C extends CommandDefinition> = Omit<Static<C['request']>, 'owner'>;

const audited = (s: WebhookSubscription) => ({
  url: s.url,
  eventTypes: s.eventTypes,
  isActive: s.isActive,
  ipWhitelist: s.ipWhitelist,
  metadata: s.metadata,
});

/**
 * A workspace's webhook subscriptions (spec "Workspace API: webhooks", plus resend and replay):
 * every operation is one command to the webhook-dispatcher with the owner `{workspaceId}`, so the
 * subscriptions receive the events of all of the workspace's platforms and another owner's id
 * answers 404. Members of the workspace and SUPER_ADMINs. A change is sent while the workspace
 * row is held (FOR SHARE), so a deletion of the workspace waits for it and then deactivates it
 * too; it is audited once the dispatcher has answered.
 */
export function createWebhooksService(deps: {
  store: Store<{ workspaces: WorkspacesRepository }>;
  audit: AuditService;
  bus: Bus;
  catalog: CatalogService;
}) {
  const { store, audit, bus } = deps;

  async function accessible(actor: Actor, workspaceId: string): Promise<void> {
    assertWorkspaceAccess(actor, workspaceId);
    if (!(await store.repos.workspaces.findById(workspaceId))) throw notFound('Workspace');
  }

  function send<C extends (typeof WebhookCommands)[keyof typeof WebhookCommands]>(
    command: C,
    caller: Caller,
    workspaceId: string,
    request: Owned<C>,
    timeoutMs?: number,
  ): Promise<Static<C['reply']>> {
    const owned = { owner: { workspaceId }, ...request } as Static<C['request']>;
    return sendCommand(bus, webhookCommandOf(command, 'workspace'), owned, {
      requestId: caller.requestId,
      ...(timeoutMs ? { timeoutMs } : {}),
    });
  }

  /** A read: membership and existence checked, then the command. */
  async function read<C extends (typeof WebhookCommands)[keyof typeof WebhookCommands]>(
    command: C,
    caller: Caller,
    workspaceId: string,
    request: Owned<C>,
  ) {
    await accessible(requireActor(caller), workspaceId);
    return send(command, caller, workspaceId, request);
  }

  /** A change: sent while the workspace row is held, so that a concurrent deletion comes after it. */
  async function change<C extends (typeof WebhookCommands)[keyof typeof WebhookCommands]>(
    command: C,
    caller: Caller,
    workspaceId: string,
    request: Owned<C>,
  ): Promise<Static<C['reply']>> {
    assertWorkspaceAccess(requireActor(caller), workspaceId);
    return store.transaction(async (repos) => {
      if (!(await repos.workspaces.findByIdForShare(workspaceId))) throw notFound('Workspace');
      return send(command, caller, workspaceId, request);
    });
  }

  async function record(caller: Caller, what: AuditAction, workspaceId: string, resourceId: string, details: string, extra = {}) {
    await audit.recordRemote(caller, what, { resourceId, workspaceId, details, ...extra });
  }

  const ref = (id: string) => ({ subscriptionId: id });

  return {
    list: (caller: Caller, workspaceId: string, query: ListWebhooksQuery) => read(WebhookCommands.list, caller, workspaceId, query),

    create: async (caller: Caller, workspaceId: string, body: CreateWebhookBody) => {
      const created = await change(WebhookCommands.create, caller, workspaceId, body);
      await record(caller, AUDIT.webhookCreate, workspaceId, created.id, `Created webhook ${created.url}`, {
        changes: diffChanges({}, audited(created)),
      });
      return created;
    },

    /** The shared catalog (packages/contracts), the one every event-types operation serves. */
    eventTypes: (actor: Actor, workspaceId: string) => deps.catalog.eventTypes(actor, workspaceId),

    get: (caller: Caller, workspaceId: string, id: string) => read(WebhookCommands.get, caller, workspaceId, ref(id)),

    update: async (caller: Caller, workspaceId: string, id: string, body: UpdateWebhookBody) => {
      const before = await read(WebhookCommands.get, caller, workspaceId, ref(id));
      const after = await change(WebhookCommands.update, caller, workspaceId, { ...ref(id), ...body });
      const changes = diffChanges(audited(before), audited(after));
      await record(
        caller,
        AUDIT.webhookUpdate,
        workspaceId,
        id,
        `Updated webhook ${after.url}: ${Object.keys(changes).join(', ') || 'no change'}`,
        {
          changes,
        },
      );
      return after;
    },

    remove: async (caller: Caller, workspaceId: string, id: string) => {
      const before = await read(WebhookCommands.get, caller, workspaceId, ref(id));
      const deleted = await change(WebhookCommands.delete, caller, workspaceId, ref(id));
      await record(caller, AUDIT.webhookDelete, workspaceId, id, `Deleted webhook ${before.url}`, {
        changes: diffChanges(audited(before), {}),
      });
      return deleted;
    },

    deliveryLogs: (caller: Caller, workspaceId: string, id: string, query: DeliveryLogsQuery) =>
      read(WebhookCommands.deliveryLogs, caller, workspaceId, { ...ref(id), ...query }),

    rotateSecret: async (caller: Caller, workspaceId: string, id: string) => {
      const rotated = await change(WebhookCommands.rotateSecret, caller, workspaceId, ref(id));
      await record(
        caller,
        AUDIT.webhookRotateSecret,
        workspaceId,
        id,
        'Rotated the signing secret; both secrets sign until complete-rotation',
        {
          changes: { secret: { from: '[redacted]', to: '[redacted]' } },
        },
      );
      return rotated;
    },

    completeRotation: async (caller: Caller, workspaceId: string, id: string) => {
      const done = await change(WebhookCommands.completeRotation, caller, workspaceId, ref(id));
      await record(caller, AUDIT.webhookCompleteRotation, workspaceId, id, 'Retired the previous signing secret');
      return done;
    },

    resetCircuitBreaker: async (caller: Caller, workspaceId: string, id: string) => {
      const before = await read(WebhookCommands.get, caller, workspaceId, ref(id));
      const after = await change(WebhookCommands.resetCircuitBreaker, caller, workspaceId, ref(id));
      await record(caller, AUDIT.webhookResetCircuitBreaker, workspaceId, id, 'Forced the circuit breaker CLOSED', {
        changes: diffChanges({ circuitState: before.circuitBreaker.state }, { circuitState: after.circuitBreaker.state }),
      });
      return after;
    },

    /** Waits for the receiver (up to 30 s): not under the workspace row, with the longer command time-out. */
    test: async (caller: Caller, workspaceId: string, id: string) => {
      await accessible(requireActor(caller), workspaceId);
      const log = await send(WebhookCommands.test, caller, workspaceId, ref(id), WEBHOOK_TEST_COMMAND_TIMEOUT_MS);
      await record(caller, AUDIT.webhookTest, workspaceId, id, `Sent a test delivery: ${log.success ? 'accepted' : 'failed'}`, {
        metadata: { success: log.success, statusCode: log.statusCode, deliveryId: log.deliveryId },
      });
      return log;
    },

    resendDelivery: async (caller: Caller, workspaceId: string, id: string, deliveryId: string) => {
      const delivery = await change(WebhookCommands.resendDelivery, caller, workspaceId, { ...ref(id), deliveryId });
      await record(caller, AUDIT.webhookResendDelivery, workspaceId, id, `Queued delivery ${deliveryId} (${delivery.eventType}) again`, {
        metadata: { deliveryId, eventId: delivery.eventId },
      });
      return delivery;
    },

    replay: async (caller: Caller, workspaceId: string, id: string, body: ReplayWebhookBody) => {
      const result = await change(WebhookCommands.replay, caller, workspaceId, { ...ref(id), ...body });
      await record(
        caller,
        AUDIT.webhookReplay,
        workspaceId,
        id,
        `Replayed events from ${body.from} to ${body.to}: ${result.matched} matched`,
        {
          metadata: { ...body, ...result },
        },
      );
      return result;
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

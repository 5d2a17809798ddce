import {
  type CommandDefinition,
  WebhookCommands as Commands,
  type CreateWebhookBody,
  type DeliveryLogsQuery,
  eventTypeCatalog,
  type PaymentsWebhookListQuery,
  type UpdateWebhookBody,
  WEBHOOK_TEST_COMMAND_TIMEOUT_MS,
  type WebhookDeleted,
  type WebhookDeliveryLog,
  type WebhookDeliveryLogList,
  type WebhookEventTypeList,
  type WebhookSubscription,
  type WebhookSubscriptionWithSecret,
  webhookCommandOf,
} from '@holdfast/contracts';
import { type Bus, sendCommand } from '@holdfast/messaging';
import type { Static } from '@sinclair/typebox';
import type { Principal } from '../auth/index.js';

type Owned<C extends CommandDefinition> = Omit<Static<C['request']>, 'owner'>;

/**
 * Payments API v1 webhooks: each operation is one command to the webhook-dispatcher, which owns
 * the subscriptions. The owner is always the calling credential's platform, so a platform never
 * reaches another's subscriptions (the dispatcher answers 404 for them).
 */
export function createWebhooksService(deps: { bus: Bus }) {
  const { bus } = deps;

  function send<C extends (typeof Commands)[keyof typeof Commands]>(
    command: C,
    principal: Principal,
    request: Owned<C>,
    requestId: string,
    timeoutMs?: number,
  ): Promise<Static<C['reply']>> {
    const owned = { owner: { platformId: principal.platformId }, ...request } as Static<C['request']>;
    return sendCommand(bus, webhookCommandOf(command, 'platform'), owned, { requestId, ...(timeoutMs ? { timeoutMs } : {}) });
  }

  const ref = (id: string) => ({ subscriptionId: id });

  return {
    list: (p: Principal, query: PaymentsWebhookListQuery, requestId: string): Promise<WebhookSubscription[]> =>
      send(
        Commands.list,
        p,
        {
          ...(query.isActive !== undefined ? { isActive: query.isActive === 'true' } : {}),
          ...(query.eventType !== undefined ? { eventType: query.eventType } : {}),
        },
        requestId,
      ),
    create: (p: Principal, body: CreateWebhookBody, requestId: string): Promise<WebhookSubscriptionWithSecret> =>
      send(Commands.create, p, body, requestId),
    /** The shared catalog of packages/contracts (the one every event-types operation serves). */
    eventTypes: (): WebhookEventTypeList => eventTypeCatalog(),
    get: (p: Principal, id: string, requestId: string): Promise<WebhookSubscription> => send(Commands.get, p, ref(id), requestId),
    update: (p: Principal, id: string, body: UpdateWebhookBody, requestId: string): Promise<WebhookSubscription> =>
      send(Commands.update, p, { ...ref(id), ...body }, requestId),
    remove: (p: Principal, id: string, requestId: string): Promise<WebhookDeleted> => send(Commands.delete, p, ref(id), requestId),
    deliveryLogs: (p: Principal, id: string, query: DeliveryLogsQuery, requestId: string): Promise<WebhookDeliveryLogList> =>
      send(Commands.deliveryLogs, p, { ...ref(id), ...query }, requestId),
    rotateSecret: (p: Principal, id: string, requestId: string): Promise<WebhookSubscriptionWithSecret> =>
      send(Commands.rotateSecret, p, ref(id), requestId),
    completeRotation: (p: Principal, id: string, requestId: string): Promise<WebhookSubscription> =>
      send(Commands.completeRotation, p, ref(id), requestId),
    resetCircuitBreaker: (p: Principal, id: string, requestId: string): Promise<WebhookSubscription> =>
      send(Commands.resetCircuitBreaker, p, ref(id), requestId),
    /** Waits for the receiver (up to 30 s), hence the longer command time-out. */
    test: (p: Principal, id: string, requestId: string): Promise<WebhookDeliveryLog> =>
      send(Commands.test, p, ref(id), requestId, WEBHOOK_TEST_COMMAND_TIMEOUT_MS),
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;

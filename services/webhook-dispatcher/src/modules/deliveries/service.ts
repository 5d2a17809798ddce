import {
  newEventId,
  notFound,
  type ReplayResult,
  uuidv7,
  validationError,
  WEBHOOK_LIMITS,
  WEBHOOK_TEST_EVENT_TYPE,
  type WebhookDelivery,
  type WebhookDeliveryLog,
  type WebhookDeliveryLogList,
  type WebhookOwner,
} from '@holdfast/contracts';
import { isoOrNull } from '@holdfast/db';
import type { SubscriptionRow } from '../subscriptions/index.js';
import type { DeliveryAttempt } from './attempt.js';
import type { DeliveryMetrics } from './metrics.js';
import type { AttemptLogRow, DeliveriesRepository, DeliveryRow } from './repository.js';

/** A test delivery never waits longer than this for the receiver, whatever WEBHOOK_TIMEOUT_MS says. */
export const TEST_TIMEOUT_MAX_MS = 30_000;

export function toDeliveryLog(row: AttemptLogRow): WebhookDeliveryLog {
  return {
    id: row.id,
    webhookSubscriptionId: row.subscriptionId,
    deliveryId: row.deliveryId,
    eventType: row.eventType,
    eventId: row.eventId,
    deliveryAttempt: row.attempt,
    success: row.success,
    statusCode: row.statusCode,
    responseTime: row.responseTimeMs,
    errorMessage: row.errorMessage,
    requestHeaders: row.requestHeaders,
    responseBody: row.responseBody,
    createdAt: row.createdAt,
  };
}

function toWebhookDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhookSubscriptionId: row.subscriptionId,
    eventId: row.eventId,
    eventType: row.eventType as WebhookDelivery['eventType'],
    status: row.status,
    attempts: row.attemptCount,
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt : null,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * The delivery commands both APIs forward (commands.ts serves them): an owner's delivery log, a
 * test delivery sent now, a delivery sent again, a time range of events replayed. Each answers 404
 * for a subscription that is not the owner's.
 */
export interface DeliveryService {
  logs: (
    owner: WebhookOwner,
    subscriptionId: string,
    query: { limit?: number; offset?: number; successOnly?: boolean; failuresOnly?: boolean },
  ) => Promise<WebhookDeliveryLogList>;
  /** One signed `webhook.test` delivery now; its log entry is the answer. Circuit and retries are untouched. */
  test: (owner: WebhookOwner, subscriptionId: string) => Promise<WebhookDeliveryLog>;
  /** Due now with a fresh retry schedule; shown as it is while an attempt of it is in flight. */
  resend: (owner: WebhookOwner, subscriptionId: string, deliveryId: string) => Promise<WebhookDelivery>;
  replay: (owner: WebhookOwner, subscriptionId: string, range: { from: string; to: string; onlyFailed?: boolean }) => Promise<ReplayResult>;
}

export function createDeliveryService(deps: {
  repository: DeliveriesRepository;
  attempt: DeliveryAttempt;
  /** WEBHOOK_TIMEOUT_MS (a test delivery waits TEST_TIMEOUT_MAX_MS at most). */
  timeoutMs: number;
  /** The owner's subscription, or 404 (subscriptions module). */
  requireSubscription: (owner: WebhookOwner, id: string) => Promise<SubscriptionRow>;
  metrics?: DeliveryMetrics;
}): DeliveryService {
  const { repository } = deps;

  return {
    logs: async (owner, subscriptionId, query) => {
      await deps.requireSubscription(owner, subscriptionId);
      if (query.successOnly && query.failuresOnly) {
        throw validationError(
          [{ field: 'failuresOnly', reason: 'cannot be true together with successOnly' }],
          'successOnly and failuresOnly cannot both be true',
        );
      }
      const success = query.successOnly ? true : query.failuresOnly ? false : undefined;
      const { rows, total } = await repository.logs(subscriptionId, {
        limit: query.limit ?? WEBHOOK_LIMITS.deliveryLogsDefaultLimit,
        offset: query.offset ?? 0,
        ...(success === undefined ? {} : { success }),
      });
      return { logs: rows.map(toDeliveryLog), total };
    },

    test: async (owner, subscriptionId) => {
      const subscription = await deps.requireSubscription(owner, subscriptionId);
      const eventId = newEventId();
      const sent = await deps.attempt.send({
        target: subscription,
        deliveryId: uuidv7(),
        eventId,
        eventType: WEBHOOK_TEST_EVENT_TYPE,
        attempt: 1,
        body: JSON.stringify({
          id: eventId,
          type: WEBHOOK_TEST_EVENT_TYPE,
          createdAt: new Date().toISOString(),
          data: {
            webhookSubscriptionId: subscription.id,
            message: 'A test delivery from Holdfast: your endpoint is reachable and verifies signatures.',
          },
        }),
        timeoutMs: Math.min(deps.timeoutMs, TEST_TIMEOUT_MAX_MS),
      });
      // A secret that cannot be opened fails the command, as it always did: nothing was sent.
      if (sent.signingError !== undefined) throw sent.signingError;
      deps.metrics?.attemptFinished(sent.outcome);
      const row = await repository.insertTestAttempt(sent.log);
      if (!row) throw notFound('Webhook subscription');
      return toDeliveryLog(row);
    },

    resend: async (owner, subscriptionId, deliveryId) => {
      await deps.requireSubscription(owner, subscriptionId);
      const requeued = await repository.requeue(subscriptionId, deliveryId);
      if (requeued) return toWebhookDelivery(requeued);
      // Not requeued: unknown, or an attempt of it is in flight right now (then shown as it is).
      const current = await repository.getDelivery(subscriptionId, deliveryId);
      if (!current) throw notFound('Webhook delivery');
      return toWebhookDelivery(current);
    },

    replay: async (owner, subscriptionId, range) => {
      const subscription = await deps.requireSubscription(owner, subscriptionId);
      if (Date.parse(range.from) >= Date.parse(range.to)) {
        throw validationError([{ field: 'to', reason: 'must be after from' }], 'from must be before to');
      }
      const result = await repository.replay({
        subscription: {
          id: subscription.id,
          platformId: subscription.platformId,
          workspaceId: subscription.workspaceId,
          eventTypes: subscription.eventTypes,
        },
        from: new Date(range.from).toISOString(),
        to: new Date(range.to).toISOString(),
        onlyFailed: range.onlyFailed ?? false,
        maxEvents: WEBHOOK_LIMITS.replayMaxEvents,
      });
      return { ...result, resumeFrom: isoOrNull(result.resumeFrom) };
    },
  };
}

import {
  newEventId,
  type ReplayResult,
  uuidv7,
  WEBHOOK_LIMITS,
  WEBHOOK_TEST_EVENT_TYPE,
  type WebhookDelivery,
  type WebhookDeliveryLog,
  type WebhookDeliveryLogList,
  type WebhookOwner,
} from '@holdfast/contracts';
import { notFound, validationError } from '@holdfast/http-kit';
import { contextFromCarrier, failSpan, type Logger, SpanKind, withSpan } from '@holdfast/logging';
import type { SecretBox } from '@holdfast/secrets';
import { iso, isoOrNull } from '../../db/time.js';
import type { SubscriptionRow } from '../subscriptions/repository.js';
import { secretContext } from '../subscriptions/service.js';
import type { TargetPolicy } from '../target-safety/service.js';
import type { AttemptLogRow, ClaimedDelivery, DeliveriesRepository, DeliveryRow } from './repository.js';
import { type AttemptOutcome, sendAttempt } from './sender.js';
import { deliveryHeaders, loggedHeaders } from './signing.js';
import { decideAfterAttempt } from './state-machine.js';

export interface DeliverySettings {
  retryScheduleMs: number[];
  timeoutMs: number;
  circuitThreshold: number;
  circuitCooldownMs: number;
  /** Attempts in flight in this instance. */
  concurrency: number;
  /** Attempts in flight per subscription, all instances together. */
  perSubscription: number;
  /** Longest wait between two looks for due work when nothing wakes the worker. */
  pollIntervalMs: number;
}

/** A test delivery never waits longer than this for the receiver, whatever WEBHOOK_TIMEOUT_MS says. */
export const TEST_TIMEOUT_MAX_MS = 30_000;
/**
 * A claim outlives its attempt by this much, so the attempt's result is stored before another
 * instance may take the delivery over (which then happens only when this instance died).
 */
export const CLAIM_MARGIN_MS = 5_000;
/** How often a worker moves cooled-down circuits to HALF_OPEN and claims their probes. */
export const PROBE_PASS_EVERY_MS = 100;

export function toDeliveryLog(row: AttemptLogRow): WebhookDeliveryLog {
  return {
    id: row.id,
    webhookSubscriptionId: row.subscription_id,
    deliveryId: row.delivery_id,
    eventType: row.event_type,
    eventId: row.event_id,
    deliveryAttempt: row.attempt,
    success: row.success,
    statusCode: row.status_code,
    responseTime: row.response_time_ms,
    errorMessage: row.error_message,
    requestHeaders: row.request_headers,
    responseBody: row.response_body,
    createdAt: iso(row.created_at),
  };
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhookSubscriptionId: row.subscription_id,
    eventId: row.event_id,
    eventType: row.event_type as WebhookDelivery['eventType'],
    status: row.status,
    attempts: row.attempt_count,
    nextAttemptAt: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Secrets to sign with, newest first: two during a rotation. */
function openSecrets(secrets: SecretBox, row: Pick<SubscriptionRow, 'id' | 'secret_sealed' | 'previous_secret_sealed'>): string[] {
  const context = secretContext(row.id);
  const newest = secrets.open(row.secret_sealed, context);
  return row.previous_secret_sealed ? [newest, secrets.open(row.previous_secret_sealed, context)] : [newest];
}

export interface DeliveryMetrics {
  attemptFinished: (outcome: AttemptOutcome) => void;
  inFlight: (count: number) => void;
}

export function createDeliveryService(deps: {
  repository: DeliveriesRepository;
  policy: TargetPolicy;
  secrets: SecretBox;
  settings: DeliverySettings;
  logger: Logger;
  /** The owner's subscription, or 404 (subscriptions module). */
  requireSubscription: (owner: WebhookOwner, id: string) => Promise<SubscriptionRow>;
  metrics?: DeliveryMetrics;
}) {
  const { repository, policy, secrets, settings } = deps;
  const log = deps.logger.child({ component: 'deliveries' });
  const leaseMs = settings.timeoutMs + CLAIM_MARGIN_MS;

  /** Signs and sends one attempt of a claimed delivery, then stores its outcome. */
  async function attempt(job: ClaimedDelivery): Promise<AttemptOutcome> {
    const event = job.payload;
    const body = JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data });
    let headers: Record<string, string> = {};
    let outcome: AttemptOutcome;
    try {
      headers = deliveryHeaders({
        body,
        eventType: job.event_type,
        deliveryId: job.id,
        timestamp: Math.floor(Date.now() / 1000),
        secrets: openSecrets(secrets, {
          id: job.subscription_id,
          secret_sealed: job.secret_sealed,
          previous_secret_sealed: job.previous_secret_sealed,
        }),
      });
      outcome = await sendAttempt({
        dispatcher: policy.dispatcherFor(job.ip_whitelist),
        url: job.url,
        headers,
        body,
        timeoutMs: settings.timeoutMs,
      });
    } catch (error) {
      log.error({ err: error, deliveryId: job.id }, 'could not sign a delivery');
      outcome = {
        success: false,
        statusCode: null,
        responseTimeMs: 0,
        errorMessage: 'the subscription secret could not be read',
        responseBody: null,
        retryAfterMs: null,
      };
    }
    deps.metrics?.attemptFinished(outcome);
    const decision = decideAfterAttempt(outcome, job.retry_index, settings.retryScheduleMs);
    await repository.recordAttempt({
      delivery: job,
      log: {
        id: uuidv7(),
        subscription_id: job.subscription_id,
        delivery_id: job.id,
        event_id: job.event_id,
        event_type: job.event_type,
        attempt: job.attempt_count,
        success: outcome.success,
        status_code: outcome.statusCode,
        response_time_ms: outcome.responseTimeMs,
        error_message: outcome.errorMessage,
        request_headers: loggedHeaders(headers),
        response_body: outcome.responseBody,
      },
      decision,
      retryAfterMs: outcome.retryAfterMs,
      circuit: { threshold: settings.circuitThreshold, cooldownMs: settings.circuitCooldownMs },
    });
    if (decision.disableSubscription) log.warn({ subscriptionId: job.subscription_id }, 'receiver answered 410: subscription deactivated');
    return outcome;
  }

  /**
   * The delivery loop of this instance: claim what is due (up to the free slots), send each claim
   * concurrently, and sleep until the next due time, a NOTIFY or a finished attempt.
   */
  function startWorker() {
    const inFlight = new Set<Promise<void>>();
    let running = true;
    let wake: (() => void) | undefined;
    const wakeUp = () => wake?.();

    const sleep = (msToWait: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, msToWait);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });

    function track(job: ClaimedDelivery) {
      // The attempt continues the trace of the event's intake, hence of the change that caused it.
      const span = {
        kind: SpanKind.CLIENT,
        parent: contextFromCarrier(job.trace_context),
        attributes: {
          'http.request.method': 'POST',
          'server.address': new URL(job.url).hostname,
          'holdfast.event.id': job.event_id,
          'holdfast.delivery.id': job.id,
          'holdfast.delivery.attempt': job.attempt_count,
        },
      };
      const task = withSpan(`webhook ${job.event_type} attempt`, span, async (active) => {
        const outcome = await attempt(job);
        if (outcome.statusCode !== null) active.setAttribute('http.response.status_code', outcome.statusCode);
        if (!outcome.success) failSpan(active, outcome.errorMessage ?? 'not delivered');
      })
        .catch((error) =>
          log.error({ err: error, deliveryId: job.id }, 'could not store an attempt; its claim will expire and it will be sent again'),
        )
        .finally(() => {
          inFlight.delete(task);
          deps.metrics?.inFlight(inFlight.size);
          wakeUp();
        });
      inFlight.add(task);
      deps.metrics?.inFlight(inFlight.size);
    }

    let lastProbePass = 0;
    const loop = (async () => {
      let failures = 0;
      while (running) {
        try {
          const free = settings.concurrency - inFlight.size;
          let claimed = 0;
          if (free > 0) {
            // Circuits are looked at every PROBE_PASS_EVERY_MS, not on every pass.
            const probePass = Date.now() - lastProbePass >= PROBE_PASS_EVERY_MS;
            if (probePass) lastProbePass = Date.now();
            const probes = probePass ? await repository.claimProbes({ limit: free, leaseMs, threshold: settings.circuitThreshold }) : [];
            const due =
              free - probes.length > 0
                ? await repository.claimDue({ limit: free - probes.length, perSubscription: settings.perSubscription, leaseMs })
                : [];
            for (const job of [...probes, ...due]) track(job);
            claimed = probes.length + due.length;
          }
          failures = 0;
          if (!running) break;
          if (claimed > 0 && claimed === free) continue;
          const nextDue = inFlight.size >= settings.concurrency ? null : await repository.nextDueInMs();
          await sleep(Math.min(settings.pollIntervalMs, Math.max(5, nextDue ?? settings.pollIntervalMs)));
        } catch (error) {
          failures += 1;
          log.error({ err: error }, 'delivery pass failed');
          if (running) await sleep(Math.min(settings.pollIntervalMs * 2 ** failures, 30_000));
        }
      }
    })();

    log.info({ concurrency: settings.concurrency, perSubscription: settings.perSubscription }, 'delivery worker started');
    return {
      wake: wakeUp,
      /** Stops claiming, then waits for the attempts in flight (each ends within WEBHOOK_TIMEOUT_MS). */
      stop: async () => {
        running = false;
        wakeUp();
        await loop;
        await Promise.all(inFlight);
        log.info('delivery worker stopped');
      },
    };
  }

  return {
    startWorker,

    logs: async (
      owner: WebhookOwner,
      subscriptionId: string,
      query: { limit?: number; offset?: number; successOnly?: boolean; failuresOnly?: boolean },
    ): Promise<WebhookDeliveryLogList> => {
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

    /** One signed `webhook.test` delivery now; its log entry is the answer. Circuit and retries are untouched. */
    test: async (owner: WebhookOwner, subscriptionId: string): Promise<WebhookDeliveryLog> => {
      const subscription = await deps.requireSubscription(owner, subscriptionId);
      const eventId = newEventId();
      const deliveryId = uuidv7();
      const body = JSON.stringify({
        id: eventId,
        type: WEBHOOK_TEST_EVENT_TYPE,
        createdAt: new Date().toISOString(),
        data: {
          webhookSubscriptionId: subscription.id,
          message: 'A test delivery from Holdfast: your endpoint is reachable and verifies signatures.',
        },
      });
      const headers = deliveryHeaders({
        body,
        eventType: WEBHOOK_TEST_EVENT_TYPE,
        deliveryId,
        timestamp: Math.floor(Date.now() / 1000),
        secrets: openSecrets(secrets, subscription),
      });
      const outcome = await sendAttempt({
        dispatcher: policy.dispatcherFor(subscription.ip_whitelist),
        url: subscription.url,
        headers,
        body,
        timeoutMs: Math.min(settings.timeoutMs, TEST_TIMEOUT_MAX_MS),
      });
      deps.metrics?.attemptFinished(outcome);
      const row = await repository.insertTestAttempt({
        id: uuidv7(),
        subscription_id: subscription.id,
        delivery_id: deliveryId,
        event_id: eventId,
        event_type: WEBHOOK_TEST_EVENT_TYPE,
        attempt: 1,
        success: outcome.success,
        status_code: outcome.statusCode,
        response_time_ms: outcome.responseTimeMs,
        error_message: outcome.errorMessage,
        request_headers: loggedHeaders(headers),
        response_body: outcome.responseBody,
      });
      if (!row) throw notFound('Webhook subscription');
      return toDeliveryLog(row);
    },

    resend: async (owner: WebhookOwner, subscriptionId: string, deliveryId: string): Promise<WebhookDelivery> => {
      await deps.requireSubscription(owner, subscriptionId);
      const requeued = await repository.requeue(subscriptionId, deliveryId);
      if (requeued) return toDelivery(requeued);
      // Not requeued: unknown, or an attempt of it is in flight right now (then shown as it is).
      const current = await repository.getDelivery(subscriptionId, deliveryId);
      if (!current) throw notFound('Webhook delivery');
      return toDelivery(current);
    },

    replay: async (
      owner: WebhookOwner,
      subscriptionId: string,
      range: { from: string; to: string; onlyFailed?: boolean },
    ): Promise<ReplayResult> => {
      const subscription = await deps.requireSubscription(owner, subscriptionId);
      if (Date.parse(range.from) >= Date.parse(range.to)) {
        throw validationError([{ field: 'to', reason: 'must be after from' }], 'from must be before to');
      }
      const result = await repository.replay({
        subscription: {
          id: subscription.id,
          platformId: subscription.platform_id,
          workspaceId: subscription.workspace_id,
          eventTypes: subscription.event_types,
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

export type DeliveryService = ReturnType<typeof createDeliveryService>;

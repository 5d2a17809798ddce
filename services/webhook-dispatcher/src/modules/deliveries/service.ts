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
import { createPollingWorker, type PollingWorkerOptions } from '@holdfast/runtime';
import type { SecretBox } from '@holdfast/secrets';
import { iso, isoOrNull } from '../../db/time.js';
import type { SubscriptionRow } from '../subscriptions/repository.js';
import type { TargetPolicy } from '../target-safety/service.js';
import type { AttemptLogRow, AttemptRecord, ClaimedDelivery, DeliveriesRepository, DeliveryRow } from './repository.js';
import { type AttemptOutcome, sendAttempt } from './sender.js';
import { deliveryHeaders, loggedHeaders } from './signing.js';
import { createSigningSecrets } from './signing-secrets.js';
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

/**
 * How long a pass that leaves nothing in flight sleeps: until the earliest retry it scheduled falls
 * due (at least 5 ms), else the poll interval. (It was `min(poll, max(5, ...retries))`, which is 5 ms
 * when there is no retry: an idle dispatcher claimed 200 times a second.)
 */
export function idleSleepMs(pollIntervalMs: number, results: readonly AttemptRecord[]): number {
  const retries = results.flatMap((r) => (r.decision.status === 'pending' ? [Math.max(5, r.decision.delayMs)] : []));
  return Math.min(pollIntervalMs, ...retries);
}

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
  const signingSecrets = createSigningSecrets(secrets);

  /** Signs and sends one attempt of a claimed delivery; what to store of it (the worker stores results in batches). */
  async function attempt(job: ClaimedDelivery): Promise<AttemptRecord> {
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
        secrets: signingSecrets({
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
    return {
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
      decision: decideAfterAttempt(outcome, job.retry_index, settings.retryScheduleMs),
      retryAfterMs: outcome.retryAfterMs,
      circuit: { threshold: settings.circuitThreshold, cooldownMs: settings.circuitCooldownMs },
    };
  }

  /** One attempt under a span that continues the trace of the event's intake, hence of the change that caused it. */
  function tracedAttempt(job: ClaimedDelivery): Promise<AttemptRecord> {
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
    return withSpan(`webhook ${job.event_type} attempt`, span, async (active) => {
      const record = await attempt(job);
      if (record.log.status_code !== null) active.setAttribute('http.response.status_code', record.log.status_code);
      if (!record.log.success) failSpan(active, record.log.error_message ?? 'not delivered');
      return record;
    });
  }

  /**
   * The delivery loop of this instance, a polling worker (ADR 22). One pass stores the results of
   * the attempts finished since the last pass (one statement for all successes), then claims due
   * deliveries up to the free slots (one statement) and starts them. A finished attempt, a NOTIFY
   * (new deliveries, a resend, a replay, a reset circuit) or the next due time wakes it; a wake
   * during a pass runs one more, so results and claims are batched by how many arrive meanwhile.
   * At least once: a claim is a lease in PostgreSQL, so the results of an instance that dies before
   * storing them are lost only as far as their deliveries are sent again once the lease ends.
   */
  function createWorker(wakeOn: PollingWorkerOptions['wakeOn']) {
    const inFlight = new Set<Promise<void>>();
    let finished: AttemptRecord[] = [];
    let lastProbePass = 0;

    /** After a batch of results failed: each alone, so that one bad record holds no other back. */
    async function storeOneByOne(results: readonly AttemptRecord[]): Promise<void> {
      for (const record of results) {
        await repository
          .recordAttempts([record])
          .catch((err) =>
            log.error(
              { err, deliveryId: record.delivery.id },
              'could not store an attempt; its claim will expire and it will be sent again',
            ),
          );
      }
    }

    function stored(results: readonly AttemptRecord[]) {
      for (const record of results)
        if (record.decision.disableSubscription)
          log.warn({ subscriptionId: record.delivery.subscription_id }, 'receiver answered 410: subscription deactivated');
    }

    function track(job: ClaimedDelivery) {
      const task = tracedAttempt(job)
        .then((record) => {
          finished.push(record);
        })
        .catch((error) =>
          log.error({ err: error, deliveryId: job.id }, 'an attempt failed unexpectedly; its claim will expire and it will be sent again'),
        )
        .finally(() => {
          inFlight.delete(task);
          deps.metrics?.inFlight(inFlight.size);
          worker.wake();
        });
      inFlight.add(task);
      deps.metrics?.inFlight(inFlight.size);
    }

    const worker = createPollingWorker({
      name: 'delivery-worker',
      logger: deps.logger,
      intervalMs: settings.pollIntervalMs,
      wakeOn,
      pass: async () => {
        const results = finished;
        finished = [];
        const free = settings.concurrency - inFlight.size;
        let resultsStored = false;
        try {
          // Full: only store (the next finished attempt wakes the worker).
          if (free <= 0) await repository.recordAttempts(results);
          else
            for (const job of await repository.claimDue({ limit: free, perSubscription: settings.perSubscription, leaseMs, results }))
              track(job);
          resultsStored = true;
          stored(results);
          // Circuits are looked at every PROBE_PASS_EVERY_MS, not on every pass, and after the due
          // deliveries so that a probe never delays them.
          const room = settings.concurrency - inFlight.size;
          if (room > 0 && Date.now() - lastProbePass >= PROBE_PASS_EVERY_MS) {
            lastProbePass = Date.now();
            for (const job of await repository.claimProbes({ limit: room, leaseMs, threshold: settings.circuitThreshold })) track(job);
          }
        } catch (error) {
          if (!resultsStored) await storeOneByOne(results);
          throw error;
        }
        // Attempts in flight wake the worker when they finish. With none, it sleeps until a retry
        // just scheduled here falls due, or pollIntervalMs: what other instances schedule, cooled-down
        // circuits and ended pauses are found by the next look (no query for the next due time).
        if (inFlight.size > 0) return false;
        return idleSleepMs(settings.pollIntervalMs, results);
      },
    });

    return {
      start: async () => {
        await worker.start();
        log.info({ concurrency: settings.concurrency, perSubscription: settings.perSubscription }, 'delivery worker started');
      },
      wake: worker.wake,
      /** Stops claiming, waits for the attempts in flight (each ends within WEBHOOK_TIMEOUT_MS), stores their results. */
      stop: async () => {
        await worker.stop();
        await Promise.all(inFlight);
        const results = finished;
        finished = [];
        await repository.recordAttempts(results).catch(() => storeOneByOne(results));
        stored(results);
        log.info('delivery worker stopped');
      },
    };
  }

  return {
    createWorker,

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
        secrets: signingSecrets(subscription),
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

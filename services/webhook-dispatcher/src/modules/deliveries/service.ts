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
import { isoOf, isoOrNull } from '@holdfast/db';
import { contextFromCarrier, failSpan, type Logger, SpanKind, withSpan } from '@holdfast/logging';
import { createPollingWorker, type PollingWorkerOptions } from '@holdfast/runtime';
import type { SecretBox } from '@holdfast/secrets';
import type { SubscriptionRow } from '../subscriptions/index.js';
import type { TargetPolicy } from '../target-safety/index.js';
import type {
  AttemptLogRow,
  AttemptRecord,
  ClaimedDelivery,
  DeliveriesRepository,
  DeliveryRow,
  QueuedRelease,
  Settlement,
  SlotTransfer,
} from './repository.js';
import { type AttemptOutcome, sendAttempt } from './sender.js';
import { deliveryHeaders, loggedHeaders } from './signing.js';
import { createSigningSecrets } from './signing-secrets.js';
import { type AttemptDecision, decideAfterAttempt } from './state-machine.js';

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
  /** Longest wait before a success that left the worker idle is stored (SETTLE_WITHIN_MS). */
  settleWithinMs: number;
}

/** A test delivery never waits longer than this for the receiver, whatever WEBHOOK_TIMEOUT_MS says. */
export const TEST_TIMEOUT_MAX_MS = 30_000;
/**
 * A claim outlives its attempt by this much, so the attempt's result is stored before another
 * instance may take the delivery over (which then happens only when this instance died).
 */
export const CLAIM_MARGIN_MS = 5_000;
/** Deliveries queued per slot at most: per subscription, QUEUE_DEPTH × WEBHOOK_SUBSCRIPTION_CONCURRENCY. */
export const QUEUE_DEPTH = 4;
/**
 * A success that leaves the worker idle (nothing in flight or queued, the last claim took all it
 * found) is stored by the next pass that has a claim to make, or after this long: at a steady trickle
 * the next event's claim carries it, one statement per delivery fewer (ADR 41).
 */
export const SETTLE_WITHIN_MS = 50;
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
    createdAt: isoOf(row.created_at),
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
    nextAttemptAt: row.status === 'pending' ? isoOf(row.next_attempt_at) : null,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: isoOf(row.created_at),
    updatedAt: isoOf(row.updated_at),
  };
}

/** What the worker collects for its next statement. */
interface PendingSettlement extends Settlement {
  results: AttemptRecord[];
  transfers: SlotTransfer[];
  releases: QueuedRelease[];
}

export interface DeliveryMetrics {
  /** A test delivery has no decision: it is never retried, so it never exhausts. */
  attemptFinished: (outcome: AttemptOutcome, decision?: AttemptDecision) => void;
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
    const decision = decideAfterAttempt(outcome, job.retry_index, settings.retryScheduleMs);
    deps.metrics?.attemptFinished(outcome, decision);
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
      decision,
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
   * The delivery loop of this instance (ADR 36). A claim gives a subscription's first deliveries
   * its free slots (WEBHOOK_SUBSCRIPTION_CONCURRENCY, counted in PostgreSQL across instances) and
   * queues the next ones here, claimed (no other instance sends them) but holding no slot. When an
   * attempt succeeds, its slot passes at once to the next queued delivery of its subscription: the
   * attempt starts with no round trip, and the statement that stores the result records the
   * transfer, so the subscription's count of slots never rises. The polling worker (ADR 22) writes
   * one statement at a time behind the attempts: results, transfers, queued deliveries given back,
   * and a claim that refills slots and queues. A NOTIFY, a finished attempt or the poll wakes it;
   * a success that leaves it idle waits for the next claim, settleWithinMs at most (ADR 41).
   * At least once: every claim is a lease in PostgreSQL, so what an instance that dies held (in
   * flight, finished but not stored, queued) is sent again once the lease ends.
   */
  function createWorker(wakeOn: PollingWorkerOptions['wakeOn']) {
    interface Held {
      /** Slots held in PostgreSQL as the next statement leaves them (attempts in flight, and ones whose slot passed on). */
      slots: number;
      queue: { job: ClaimedDelivery; claimedAt: number }[];
      /** Slots whose attempt succeeded with the queue empty while a claim was on its way: kept for what it brings. */
      parked: number;
    }
    const held = new Map<string, Held>();
    const inFlight = new Set<Promise<void>>();
    let slotsHeld = 0;
    let pending: PendingSettlement = { results: [], transfers: [], releases: [] };
    let lastProbePass = 0;
    let claiming = false;
    /** Whether the last claim took fewer deliveries than it asked for: then nothing claimable was left waiting. */
    let claimCameShort = false;
    let settleTimer: NodeJS.Timeout | undefined;
    function settleSoon() {
      settleTimer ??= setTimeout(() => {
        settleTimer = undefined;
        worker.wake();
      }, settings.settleWithinMs);
    }
    /** A queued delivery older than this is given back rather than started: its lease could end mid-attempt. */
    const queuedFreshMs = leaseMs - settings.timeoutMs - CLAIM_MARGIN_MS / 5;
    // Deep enough that a slot finds its next delivery queued while a statement is on its way
    // (answers come back several times faster than a statement on a loaded machine).
    const queuePerSubscription = QUEUE_DEPTH * settings.perSubscription;

    function heldOf(subscriptionId: string): Held {
      let entry = held.get(subscriptionId);
      if (!entry) {
        entry = { slots: 0, queue: [], parked: 0 };
        held.set(subscriptionId, entry);
      }
      return entry;
    }

    function giveBack(entry: Held) {
      for (const { job } of entry.queue) pending.releases.push({ id: job.id, claim_token: job.claim_token });
      entry.queue = [];
    }

    function releaseSlot(subscriptionId: string, entry: Held) {
      entry.slots -= 1;
      slotsHeld -= 1;
      if (entry.slots === 0) {
        giveBack(entry);
        held.delete(subscriptionId);
      }
    }

    /** After a batch of results failed: each alone, so that one bad record holds no other back. */
    async function storeOneByOne(results: readonly AttemptRecord[]): Promise<void> {
      for (const record of results) {
        await repository
          .settle({ results: [record], transfers: [], releases: [] }, leaseMs)
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

    /** The next queued delivery of the subscription whose lease still covers a whole attempt, if any. */
    function nextQueued(entry: Held): ClaimedDelivery | undefined {
      for (;;) {
        const next = entry.queue.shift();
        if (!next) return undefined;
        if (Date.now() - next.claimedAt <= queuedFreshMs) return next.job;
        pending.releases.push({ id: next.job.id, claim_token: next.job.claim_token });
      }
    }

    function finish(job: ClaimedDelivery, record: AttemptRecord | undefined) {
      const entry = heldOf(job.subscription_id);
      if (record) {
        pending.results.push(record);
        // Its result now stores it (and ends its slot or passes it on): a transfer to it not yet
        // written would update the same row twice in one statement.
        const transfer = pending.transfers.findIndex((t) => t.id === job.id);
        if (transfer >= 0) pending.transfers.splice(transfer, 1);
      }
      const next = record?.decision.status === 'succeeded' && worker.running() ? nextQueued(entry) : undefined;
      if (next) handOn(next);
      else if (claiming && record?.decision.status === 'succeeded' && worker.running()) entry.parked += 1;
      else {
        // A failure may open the circuit or pause the subscription: its queue goes back to PostgreSQL.
        if (record && record.decision.status !== 'succeeded') giveBack(entry);
        releaseSlot(job.subscription_id, entry);
      }
      deps.metrics?.inFlight(inFlight.size);
      // A pass now would only store this success (and look for work the last claim did not find):
      // it waits for the next claim a wake-up brings (intake, NOTIFY), settleWithinMs at most.
      // Its slot stays counted in PostgreSQL meanwhile, and its lease covers the wait.
      if (record?.decision.status === 'succeeded' && inFlight.size === 0 && held.size === 0 && claimCameShort) settleSoon();
      else worker.wake();
    }

    /** The slot of a finished attempt passes to `next`, which starts now; the next statement records it. */
    function handOn(next: ClaimedDelivery) {
      pending.transfers.push({ id: next.id, claim_token: next.claim_token, subscription_id: next.subscription_id });
      start(next);
    }

    /** After a claim: parked slots take what it queued, or end. */
    function unpark() {
      for (const [subscriptionId, entry] of held)
        for (; entry.parked > 0; entry.parked -= 1) {
          const next = worker.running() ? nextQueued(entry) : undefined;
          if (next) handOn(next);
          else releaseSlot(subscriptionId, entry);
        }
    }

    function start(job: ClaimedDelivery) {
      const task: Promise<void> = tracedAttempt(job)
        .then(
          (record) => record,
          (error) => {
            log.error(
              { err: error, deliveryId: job.id },
              'an attempt failed unexpectedly; its claim will expire and it will be sent again',
            );
            return undefined;
          },
        )
        .then((record) => {
          inFlight.delete(task);
          finish(job, record);
        });
      inFlight.add(task);
      deps.metrics?.inFlight(inFlight.size);
    }

    /** Claimed deliveries: those with a slot start, the others queue behind this instance's slots of their subscription. */
    function accept(jobs: readonly ClaimedDelivery[]) {
      const claimedAt = Date.now();
      for (const job of jobs) {
        const entry = heldOf(job.subscription_id);
        if (job.holds_slot) {
          entry.slots += 1;
          slotsHeld += 1;
          start(job);
        } else entry.queue.push({ job, claimedAt });
      }
      unpark();
      // Queued behind no slot (the slots ended while the claim was on its way): given back.
      for (const [subscriptionId, entry] of held)
        if (entry.slots === 0) {
          giveBack(entry);
          held.delete(subscriptionId);
        }
    }

    function takePending(): PendingSettlement {
      const taken = pending;
      pending = { results: [], transfers: [], releases: [] };
      return taken;
    }

    /**
     * A settlement whose statement failed: its transfers (less those whose attempt has finished
     * since: their result takes the row) and releases are tried alone, before its results are
     * stored one by one (so no slot is counted free too early); if that fails too, the next pass
     * carries them.
     */
    async function retryLater(settlement: Settlement) {
      const finished = new Set(pending.results.map((r) => r.delivery.id));
      const moves = { results: [], transfers: settlement.transfers.filter((t) => !finished.has(t.id)), releases: settlement.releases };
      await repository.settle(moves, leaseMs).catch(() => {
        pending.transfers.push(...moves.transfers);
        pending.releases.push(...moves.releases);
      });
      await storeOneByOne(settlement.results);
    }

    const worker = createPollingWorker({
      name: 'delivery-worker',
      logger: deps.logger,
      intervalMs: settings.pollIntervalMs,
      wakeOn,
      pass: async () => {
        clearTimeout(settleTimer);
        settleTimer = undefined;
        const settlement = takePending();
        const freeSlots = settings.concurrency - slotsHeld;
        const queued = [...held.values()].reduce((n, e) => n + e.queue.length, 0);
        let settled = false;
        try {
          if (freeSlots <= 0 && queued >= held.size * queuePerSubscription) {
            claimCameShort = false;
            await repository.settle(settlement, leaseMs);
          } else {
            claiming = true;
            const limit = Math.max(0, freeSlots) + QUEUE_DEPTH * settings.concurrency;
            const claimed = await repository
              .claimDue({
                freeSlots,
                limit,
                perSubscription: settings.perSubscription,
                queuePerSubscription,
                leaseMs,
                held: [...held].map(([id, e]) => ({ subscription_id: id, slots: e.slots, queued: e.queue.length })),
                settlement,
              })
              .finally(() => {
                claiming = false;
              })
              .catch((error: unknown) => {
                unpark();
                throw error;
              });
            claimCameShort = claimed.length < limit;
            accept(claimed);
          }
          settled = true;
          stored(settlement.results);
          // Circuits are looked at every PROBE_PASS_EVERY_MS, not on every pass, and after the due
          // deliveries so that a probe never delays them.
          const room = settings.concurrency - slotsHeld;
          if (room > 0 && Date.now() - lastProbePass >= PROBE_PASS_EVERY_MS) {
            lastProbePass = Date.now();
            accept(await repository.claimProbes({ limit: room, leaseMs, threshold: settings.circuitThreshold }));
          }
        } catch (error) {
          if (!settled) await retryLater(settlement);
          throw error;
        }
        // Attempts in flight wake the worker when they finish. With none, it sleeps until a retry
        // just scheduled here falls due, or pollIntervalMs: what other instances schedule, cooled-down
        // circuits and ended pauses are found by the next look (no query for the next due time).
        if (inFlight.size > 0) return false;
        return idleSleepMs(settings.pollIntervalMs, settlement.results);
      },
    });

    return {
      start: async () => {
        await worker.start();
        log.info({ concurrency: settings.concurrency, perSubscription: settings.perSubscription }, 'delivery worker started');
      },
      wake: worker.wake,
      /**
       * Stops claiming, waits for the attempts in flight (each ends within WEBHOOK_TIMEOUT_MS; none
       * starts from a queue any more), stores their results and gives the queued deliveries back.
       */
      stop: async () => {
        await worker.stop();
        await Promise.all(inFlight);
        clearTimeout(settleTimer);
        for (const entry of held.values()) giveBack(entry);
        held.clear();
        const settlement = takePending();
        await repository.settle(settlement, leaseMs).catch(() => storeOneByOne(settlement.results));
        stored(settlement.results);
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

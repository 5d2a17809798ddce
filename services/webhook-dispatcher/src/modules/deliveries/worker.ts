import { contextFromCarrier, failSpan, type Logger, SpanKind, tracingOn, withSpan } from '@holdfast/logging';
import { createPollingWorker, type PollingWorkerOptions } from '@holdfast/runtime';
import type { DeliveryAttempt } from './attempt.js';
import type { DeliveryMetrics } from './metrics.js';
import type { AttemptRecord, ClaimedDelivery, DeliveriesRepository, QueuedRelease, Settlement, SlotTransfer } from './repository.js';
import { type BreakerSettings, decideAfterAttempt, subscriptionAfterAttempt } from './state-machine.js';

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

/**
 * A claim outlives its attempt by this much, so the attempt's result is stored before another
 * instance may take the delivery over (which then happens only when this instance died).
 */
export const CLAIM_MARGIN_MS = 5_000;
/**
 * Deliveries queued per slot at most: per subscription, QUEUE_DEPTH × WEBHOOK_SUBSCRIPTION_CONCURRENCY,
 * and in all, QUEUE_DEPTH × WEBHOOK_CONCURRENCY (ADR 67).
 */
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

/** What the worker collects for its next statement. */
interface PendingSettlement extends Settlement {
  results: AttemptRecord[];
  transfers: SlotTransfer[];
  releases: QueuedRelease[];
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
 * flight, finished but not stored, queued) is sent again once the lease ends. Each result carries
 * the breaker's decision for its subscription (subscriptionAfterAttempt); the repository stores it.
 */
export interface DeliveryWorker {
  start: () => Promise<void>;
  /** Look for work now (the intake of this process committed deliveries). */
  wake: () => void;
  /**
   * Stops claiming, waits for the attempts in flight (each ends within WEBHOOK_TIMEOUT_MS; none
   * starts from a queue any more), stores their results and gives the queued deliveries back.
   */
  stop: () => Promise<void>;
}

export function createDeliveryWorker(deps: {
  repository: DeliveriesRepository;
  attempt: DeliveryAttempt;
  settings: DeliverySettings;
  logger: Logger;
  /** What wakes the worker besides its own attempts and the poll: the NOTIFY of other instances' intakes. */
  wakeOn: PollingWorkerOptions['wakeOn'];
  metrics?: DeliveryMetrics;
}): DeliveryWorker {
  const { repository, settings } = deps;
  const log = deps.logger.child({ component: 'deliveries' });
  const leaseMs = settings.timeoutMs + CLAIM_MARGIN_MS;
  const breaker: BreakerSettings = { threshold: settings.circuitThreshold, cooldownMs: settings.circuitCooldownMs };

  /** One attempt of a claimed delivery and what to store of it (results are stored in batches). */
  async function attemptOf(job: ClaimedDelivery): Promise<AttemptRecord> {
    const event = job.payload;
    const sent = await deps.attempt.send({
      target: {
        id: job.subscription_id,
        url: job.url,
        ipWhitelist: job.ip_whitelist,
        secretSealed: job.secret_sealed,
        previousSecretSealed: job.previous_secret_sealed,
      },
      deliveryId: job.id,
      eventId: job.event_id,
      eventType: job.event_type,
      attempt: job.attempt_count,
      body: JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, data: event.data }),
      timeoutMs: settings.timeoutMs,
    });
    if (sent.signingError !== undefined) log.error({ err: sent.signingError, deliveryId: job.id }, 'could not sign a delivery');
    const { outcome } = sent;
    const decision = decideAfterAttempt(outcome, job.retry_index, settings.retryScheduleMs);
    deps.metrics?.attemptFinished(outcome);
    const result = { success: outcome.success, retryAfterMs: outcome.retryAfterMs, disableSubscription: decision.disableSubscription };
    const now = new Date();
    return {
      delivery: job,
      log: sent.log,
      decision,
      subscription: (stored) => subscriptionAfterAttempt(stored, result, breaker, now),
    };
  }

  /** One attempt under a span that continues the trace of the event's intake, hence of the change that caused it. */
  function tracedAttempt(job: ClaimedDelivery): Promise<AttemptRecord> {
    // Tracing off (the default): the span would be a no-op; its URL parse and attributes are skipped.
    if (!tracingOn()) return attemptOf(job);
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
      const record = await attemptOf(job);
      if (record.log.statusCode !== null) active.setAttribute('http.response.status_code', record.log.statusCode);
      if (!record.log.success) failSpan(active, record.log.errorMessage ?? 'not delivered');
      return record;
    });
  }

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
  // And no deeper in all than this instance's own slots need: what it queues no other instance
  // sends, so a backlog claimed into one instance's queues would leave the others idle.
  const queuePerInstance = QUEUE_DEPTH * settings.concurrency;

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
        .then(() => stored([record]))
        .catch((err) =>
          log.error({ err, deliveryId: record.delivery.id }, 'could not store an attempt; its claim will expire and it will be sent again'),
        );
    }
  }

  /** After the results' commit: what is said of them only once they are stored. */
  function stored(results: readonly AttemptRecord[]) {
    let exhausted = 0;
    for (const record of results) {
      if (record.decision.status === 'failed') exhausted += 1;
      if (record.decision.disableSubscription)
        log.warn({ subscriptionId: record.delivery.subscription_id }, 'receiver answered 410: subscription deactivated');
    }
    deps.metrics?.deliveriesExhausted(exhausted);
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
          log.error({ err: error, deliveryId: job.id }, 'an attempt failed unexpectedly; its claim will expire and it will be sent again');
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
    wakeOn: deps.wakeOn,
    pass: async () => {
      clearTimeout(settleTimer);
      settleTimer = undefined;
      const settlement = takePending();
      const freeSlots = settings.concurrency - slotsHeld;
      const queued = [...held.values()].reduce((n, e) => n + e.queue.length, 0);
      const queueRoom = Math.max(0, queuePerInstance - queued);
      let settled = false;
      try {
        if (freeSlots <= 0 && (queueRoom === 0 || queued >= held.size * queuePerSubscription)) {
          claimCameShort = false;
          await repository.settle(settlement, leaseMs);
        } else {
          claiming = true;
          const limit = Math.max(0, freeSlots) + queueRoom;
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
          accept(await repository.claimProbes({ limit: room, leaseMs }));
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
    stop: async () => {
      await worker.stop();
      await Promise.all(inFlight);
      clearTimeout(settleTimer);
      for (const entry of held.values()) giveBack(entry);
      held.clear();
      const settlement = takePending();
      await repository.settle(settlement, leaseMs).then(
        () => stored(settlement.results),
        () => storeOneByOne(settlement.results),
      );
      log.info('delivery worker stopped');
    },
  };
}

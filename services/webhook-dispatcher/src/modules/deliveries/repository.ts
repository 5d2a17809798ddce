import { type CircuitState, type DeliveryStatus, type DomainEvent, uuidv7 } from '@holdfast/contracts';
import { rowMapper } from '@holdfast/db';
import type { TraceCarrier } from '@holdfast/logging';
import type { Sql, TransactionSql } from 'postgres';
import { textArray } from '../../db/arrays.js';
import { wakeDeliveryWorkers } from '../../db/channels.js';
import type { Circuit } from '../subscriptions/index.js';
import { type AttemptDecision, CIRCUIT_AFTER_COOLDOWN, SUBSCRIPTION_AFTER_SUCCESS, type SubscriptionChange } from './state-machine.js';
import { deliveries, deliveryAttempts } from './tables.js';

/** A delivery claimed by this instance for one attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  attempt_count: number;
  retry_index: number;
  claim_token: string;
  url: string;
  ip_whitelist: string[];
  secret_sealed: string;
  previous_secret_sealed: string | null;
  payload: DomainEvent;
  /** The trace context the event was taken in; the attempt's span continues it. */
  trace_context: TraceCarrier | null;
  /** Whether the claim took one of the subscription's slots (start now) or waits in this instance's queue for one. */
  holds_slot: boolean;
}

/** A queued delivery (claimed, no slot) that took over the slot of a finished attempt of its subscription. */
export interface SlotTransfer {
  id: string;
  claim_token: string;
  subscription_id: string;
}

/** A queued delivery this instance gives back unsent (its lease cleared, its attempt not counted). */
export type QueuedRelease = Pick<SlotTransfer, 'id' | 'claim_token'>;

/** What this instance holds of a subscription, as the next statement leaves it: slots and queued deliveries. */
export interface HeldBySubscription {
  subscription_id: string;
  slots: number;
  queued: number;
}

/** What a pass writes besides the claim: results, slot transfers, queued deliveries given back. */
export interface Settlement {
  results: readonly AttemptRecord[];
  transfers: readonly SlotTransfer[];
  releases: readonly QueuedRelease[];
}

/** A delivery log entry as stored: the table's row type, read through the row mapper of `@holdfast/db`. */
export type AttemptLogRow = typeof deliveryAttempts.$inferSelect;
/** A log entry to store (its time is the database's). */
export type NewAttemptLog = Omit<AttemptLogRow, 'createdAt'>;
/** A delivery as stored. */
export type DeliveryRow = typeof deliveries.$inferSelect;

const toAttemptLog = rowMapper(deliveryAttempts);
const toDelivery = rowMapper(deliveries);

/** A finished attempt of a claimed delivery, as the worker hands it over to be stored. */
export interface AttemptRecord {
  delivery: Pick<ClaimedDelivery, 'id' | 'subscription_id' | 'claim_token'>;
  log: NewAttemptLog;
  decision: AttemptDecision;
  /**
   * What a failure writes to its subscription, from the circuit as stored (read under the
   * subscription's row lock in the transaction that stores the failure): the breaker's decision,
   * made by the worker (subscriptionAfterAttempt). A success writes SUBSCRIPTION_AFTER_SUCCESS.
   */
  subscription: (stored: Circuit) => SubscriptionChange;
}

const ms = (value: number) => `${Math.max(0, Math.round(value))} milliseconds`;

export type DeliveriesRepository = ReturnType<typeof createDeliveriesRepository>;

export function createDeliveriesRepository(sql: Sql) {
  /**
   * `limit n` after a set made of a JSON parameter (n its length): the planner then expects n rows,
   * not a function's default 100, and reaches the deliveries they name through their primary key
   * rather than scanning the table (which it otherwise does while the table holds a few thousand rows).
   */
  const fewRows = (count: number) => sql`limit ${count}`;

  const claimedColumns = sql.unsafe(`d.id, d.subscription_id, d.event_id, d.event_type, d.attempt_count, d.retry_index, d.claim_token,
    s.url, s.ip_whitelist, s.secret_sealed, s.previous_secret_sealed, e.payload, e.trace_context, d.holds_slot`);

  async function details(ids: string[]): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    return sql<ClaimedDelivery[]>`
      select ${claimedColumns}
      from deliveries d
      join subscriptions s on s.id = d.subscription_id
      join received_events e on e.id = d.event_id
      where d.id in ${sql(ids)}`;
  }

  /**
   * A transaction that does not wait for its WAL flush. Only for what a PostgreSQL crash may lose
   * without losing a delivery: a claim or an attempt's result lost that way only makes the
   * delivery due again, so it is sent once more (at least once, never lost). The intake, which
   * acknowledges JetStream after its commit, never uses this.
   */
  function withoutFlushWait<T>(work: (tx: TransactionSql) => Promise<T>): Promise<T> {
    return sql.begin(async (tx) => {
      await tx`set local synchronous_commit = off`;
      return work(tx);
    }) as Promise<T>;
  }
  /**
   * The same for a single statement (one round trip): a CTE sets it for the statement's own
   * transaction; the statement reads `no_flush_wait` in a FROM list so that the CTE runs.
   */
  const noFlushWait = sql`no_flush_wait as (select set_config('synchronous_commit', 'off', true) as setting)`;

  async function insertAttempt(tx: Sql | TransactionSql, log: NewAttemptLog): Promise<AttemptLogRow | undefined> {
    // The subscription may have been deleted while the attempt was in flight: then nothing is logged.
    const [row] = await tx`
      insert into delivery_attempts (id, subscription_id, delivery_id, event_id, event_type, attempt, success, status_code,
                                     response_time_ms, error_message, request_headers, response_body)
      select ${log.id}, ${log.subscriptionId}, ${log.deliveryId}, ${log.eventId}, ${log.eventType}, ${log.attempt}, ${log.success},
             ${log.statusCode}, ${log.responseTimeMs}, ${log.errorMessage}, ${JSON.stringify(log.requestHeaders)}::text::jsonb, ${log.responseBody}
      where exists (select 1 from subscriptions where id = ${log.subscriptionId})
      returning *`;
    return row && toAttemptLog(row);
  }

  /**
   * A failed attempt's log entry, the delivery's next state and what the record's decision writes
   * to its subscription, in one transaction. A delivery whose lease was lost (another instance
   * reclaimed it) keeps the other's state.
   */
  async function recordFailure(record: AttemptRecord): Promise<void> {
    const { delivery, decision } = record;
    await withoutFlushWait(async (tx) => {
      // The subscription's row lock first: results for one subscription are stored one after the
      // other (NO KEY UPDATE does not block the foreign-key checks of other inserts, so no deadlock).
      const [stored] = await tx<{ circuit_state: CircuitState; consecutive_failures: number }[]>`
        select circuit_state, consecutive_failures from subscriptions where id = ${delivery.subscription_id} for no key update`;
      await insertAttempt(tx, record.log);
      const next =
        decision.status === 'pending'
          ? tx`status = 'pending', retry_index = ${decision.retryIndex}, next_attempt_at = now() + ${ms(decision.delayMs)}::interval`
          : tx`status = ${decision.status}`;
      await tx`
        update deliveries
        set ${next}, claimed_until = null, claim_token = null, holds_slot = false, last_status_code = ${record.log.statusCode},
            last_error = ${record.log.errorMessage}, updated_at = now()
        where id = ${delivery.id} and claim_token = ${delivery.claim_token}`;

      if (!stored) return;
      const change = record.subscription({ state: stored.circuit_state, consecutiveFailures: stored.consecutive_failures });
      const opening =
        change.opening.kind === 'opened'
          ? tx`circuit_opened_at = now(), circuit_half_open_at = now() + ${ms(change.opening.halfOpenAfterMs)}::interval, probe_until = null`
          : change.opening.kind === 'cleared'
            ? tx`circuit_opened_at = null, circuit_half_open_at = null, probe_until = null`
            : tx`probe_until = probe_until`;
      const paused =
        change.pauseMs === null
          ? tx`paused_until = paused_until`
          : tx`paused_until = greatest(coalesce(paused_until, now()), now() + ${ms(change.pauseMs)}::interval)`;
      const disabled =
        change.deactivatedBecause === null
          ? tx`is_active = is_active`
          : tx`is_active = false, disabled_reason = ${change.deactivatedBecause}`;
      await tx`
        update subscriptions
        set circuit_state = ${change.circuit.state}, consecutive_failures = ${change.circuit.consecutiveFailures}, ${opening}, ${paused},
            ${disabled}, updated_at = now()
        where id = ${delivery.subscription_id}`;
    });
  }

  /**
   * The failed attempts among `records`, each stored in its own transaction; returns the
   * successes, in delivery order (two instances storing at once take row locks in the same order).
   */
  async function recordFailuresOf(records: readonly AttemptRecord[]): Promise<AttemptRecord[]> {
    const sorted = [...records].sort((a, b) => (a.delivery.id < b.delivery.id ? -1 : 1));
    for (const record of sorted) if (record.decision.status !== 'succeeded') await recordFailure(record);
    return sorted.filter((r) => r.decision.status === 'succeeded');
  }

  /**
   * CTEs storing successful attempts (`no_flush_wait` must come before them): their log entries
   * (unless the subscription was deleted meanwhile), their deliveries succeeded (only where the
   * claim is still ours), their subscriptions' circuits CLOSED with no failures (the row written,
   * and locked, only when it was not already so). `stored_ids` lists the deliveries, for a claim
   * in the same statement, which sees the rows as they were before it.
   */
  function storeSuccesses(successes: readonly AttemptRecord[]) {
    const closed = SUBSCRIPTION_AFTER_SUCCESS.circuit;
    const rows = successes.map(({ delivery, log }) => ({
      id: log.id,
      subscription_id: log.subscriptionId,
      delivery_id: delivery.id,
      claim_token: delivery.claim_token,
      event_id: log.eventId,
      event_type: log.eventType,
      attempt: log.attempt,
      status_code: log.statusCode,
      response_time_ms: log.responseTimeMs,
      request_headers: log.requestHeaders,
      response_body: log.responseBody,
    }));
    return sql`
      stored as (
        select * from jsonb_to_recordset(${JSON.stringify(rows)}::text::jsonb)
          as x(id uuid, subscription_id uuid, delivery_id uuid, claim_token uuid, event_id text, event_type text, attempt int,
               status_code int, response_time_ms int, request_headers jsonb, response_body text)
        ${fewRows(rows.length)}
      ),
      stored_ids as (select delivery_id as id from stored),
      stored_attempts as (
        insert into delivery_attempts (id, subscription_id, delivery_id, event_id, event_type, attempt, success, status_code,
                                       response_time_ms, error_message, request_headers, response_body)
        select i.id, i.subscription_id, i.delivery_id, i.event_id, i.event_type, i.attempt, true, i.status_code,
               i.response_time_ms, null, i.request_headers, i.response_body
        from stored i, no_flush_wait
        where exists (select 1 from subscriptions where id = i.subscription_id)
        returning 1
      ),
      stored_deliveries as (
        update deliveries d
        set status = 'succeeded', claimed_until = null, claim_token = null, holds_slot = false, last_status_code = i.status_code,
            last_error = null, updated_at = now()
        from stored i
        where d.id = i.delivery_id and d.claim_token = i.claim_token
        returning 1
      ),
      stored_circuits as (
        update subscriptions
        set circuit_state = ${closed.state}, consecutive_failures = ${closed.consecutiveFailures}, circuit_opened_at = null,
            circuit_half_open_at = null, probe_until = null, updated_at = now()
        where id in (select subscription_id from stored)
          and (circuit_state <> ${closed.state} or consecutive_failures <> ${closed.consecutiveFailures} or probe_until is not null)
        returning 1
      )`;
  }

  /**
   * CTEs (after storeSuccesses) for the rest of a settlement: queued deliveries that took over a
   * finished attempt's slot (`moved`: the slot and a fresh lease, as their attempt started now)
   * and queued deliveries given back unsent (`given_back`: unclaimed, their attempt not counted).
   * A transfer lands in the statement that stores the finished attempt it replaces, so the
   * subscription's count of slots never rises, even for a moment.
   */
  function settleMoves(settlement: Settlement, leaseMs: number) {
    return sql`
      transfers as (
        select * from jsonb_to_recordset(${JSON.stringify(settlement.transfers)}::text::jsonb)
          as x(id uuid, claim_token uuid, subscription_id uuid)
        ${fewRows(settlement.transfers.length)}
      ),
      releases as (
        select * from jsonb_to_recordset(${JSON.stringify(settlement.releases)}::text::jsonb) as r(id uuid, claim_token uuid)
        ${fewRows(settlement.releases.length)}
      ),
      moved as (
        update deliveries d
        set holds_slot = true, claimed_until = now() + ${ms(leaseMs)}::interval, updated_at = now()
        from transfers t
        where d.id = t.id and d.claim_token = t.claim_token
        returning d.id
      ),
      given_back as (
        update deliveries d
        set claimed_until = null, claim_token = null, attempt_count = d.attempt_count - 1, updated_at = now()
        from releases r
        where d.id = r.id and d.claim_token = r.claim_token and not d.holds_slot
        returning d.id
      )`;
  }

  return {
    /**
     * Claims due deliveries of subscriptions whose circuit is CLOSED, at most `perSubscription` in
     * flight per subscription across all instances, oldest first. FOR UPDATE SKIP LOCKED plus a
     * lease: another instance skips rows being claimed and cannot take a claimed row before its
     * lease ends, so an attempt is sent once unless its instance dies mid-attempt.
     *
     * `results` (attempts finished since the last claim) are stored first (recordAttempts), the
     * successes in the claim's own statement: one round trip per pass of the worker, and their
     * slots count as free for the claim.
     */
    claimDue: async (options: {
      /** Free slots of this instance (WEBHOOK_CONCURRENCY less the slots it holds). */
      freeSlots: number;
      /** Deliveries claimed at most, slots and queued together. */
      limit: number;
      perSubscription: number;
      /** Queued deliveries this instance keeps at most per subscription. */
      queuePerSubscription: number;
      leaseMs: number;
      /** What this instance holds, per subscription, once this statement's results and releases are stored. */
      held: readonly HeldBySubscription[];
      settlement: Settlement;
    }): Promise<ClaimedDelivery[]> => {
      const successes = await recordFailuresOf(options.settlement.results);
      const token = uuidv7();
      return sql<ClaimedDelivery[]>`
        with ${noFlushWait}, ${storeSuccesses(successes)}, ${settleMoves(options.settlement, options.leaseMs)},
        held as (
          select * from jsonb_to_recordset(${JSON.stringify(options.held)}::text::jsonb) as h(subscription_id uuid, slots int, queued int)
          ${fewRows(options.held.length)}
        ),
        -- Materialized: each subscription's count is taken once, not once per use of room.
        subs as materialized (
          select s.id, coalesce(h.slots, 0) as held_slots, coalesce(h.queued, 0) as queued,
                 greatest(${options.perSubscription}::int
                   - (select count(*)::int from (
                        select 1 from deliveries i
                        where i.subscription_id = s.id and i.holds_slot and i.claimed_until > now()
                          and i.id not in (select id from stored_ids)
                        limit ${options.perSubscription}) as slots)
                   - (select count(*)::int from transfers t where t.subscription_id = s.id), 0) as room
          from subscriptions s left join held h on h.subscription_id = s.id, no_flush_wait
          where s.is_active and s.circuit_state = 'CLOSED' and (s.paused_until is null or s.paused_until <= now())
        ),
        candidates as (
          select x.id, x.next_attempt_at, x.rank, subs.id as subscription_id, subs.room, subs.held_slots
          from subs
          cross join lateral (
            select d.id, d.next_attempt_at, row_number() over (order by d.next_attempt_at) as rank
            from deliveries d
            where d.subscription_id = subs.id and d.status = 'pending' and d.next_attempt_at <= now()
              and (d.claimed_until is null or d.claimed_until <= now())
            order by d.next_attempt_at
            limit subs.room + greatest(${options.queuePerSubscription}::int - subs.queued, 0)
          ) x
        ),
        slotted as (
          select c.*, c.rank <= c.room
                   and sum((c.rank <= c.room)::int) over (order by c.next_attempt_at, c.id) <= ${options.freeSlots} as gets_slot
          from candidates c
        ),
        chosen as (
          -- A subscription's first deliveries take its free slots; the next ones queue here only
          -- behind a slot this instance holds, which hands itself on to them as attempts end.
          select id, gets_slot from (
            select sl.*, bool_or(sl.gets_slot) over (partition by sl.subscription_id) as any_slot from slotted sl
          ) t
          where gets_slot or (rank > room and (held_slots > 0 or any_slot))
          order by gets_slot desc, next_attempt_at
          limit ${options.limit}
        ),
        -- Each chosen delivery locked through its primary key, the chosen ones leading (lateral),
        -- and checked on the version it locked. As a join filtered on the due index's predicate, the
        -- planner (which saw that index nearly empty at the last analyze: no backlog then) walked
        -- every due delivery and compared it with each chosen one: a backlog of thousands made a pass
        -- take 20-270 ms. The check stays outside (after the lock, as the join re-checked it); the
        -- limit 1 keeps it from being pushed into the subquery, where it would match that index again.
        locked as (
          select l.id, chosen.gets_slot from chosen
          cross join lateral (
            select d.id, d.status, d.claimed_until from deliveries d where d.id = chosen.id for update of d skip locked limit 1
          ) l
          where l.status = 'pending' and (l.claimed_until is null or l.claimed_until <= now())
        )
        update deliveries d
        set claimed_until = now() + ${ms(options.leaseMs)}::interval, claim_token = ${token}, holds_slot = locked.gets_slot,
            attempt_count = d.attempt_count + 1, updated_at = now()
        from locked, subscriptions s, received_events e
        where d.id = locked.id and s.id = d.subscription_id and e.id = d.event_id
        returning ${claimedColumns}`;
    },

    /**
     * Moves OPEN circuits whose cooldown ended to HALF_OPEN, then claims one probe (the oldest due
     * delivery) per HALF_OPEN subscription that has none in flight. The subscription's probe lease
     * keeps every other instance from sending a second one.
     */
    claimProbes: async (options: { limit: number; leaseMs: number }): Promise<ClaimedDelivery[]> => {
      const halfOpen = CIRCUIT_AFTER_COOLDOWN;
      // One statement in the common case (no circuit open): move what is due, count what waits for a probe.
      const [waiting] = await sql<{ n: number }[]>`
        with moved as (
          update subscriptions set circuit_state = ${halfOpen}, probe_until = null, updated_at = now()
          where circuit_state = 'OPEN' and circuit_half_open_at <= now()
          returning id
        )
        select (select count(*)::int from moved)
             + (select count(*)::int from subscriptions
                where circuit_state = 'HALF_OPEN' and is_active and (probe_until is null or probe_until <= now())) as n`;
      if (!waiting?.n) return [];
      const token = uuidv7();
      const ids = await withoutFlushWait(async (tx) => {
        const subs = await tx<{ id: string }[]>`
          select id from subscriptions
          where circuit_state = 'HALF_OPEN' and is_active and (probe_until is null or probe_until <= now())
            and (paused_until is null or paused_until <= now())
          limit ${options.limit}
          for update skip locked`;
        const claimed: string[] = [];
        for (const sub of subs) {
          const [probe] = await tx<{ id: string }[]>`
            select id from deliveries
            where subscription_id = ${sub.id} and status = 'pending' and next_attempt_at <= now()
              and (claimed_until is null or claimed_until <= now())
            order by next_attempt_at
            limit 1
            for update skip locked`;
          if (!probe) continue;
          await tx`update subscriptions set probe_until = now() + ${ms(options.leaseMs)}::interval where id = ${sub.id}`;
          await tx`
            update deliveries
            set claimed_until = now() + ${ms(options.leaseMs)}::interval, claim_token = ${token}, holds_slot = true,
                attempt_count = attempt_count + 1, updated_at = now()
            where id = ${probe.id}`;
          claimed.push(probe.id);
        }
        return claimed;
      });
      return details(ids);
    },

    /**
     * A settlement without a claim: the failures each in its own transaction (retries, circuit
     * moves, pauses), then every success, transfer and release in one statement.
     */
    settle: async (settlement: Settlement, leaseMs: number): Promise<void> => {
      const successes = await recordFailuresOf(settlement.results);
      if (successes.length === 0 && settlement.transfers.length === 0 && settlement.releases.length === 0) return;
      await sql`
        with ${noFlushWait}, ${storeSuccesses(successes)}, ${settleMoves(settlement, leaseMs)}
        select (select count(*) from stored_attempts), (select count(*) from moved), (select count(*) from given_back)`;
    },

    /** A test delivery's log entry (test deliveries have no delivery row and no retries). */
    insertTestAttempt: async (log: NewAttemptLog): Promise<AttemptLogRow | undefined> => insertAttempt(sql, log),

    pendingCount: async (): Promise<number> => {
      const [row] = await sql<{ n: number }[]>`select count(*)::int as n from deliveries where status = 'pending'`;
      return row?.n ?? 0;
    },

    logs: async (
      subscriptionId: string,
      options: { limit: number; offset: number; success?: boolean },
    ): Promise<{ rows: AttemptLogRow[]; total: number }> => {
      // As SQL, not a parameter: a prepared statement's generic plan can use the partial index of
      // failures (delivery_attempts_subscription_failures_idx) only for a condition it can read.
      const filter = options.success === undefined ? sql`` : options.success ? sql`and success` : sql`and not success`;
      const [rows, [count]] = await Promise.all([
        sql`
          select * from delivery_attempts where subscription_id = ${subscriptionId} ${filter}
          order by created_at desc, id desc limit ${options.limit} offset ${options.offset}`,
        sql<{ n: number }[]>`select count(*)::int as n from delivery_attempts where subscription_id = ${subscriptionId} ${filter}`,
      ]);
      return { rows: rows.map(toAttemptLog), total: count?.n ?? 0 };
    },

    getDelivery: async (subscriptionId: string, deliveryId: string): Promise<DeliveryRow | undefined> => {
      const [row] = await sql`select * from deliveries where id = ${deliveryId} and subscription_id = ${subscriptionId}`;
      return row && toDelivery(row);
    },

    /** Due now with a fresh retry schedule, unless an attempt is in flight (then unchanged). */
    requeue: async (subscriptionId: string, deliveryId: string): Promise<DeliveryRow | undefined> => {
      const [row] = await sql`
        update deliveries
        set status = 'pending', retry_index = 0, next_attempt_at = now(), updated_at = now()
        where id = ${deliveryId} and subscription_id = ${subscriptionId}
          and not (status = 'pending' and claimed_until > now())
        returning *`;
      if (row) await wakeDeliveryWorkers(sql);
      return row && toDelivery(row);
    },

    /**
     * Queues the events of [from, to) that the subscription matches: a new delivery where it never
     * had one, the existing one again otherwise (fresh schedule), except deliveries already pending
     * and, with `onlyFailed`, succeeded ones.
     */
    replay: async (input: {
      subscription: { id: string; platformId: string | null; workspaceId: string | null; eventTypes: string[] };
      from: string;
      to: string;
      onlyFailed: boolean;
      maxEvents: number;
    }) => {
      const { subscription } = input;
      const owner = subscription.platformId
        ? sql`e.platform_id = ${subscription.platformId}`
        : sql`e.workspace_id = ${subscription.workspaceId}`;
      const events = await sql<{ id: string; type: string; occurred_at: string }[]>`
        select e.id, e.type, e.occurred_at from received_events e
        where ${owner} and e.type = any(${textArray(sql, subscription.eventTypes)})
          and e.occurred_at >= ${input.from} and e.occurred_at < ${input.to}
        order by e.occurred_at, e.id
        limit ${input.maxEvents + 1}`;
      const resumeFrom = events.length > input.maxEvents ? events[input.maxEvents]!.occurred_at : null;
      const batch = events.slice(0, input.maxEvents);
      if (batch.length === 0) return { matched: 0, created: 0, requeued: 0, alreadyPending: 0, skipped: 0, resumeFrom };

      return sql.begin(async (tx) => {
        const created = await tx<{ event_id: string }[]>`
          insert into deliveries ${tx(
            batch.map((e) => ({ id: uuidv7(), subscription_id: subscription.id, event_id: e.id, event_type: e.type })),
            'id',
            'subscription_id',
            'event_id',
            'event_type',
          )}
          on conflict (subscription_id, event_id) do nothing
          returning event_id`;
        const createdIds = new Set(created.map((r) => r.event_id));
        const existing = batch.filter((e) => !createdIds.has(e.id)).map((e) => e.id);
        let requeued = 0;
        let alreadyPending = 0;
        let skipped = 0;
        if (existing.length > 0) {
          const statuses = await tx<{ event_id: string; status: DeliveryStatus }[]>`
            select event_id, status from deliveries
            where subscription_id = ${subscription.id} and event_id = any(${textArray(tx, existing)})
            for update`;
          const again = statuses
            .filter((r) => r.status === 'failed' || (r.status === 'succeeded' && !input.onlyFailed))
            .map((r) => r.event_id);
          alreadyPending = statuses.filter((r) => r.status === 'pending').length;
          skipped = statuses.filter((r) => r.status === 'succeeded' && input.onlyFailed).length;
          if (again.length > 0) {
            const rows = await tx`
              update deliveries set status = 'pending', retry_index = 0, next_attempt_at = now(), updated_at = now()
              where subscription_id = ${subscription.id} and event_id = any(${textArray(tx, again)})
              returning id`;
            requeued = rows.length;
          }
        }
        if (created.length > 0 || requeued > 0) await wakeDeliveryWorkers(tx);
        return { matched: batch.length, created: created.length, requeued, alreadyPending, skipped, resumeFrom };
      });
    },
  };
}

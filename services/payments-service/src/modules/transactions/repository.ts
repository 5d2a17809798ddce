import {
  type DomainEvent,
  type FinalityLevel,
  PaymentsTransaction,
  TERMINAL_TRANSACTION_STATUSES,
  TRANSACTION_STATUSES,
  type TransactionStatus,
} from '@holdfast/contracts';
import { isoOf, outboxInsert, type Queryable, rowMapper } from '@holdfast/db';
import type { TraceCarrier } from '@holdfast/logging';
import { getTableColumns } from 'drizzle-orm';
import type { BatchStatus } from './state-machine.js';
import { IN_FLIGHT_SQL, transactions } from './tables.js';

/** A transaction row as the service uses it (the API record without the create-time `rescind`). */
export type TransactionRow = Omit<PaymentsTransaction, 'rescind'> & {
  workspaceId: string | null;
  legIndex: number | null;
  template: Record<string, unknown> | null;
  rescindPolicy: Record<string, unknown> | null;
  requestFingerprint: string | null;
  version: number;
  statusChangedAt: string;
};

/**
 * A transaction as its answers need it: the API record, and the fingerprint and rescind rules of a
 * replay's answer. GET by id and the idempotency key's lookup read only these columns
 * (ANSWER_COLUMNS), not the template snapshot (a jsonb as large as the platform's template) nor
 * the bookkeeping ones: every read pays for each column it parses.
 */
export type AnsweredRow = Omit<TransactionRow, 'workspaceId' | 'legIndex' | 'template' | 'version' | 'statusChangedAt'>;

/** A row of `transactions` as postgres.js answers it (`select *`, `returning *`: the SQL column names). */
type DbRow = Record<string, unknown>;

const ANSWER_COLUMNS = `id, platform_id, status, amount, currency, from_address, to_address, blockchain_network, chain_id,
  orchestration_type, signer_type, customer_id, template_id, billing_config, quote_id, fee_amount, metadata, idempotency_key,
  request_fingerprint, batch_id, tx_hash, escrow_address, hold_deadline, rescind_policy, failure_reason, required_finality, finality,
  confirmations, block_number, block_hash, created_at, updated_at`;

// The two reads of an answer as whole statements (prepared, like every tagged query): a column
// list spliced into a tagged query was a fragment built and stringified on every call.
const ANSWER_BY_ID = `select ${ANSWER_COLUMNS} from transactions where id = $1 and platform_id = $2`;
const ANSWER_BY_KEY = `select ${ANSWER_COLUMNS} from transactions where platform_id = $1 and idempotency_key = $2 and batch_id is null`;
/**
 * Several keys' lookups (ADR 39): $1 the platforms, $2 the keys, pairwise; `n` is a lookup's place
 * (from 1). Each key is probed through the key's unique index (a lateral subquery, kept apart from
 * the join by its `limit`): as a plain join, the cached generic plan made on a table of a few hundred
 * rows hashed the keys and read the whole table on every call, 1.3 ms a lookup at 7,000 rows and
 * growing with the table. A plan made on a table of 100 rows or fewer scans it once per key instead,
 * until autovacuum's analyze has the statement planned again (docs/operations.md).
 */
export const ANSWER_BY_KEYS = `select l.n, t.* from unnest($1::uuid[], $2::text[]) with ordinality as l(lp, lk, n)
  cross join lateral (
    select ${ANSWER_COLUMNS} from transactions
    where platform_id = l.lp and idempotency_key = l.lk and batch_id is null
    limit 1) t`;

/**
 * Maps a `select *` row of `transactions` to a TransactionRow: the table's own mapper (rowMapper),
 * so that a new column reaches every answer. The table's row type is checked to be a TransactionRow
 * here; it has `senderSeq` besides, which the answers leave out (toPaymentsTransaction).
 */
export const toTransactionRow: (row: DbRow) => TransactionRow = rowMapper(transactions);

/** Maps a row of ANSWER_COLUMNS to an AnsweredRow (the columns it does not read are undefined). */
const toAnsweredRow: (row: DbRow) => AnsweredRow = toTransactionRow;

/**
 * The API record of a row (what GET answers), from a whole row or the columns of an answer: the
 * contract's fields (PaymentsTransaction's, but for the create-time `rescind`), as one object
 * literal compiled once. An object rest (`{ workspaceId, ..., ...record } = row`) took 9–16 µs a
 * row, this 0.3–1 µs (in-process, 300,000 rows a round), on every answer of a transaction.
 */
export const toPaymentsTransaction: (row: AnsweredRow) => PaymentsTransaction = new Function(
  `return (row) => ({ ${Object.keys(PaymentsTransaction.properties)
    .filter((field) => field !== 'rescind')
    .map((field) => `${JSON.stringify(field)}: row[${JSON.stringify(field)}]`)
    .join(', ')} });`,
)();

/** Columns a move may set besides the status (the chain facts, the failure reason). */
export interface MovePatch {
  txHash?: string;
  escrowAddress?: string;
  chainId?: number;
  failureReason?: string;
  holdDeadline?: string;
  /** The lock's level and block (docs/chain.md, levels); null clears them (a reorg withdrew the lock). */
  finality?: FinalityLevel | null;
  confirmations?: number | null;
  blockNumber?: number | null;
  blockHash?: string | null;
}

/** What creation writes (the row before any move), but for what the database's clock decides (createSingle). */
export interface NewTransaction {
  id: string;
  platformId: string;
  workspaceId: string | null;
  status: TransactionStatus;
  amount: string;
  currency: PaymentsTransaction['currency'];
  fromAddress: string;
  toAddress: string;
  blockchainNetwork: PaymentsTransaction['blockchainNetwork'];
  chainId: number | null;
  orchestrationType: string;
  signerType: string | null;
  customerId: string | null;
  templateId: string | null;
  template: Record<string, unknown> | null;
  billingConfig: Record<string, unknown> | null;
  quoteId: string | null;
  feeAmount: string | null;
  metadata: Record<string, unknown>;
  idempotencyKey: string | null;
  requestFingerprint: string | null;
  /** The level at which it counts (requiredFinalityOf); null: `confirmed`. */
  requiredFinality: FinalityLevel | null;
}

export interface TransactionFilters {
  page: number;
  limit: number;
  status?: TransactionStatus;
  fromAddress?: string;
  toAddress?: string;
  walletAddress?: string;
  /** Inclusive lower bound (ISO). */
  createdFrom?: string;
  /** Inclusive upper bound (ISO). */
  createdTo?: string;
  /** Exclusive upper bound (ISO). */
  createdBefore?: string;
  customerId?: string;
}

/**
 * A single transaction's creation as one statement (`createSingle`): the row as creation writes it,
 * less what the database's clock decides (the creation time, the hold deadline and the rescind
 * deadline), and the sender rules to check.
 */
export interface SingleCreation {
  transaction: NewTransaction;
  /** The hold period: the hold deadline (and the rescind deadline) is the creation time plus this. */
  holdSeconds: number;
  /** The rescind rules, their `deadline` set by the statement. */
  rescindPolicy: Record<string, unknown>;
  /** The creation transition's actor. */
  actor: string;
  /** `transaction.created`, written to the outbox with the row. */
  event: DomainEvent;
  /** The per-sender window: its length and how many creations it admits; null when off. */
  senderWindow: { seconds: number; limit: number } | null;
  /** The duplicate window's length; null when not checked (off, or an idempotency key). */
  duplicateWindowSeconds: number | null;
}

/**
 * What the creation statement did: created the row; found the idempotency key's first result
 * (`existing`, nothing written); was refused by the sender's recent creations (nothing written); or
 * lost a race (`conflict`, nothing written): another creation of the sender, or one with the same
 * idempotency key, committed after this statement read the sender's rows, so its reads are stale
 * and it must be run again.
 */
export type SingleCreationOutcome =
  | { outcome: 'created' | 'existing'; row: TransactionRow }
  | { outcome: 'refused'; now: string; nthNewest: string | null; duplicateId: string | null }
  | { outcome: 'conflict' };

/** The key of a sender's advisory lock (a creation holds it until its transaction ends). */
const senderLockKey = (platformId: string, fromAddress: string) => `tx-sender:${platformId}:${fromAddress.toLowerCase()}`;

/** A creation statement's row (one per item): what it created or found, else why it wrote nothing. */
type CreationRow = DbRow & {
  outcome: 'created' | 'existing' | null;
  now: string | Date;
  nth_newest: string | Date | null;
  duplicate_id: string | null;
};

/** The outcome of a creation statement's row: created or the key's first result; else refused by a window, or a lost race. */
function creationOutcomeOf(row: CreationRow): SingleCreationOutcome {
  if (row.outcome !== null) return { outcome: row.outcome, row: toTransactionRow(row) };
  if (row.nth_newest === null && row.duplicate_id === null) return { outcome: 'conflict' };
  return {
    outcome: 'refused',
    now: isoOf(row.now),
    nthNewest: row.nth_newest === null ? null : isoOf(row.nth_newest),
    duplicateId: row.duplicate_id,
  };
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/**
 * NewTransaction's fields, in the order both creation statements insert them: the one list of the
 * single statement's values (createSingle), the grouped statement's input record (createMany) and
 * both inserts' columns. `satisfies` makes a field added to NewTransaction fail here until listed.
 */
const NEW_TRANSACTION_FIELDS = Object.keys({
  id: true,
  platformId: true,
  workspaceId: true,
  status: true,
  amount: true,
  currency: true,
  fromAddress: true,
  toAddress: true,
  blockchainNetwork: true,
  chainId: true,
  orchestrationType: true,
  signerType: true,
  customerId: true,
  templateId: true,
  template: true,
  billingConfig: true,
  quoteId: true,
  feeAmount: true,
  metadata: true,
  idempotencyKey: true,
  requestFingerprint: true,
  requiredFinality: true,
} satisfies Record<keyof NewTransaction, true>) as (keyof NewTransaction)[];

const transactionColumns = getTableColumns(transactions);
/** Each field of NEW_TRANSACTION_FIELDS with its column's name and SQL type. */
const NEW_TRANSACTION_COLUMNS = NEW_TRANSACTION_FIELDS.map((field) => {
  const column = transactionColumns[field];
  return { field, name: column.name, type: column.getSQLType() };
});

/**
 * The creation insert's column list, the single and the grouped statement's: the new row's fields,
 * then what the statement decides (at the database's clock, and the sender's next `sender_seq`).
 */
const CREATION_INSERT_COLUMNS = [
  ...NEW_TRANSACTION_COLUMNS.map((c) => c.name),
  'hold_deadline',
  'rescind_policy',
  'sender_seq',
  'status_changed_at',
  'created_at',
  'updated_at',
].join(', ');
/** The grouped statement's input record: the new row's fields (as their columns' types), then each item's own. */
const GROUP_INPUT_RECORD = [
  'n int',
  ...NEW_TRANSACTION_COLUMNS.map((c) => `${c.name} ${c.type}`),
  'sender text, hold_seconds float8, rescind_policy jsonb, actor text, event_id text, lock_key text, duplicate_seconds float8',
].join(', ');
/** The grouped insert's values of the new row's fields, from its input record `i`. */
const GROUP_INSERT_VALUES = NEW_TRANSACTION_COLUMNS.map((c) => `i.${c.name}`).join(', ');
/**
 * One item of the grouped statement's input (GROUP_INPUT_RECORD's fields, as JSON): one object
 * literal, compiled once; assigned field by field in a loop, the same object cost several times as
 * much (as a row did in rowMapper), for every creation.
 */
const groupInputItem: (n: number, c: SingleCreation) => Record<string, unknown> = new Function(
  'lockKey',
  `return (n, c) => ({ n, ${NEW_TRANSACTION_COLUMNS.map((column) => `${JSON.stringify(column.name)}: c.transaction[${JSON.stringify(column.field)}]`).join(', ')},
    sender: c.transaction.fromAddress.toLowerCase(), hold_seconds: c.holdSeconds, rescind_policy: c.rescindPolicy, actor: c.actor,
    event_id: c.event.id, lock_key: lockKey(c.transaction.platformId, c.transaction.fromAddress), duplicate_seconds: c.duplicateWindowSeconds });`,
)(senderLockKey);

/** The money in flight at one status (`inFlight`): how many, the oldest's age, and how many are still held past their hold deadline. */
export interface InFlightAtStatus {
  count: number;
  oldestSeconds: number;
  pastHold: number;
}

export function createTransactionsRepository() {
  return {
    /**
     * Transactions not yet at a terminal status, per status (infra/observability's money-in-flight
     * dashboard): the small non-terminal part only, through transactions_in_flight_idx (the literal
     * list, so that the planner matches the partial index's predicate).
     */
    async inFlight(q: Queryable): Promise<Record<string, InFlightAtStatus>> {
      const rows = await q<{ status: string; n: number; oldest: number; past_hold: number }[]>`
        select status, count(*)::int as n,
               coalesce(extract(epoch from now() - min(status_changed_at)), 0)::float8 as oldest,
               (count(*) filter (where hold_deadline < now()))::int as past_hold
        from transactions
        where status in (${q.unsafe(IN_FLIGHT_SQL)})
        group by status`;
      const byStatus: Record<string, InFlightAtStatus> = {};
      for (const status of TRANSACTION_STATUSES) {
        if (!TERMINAL_TRANSACTION_STATUSES.includes(status)) byStatus[status] = { count: 0, oldestSeconds: 0, pastHold: 0 };
      }
      for (const row of rows) byStatus[row.status] = { count: row.n, oldestSeconds: row.oldest, pastHold: row.past_hold };
      return byStatus;
    },

    /**
     * Serializes creations of one sender on one platform until the caller's transaction ends, so
     * the duplicate check, the per-sender limit and the idempotency check see each other's rows.
     */
    async lockSender(tx: Queryable, platformId: string, fromAddress: string): Promise<void> {
      await tx`select pg_advisory_xact_lock(hashtextextended(${senderLockKey(platformId, fromAddress)}, 0))`;
    },

    /**
     * A single transaction's whole creation in one statement, so one round trip and, outside a
     * caller's transaction, its own implicit transaction (ADR 32): the idempotency key's first
     * result (then nothing else is done), the duplicate window and the per-sender window read at
     * the database's clock, and, when none refuses, the row (with the sender's next `sender_seq`),
     * its creation transition and its `transaction.created` outbox row.
     *
     * A statement reads one snapshot, taken before it waits for anything, so it may miss a creation
     * of the sender (or of the key) that commits while it runs. The writes are what catch that: the
     * sender's lock is taken before the insert (batches, which read under it, never meet a half-made
     * single creation), and `sender_seq` and the idempotency key are unique, so a statement whose
     * reads missed a committed creation conflicts on one of them (`on conflict do nothing`, after
     * waiting for the other to commit), writes nothing and answers `conflict`: the caller runs it
     * again, on a snapshot that sees the winner. Refusals and replays need no such care: a row a
     * snapshot sees stays (creations are never undone within the windows).
     */
    async createSingle(q: Queryable, c: SingleCreation): Promise<SingleCreationOutcome> {
      const t = c.transaction;
      const sender = t.fromAddress.toLowerCase();
      const rows = await q<CreationRow[]>`
        with c as materialized (select date_trunc('milliseconds', clock_timestamp()) as now),
        existing as (
          select * from transactions
          where platform_id = ${t.platformId} and idempotency_key = ${t.idempotencyKey} and batch_id is null),
        window_full as (
          select created_at as nth_newest from transactions, c
          where ${c.senderWindow !== null} and platform_id = ${t.platformId} and lower(from_address) = ${sender}
            and created_at > c.now - make_interval(secs => ${c.senderWindow?.seconds ?? 0})
          order by created_at desc offset ${(c.senderWindow?.limit ?? 1) - 1} limit 1),
        duplicate as (
          select id from transactions, c
          where ${c.duplicateWindowSeconds !== null} and platform_id = ${t.platformId} and lower(from_address) = ${sender}
            and lower(to_address) = ${t.toAddress.toLowerCase()} and amount = ${t.amount}::numeric
            and currency = ${t.currency} and blockchain_network = ${t.blockchainNetwork}
            and created_at > c.now - make_interval(secs => ${c.duplicateWindowSeconds ?? 0})
          order by created_at desc limit 1),
        admitted as materialized (
          select c.now, c.now + make_interval(secs => ${c.holdSeconds}) as hold_deadline,
            (select coalesce(max(sender_seq), 0) + 1 from transactions
              where platform_id = ${t.platformId} and lower(from_address) = ${sender}) as sender_seq
          from c
          where not exists (select 1 from existing) and not exists (select 1 from window_full) and not exists (select 1 from duplicate)
            and pg_advisory_xact_lock(hashtextextended(${senderLockKey(t.platformId, t.fromAddress)}, 0)) is not null),
        ins as (
          insert into transactions (${q.unsafe(CREATION_INSERT_COLUMNS)})
          -- In NEW_TRANSACTION_FIELDS' order.
          select ${t.id}, ${t.platformId}, ${t.workspaceId}, ${t.status}, ${t.amount}::numeric, ${t.currency}, ${t.fromAddress},
            ${t.toAddress}, ${t.blockchainNetwork}, ${t.chainId}, ${t.orchestrationType}, ${t.signerType}, ${t.customerId},
            ${t.templateId}, ${json(t.template)}::text::jsonb, ${json(t.billingConfig)}::text::jsonb, ${t.quoteId}, ${t.feeAmount}::numeric,
            ${json(t.metadata)}::text::jsonb, ${t.idempotencyKey}, ${t.requestFingerprint}, ${t.requiredFinality},
            a.hold_deadline,
            jsonb_set(${json(c.rescindPolicy)}::text::jsonb, '{deadline}',
              to_jsonb(to_char(a.hold_deadline at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))),
            a.sender_seq, a.now, a.now, a.now
          from admitted a
          on conflict do nothing
          returning *),
        transition as (
          insert into transaction_transitions (transaction_id, from_status, to_status, action, actor, reason, event_id)
          select id, null, status, 'create', ${c.actor}, null, ${c.event.id} from ins),
        event as (${outboxInsert(q, [c.event], q`exists (select 1 from ins)`)})
        select r.*, c.now, (select nth_newest from window_full) as nth_newest, (select id from duplicate) as duplicate_id
        from c left join (select 'created' as outcome, * from ins union all select 'existing', * from existing) r on true`;
      return creationOutcomeOf(rows[0]!);
    },

    /**
     * Several single creations (of several requests) in one statement, so one round trip and one
     * commit for all of them (group commit, ADR 39). Each item is checked and written as
     * `createSingle` does it, and answers its own outcome (in the order given): all of them read the
     * same snapshot, so two items of one sender (or one idempotency key) compute the same
     * `sender_seq` (or key) and the later one conflicts on it (`on conflict do nothing` skips a row the
     * same statement inserted): `conflict`, to be run again alone, after this statement committed.
     * The sender windows are the service's (the same for every item). If the statement fails, it
     * wrote nothing: the caller runs each item alone, so that each gets its own answer.
     */
    async createMany(
      q: Queryable,
      items: readonly (SingleCreation & { traceContext: TraceCarrier | null })[],
      windows: { senderWindow: { seconds: number; limit: number } | null },
    ): Promise<SingleCreationOutcome[]> {
      const input = JSON.stringify(items.map((c, n) => groupInputItem(n, c)));
      const w = windows.senderWindow;
      const rows = await q<(CreationRow & { n: number })[]>`
        with c as materialized (select date_trunc('milliseconds', clock_timestamp()) as now),
        input as materialized (
          select * from jsonb_to_recordset(${input}::text::jsonb) as i(${q.unsafe(GROUP_INPUT_RECORD)})),
        checks as materialized (
          select i.n,
            (select t.id from transactions t
              where t.platform_id = i.platform_id and t.idempotency_key = i.idempotency_key and t.batch_id is null) as existing_id,
            (select t.created_at from transactions t
              where ${w !== null} and t.platform_id = i.platform_id and lower(t.from_address) = i.sender
                and t.created_at > c.now - make_interval(secs => ${w?.seconds ?? 0})
              order by t.created_at desc offset ${(w?.limit ?? 1) - 1} limit 1) as nth_newest,
            (select t.id from transactions t
              where i.duplicate_seconds is not null and t.platform_id = i.platform_id and lower(t.from_address) = i.sender
                and lower(t.to_address) = lower(i.to_address) and t.amount = i.amount and t.currency = i.currency
                and t.blockchain_network = i.blockchain_network and t.created_at > c.now - make_interval(secs => i.duplicate_seconds)
              order by t.created_at desc limit 1) as duplicate_id
          from input i, c),
        -- The senders' locks in one order (their keys'), so that two groups of crossed senders wait
        -- for each other instead of deadlocking.
        locked as materialized (
          select pg_advisory_xact_lock(hashtextextended(k.lock_key, 0)) from (
            select distinct i.lock_key from input i join checks ch on ch.n = i.n
            where ch.existing_id is null and ch.nth_newest is null and ch.duplicate_id is null
            order by i.lock_key) k),
        admitted as materialized (
          select i.n, c.now, c.now + make_interval(secs => i.hold_seconds) as hold_deadline,
            (select coalesce(max(t.sender_seq), 0) + 1 from transactions t
              where t.platform_id = i.platform_id and lower(t.from_address) = i.sender) as sender_seq
          from input i join checks ch on ch.n = i.n, c
          where ch.existing_id is null and ch.nth_newest is null and ch.duplicate_id is null
            and (select count(*) from locked) >= 0),
        ins as (
          insert into transactions (${q.unsafe(CREATION_INSERT_COLUMNS)})
          select ${q.unsafe(GROUP_INSERT_VALUES)}, a.hold_deadline,
            jsonb_set(i.rescind_policy, '{deadline}',
              to_jsonb(to_char(a.hold_deadline at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))),
            a.sender_seq, a.now, a.now, a.now
          from admitted a join input i on i.n = a.n
          order by a.n
          on conflict do nothing
          returning *),
        transition as (
          insert into transaction_transitions (transaction_id, from_status, to_status, action, actor, reason, event_id)
          select ins.id, null, ins.status, 'create', i.actor, null, i.event_id from ins join input i on i.id = ins.id),
        event as (${outboxInsert(
          q,
          items.map((c) => c.event),
          q`e.id in (select i.event_id from ins join input i on i.id = ins.id)`,
          items.map((c) => c.traceContext),
        )})
        select i.n, r.*, c.now, ch.nth_newest, ch.duplicate_id
        from input i join checks ch on ch.n = i.n cross join c
        left join lateral (
          select 'created' as outcome, ins.* from ins where ins.id = i.id
          union all
          select 'existing', t.* from transactions t where t.id = ch.existing_id) r on true
        order by i.n`;
      return rows.map(creationOutcomeOf);
    },

    /**
     * `findByIdempotencyKey` for several keys (of several requests) in one statement: per lookup, in
     * the order given, the key's first result or null (ADR 39).
     */
    async findByIdempotencyKeys(q: Queryable, lookups: readonly { platformId: string; key: string }[]): Promise<(AnsweredRow | null)[]> {
      const rows = await q.unsafe<(DbRow & { n: string })[]>(
        ANSWER_BY_KEYS,
        [lookups.map((l) => l.platformId), lookups.map((l) => l.key)],
        { prepare: true },
      );
      const found: (AnsweredRow | null)[] = lookups.map(() => null);
      for (const row of rows) found[Number(row.n) - 1] = toAnsweredRow(row);
      return found;
    },

    /** The first result of a single transaction's idempotency key (what its replay answers). */
    async findByIdempotencyKey(q: Queryable, platformId: string, key: string): Promise<AnsweredRow | null> {
      const rows = await q.unsafe<DbRow[]>(ANSWER_BY_KEY, [platformId, key], { prepare: true });
      return rows[0] ? toAnsweredRow(rows[0]) : null;
    },

    /**
     * A transaction (single or batch leg) of the same parameters created in the last `windowSeconds`
     * (by the database's clock when this statement runs).
     */
    async findDuplicate(
      tx: Queryable,
      t: { platformId: string; fromAddress: string; toAddress: string; amount: string; currency: string; blockchainNetwork: string },
      windowSeconds: number,
    ): Promise<string | null> {
      const rows = await tx<{ id: string }[]>`
        select id from transactions
        where platform_id = ${t.platformId} and lower(from_address) = ${t.fromAddress.toLowerCase()}
          and lower(to_address) = ${t.toAddress.toLowerCase()} and amount = ${t.amount}::numeric
          and currency = ${t.currency} and blockchain_network = ${t.blockchainNetwork}
          and created_at > clock_timestamp() - make_interval(secs => ${windowSeconds})
        order by created_at desc limit 1`;
      return rows[0]?.id ?? null;
    },

    /**
     * The database's clock now (not the transaction's start: the sender's lock may have been waited
     * for), and when the sender's `n`th newest creation of the last `windowSeconds` was made (null
     * while fewer than n: once it leaves the window, the window has room again).
     */
    async senderWindow(tx: Queryable, platformId: string, fromAddress: string, windowSeconds: number, n: number) {
      const rows = await tx<{ now: string | Date; nth_newest: string | Date | null }[]>`
        with c as materialized (select clock_timestamp() as now)
        select c.now, (
          select created_at from transactions
          where platform_id = ${platformId} and lower(from_address) = ${fromAddress.toLowerCase()}
            and created_at > c.now - make_interval(secs => ${windowSeconds})
          order by created_at desc offset ${n - 1} limit 1) as nth_newest
        from c`;
      const row = rows[0]!;
      return { now: isoOf(row.now), nthNewest: row.nth_newest === null ? null : isoOf(row.nth_newest) };
    },

    async list(q: Queryable, platformId: string, f: TransactionFilters): Promise<{ rows: TransactionRow[]; total: number }> {
      const lower = (s: string) => s.toLowerCase();
      const where = q`
        platform_id = ${platformId}
        ${f.status ? q`and status = ${f.status}` : q``}
        ${f.fromAddress ? q`and lower(from_address) = ${lower(f.fromAddress)}` : q``}
        ${f.toAddress ? q`and lower(to_address) = ${lower(f.toAddress)}` : q``}
        ${f.walletAddress ? q`and (lower(from_address) = ${lower(f.walletAddress)} or lower(to_address) = ${lower(f.walletAddress)})` : q``}
        ${f.createdFrom ? q`and created_at >= ${f.createdFrom}::timestamptz` : q``}
        ${f.createdTo ? q`and created_at <= ${f.createdTo}::timestamptz` : q``}
        ${f.createdBefore ? q`and created_at < ${f.createdBefore}::timestamptz` : q``}
        ${f.customerId ? q`and customer_id = ${f.customerId}` : q``}`;
      const [rows, counted] = await Promise.all([
        q<DbRow[]>`select * from transactions where ${where} order by created_at desc, id desc
          limit ${f.limit} offset ${(f.page - 1) * f.limit}`,
        q<{ n: string }[]>`select count(*)::text as n from transactions where ${where}`,
      ]);
      return { rows: rows.map(toTransactionRow), total: Number(counted[0]?.n ?? 0) };
    },

    /** Per status: count and exact sum (numeric summed by PostgreSQL, answered as text). */
    async stats(q: Queryable, platformId: string) {
      return q<{ status: TransactionStatus; count: number; total: string }[]>`
        select status, count(*)::int as count, coalesce(sum(amount), 0)::text as total
        from transactions where platform_id = ${platformId} group by status`;
    },

    /** Per status of `statuses`: count, exact sum, oldest age and counts aged over 24 h / 72 h, by status_changed_at. */
    async atRisk(q: Queryable, platformId: string, statuses: readonly TransactionStatus[]) {
      return q<{ status: TransactionStatus; count: number; total: string; oldest: number | null; over24h: number; over72h: number }[]>`
        select status, count(*)::int as count, coalesce(sum(amount), 0)::text as total,
          floor(extract(epoch from (now() - min(status_changed_at))))::int as oldest,
          (count(*) filter (where status_changed_at < now() - interval '24 hours'))::int as over24h,
          (count(*) filter (where status_changed_at < now() - interval '72 hours'))::int as over72h
        from transactions where platform_id = ${platformId} and status in ${q([...statuses])}
        group by status`;
    },

    /** The row, locked until the caller's transaction ends (`for update`): moves cannot interleave. */
    async lock(tx: Queryable, id: string, platformId?: string): Promise<TransactionRow | null> {
      const rows = await tx<DbRow[]>`
        select * from transactions where id = ${id} ${platformId ? tx`and platform_id = ${platformId}` : tx``} for update`;
      return rows[0] ? toTransactionRow(rows[0]) : null;
    },

    /** Test clock: the hold of a locked transaction ends now (an earlier deadline is kept). */
    async endHold(tx: Queryable, id: string): Promise<TransactionRow> {
      const rows = await tx<DbRow[]>`
        update transactions set hold_deadline = least(coalesce(hold_deadline, now()), now()), updated_at = now()
        where id = ${id} returning *`;
      return toTransactionRow(rows[0] as DbRow);
    },

    /** A platform's transaction as GET answers it. */
    async findAnswered(q: Queryable, id: string, platformId: string): Promise<AnsweredRow | null> {
      const rows = await q.unsafe<DbRow[]>(ANSWER_BY_ID, [id, platformId], { prepare: true });
      return rows[0] ? toAnsweredRow(rows[0]) : null;
    },

    async find(q: Queryable, id: string, platformId?: string): Promise<TransactionRow | null> {
      const rows = await q<DbRow[]>`
        select * from transactions where id = ${id} ${platformId ? q`and platform_id = ${platformId}` : q``}`;
      return rows[0] ? toTransactionRow(rows[0]) : null;
    },

    /** Whether `actor` made the move `action` on the transaction (its transitions). */
    async madeMove(q: Queryable, id: string, action: string, actor: string): Promise<boolean> {
      const rows = await q`
        select 1 from transaction_transitions where transaction_id = ${id} and action = ${action} and actor = ${actor} limit 1`;
      return rows.length > 0;
    },

    /** Writes a move decided by the state machine; the row must be locked by the caller's transaction. */
    async applyMove(
      tx: Queryable,
      input: {
        id: string;
        from: TransactionStatus;
        to: TransactionStatus;
        action: string;
        actor: string;
        reason: string | null;
        eventId: string | null;
        patch: MovePatch;
      },
    ): Promise<TransactionRow> {
      const p = input.patch;
      const rows = await tx<DbRow[]>`
        update transactions set
          status = ${input.to},
          tx_hash = coalesce(${p.txHash ?? null}, tx_hash),
          escrow_address = coalesce(${p.escrowAddress ?? null}, escrow_address),
          chain_id = coalesce(${p.chainId ?? null}::int, chain_id),
          failure_reason = coalesce(${p.failureReason ?? null}, failure_reason),
          hold_deadline = coalesce(${p.holdDeadline ?? null}::timestamptz, hold_deadline),
          finality = case when ${'finality' in p} then ${p.finality ?? null} else finality end,
          confirmations = case when ${'confirmations' in p} then ${p.confirmations ?? null}::int else confirmations end,
          block_number = case when ${'blockNumber' in p} then ${p.blockNumber ?? null}::bigint else block_number end,
          block_hash = case when ${'blockHash' in p} then ${p.blockHash ?? null} else block_hash end,
          version = version + 1,
          status_changed_at = now(),
          updated_at = now()
        where id = ${input.id} and status = ${input.from}
        returning *`;
      const row = rows[0];
      if (!row) throw new Error(`transaction ${input.id} was not in ${input.from}: the caller must hold its row lock`);
      await tx`
        insert into transaction_transitions (transaction_id, from_status, to_status, action, actor, reason, event_id)
        values (${input.id}, ${input.from}, ${input.to}, ${input.action}, ${input.actor}, ${input.reason}, ${input.eventId})`;
      return toTransactionRow(row);
    },

    /**
     * Records where the transaction's lock stands on chain without a move (a level below the one it
     * counts at, a higher one after it counted, or null after a reorg withdrew it). The row must be
     * locked by the caller's transaction.
     */
    async recordFinality(
      tx: Queryable,
      id: string,
      f: {
        finality: FinalityLevel | null;
        confirmations: number | null;
        blockNumber: number | null;
        blockHash: string | null;
        txHash?: string;
      },
    ): Promise<TransactionRow> {
      const rows = await tx<DbRow[]>`
        update transactions set finality = ${f.finality}, confirmations = ${f.confirmations}::int,
          block_number = ${f.blockNumber}::bigint, block_hash = ${f.blockHash},
          tx_hash = coalesce(${f.txHash ?? null}, tx_hash), version = version + 1, updated_at = now()
        where id = ${id}
        returning *`;
      return toTransactionRow(rows[0]!);
    },

    /** Re-derives a batch's status from its legs (in the transaction that moved a leg). */
    async legStatuses(tx: Queryable, batchId: string): Promise<TransactionStatus[]> {
      const rows = await tx<
        { status: TransactionStatus }[]
      >`select status from transactions where batch_id = ${batchId} order by leg_index`;
      return rows.map((r) => r.status);
    },

    async setBatchStatus(tx: Queryable, batchId: string, status: BatchStatus): Promise<void> {
      await tx`update batches set status = ${status}, updated_at = now() where id = ${batchId} and status <> ${status}`;
    },
  };
}
export type TransactionsRepository = ReturnType<typeof createTransactionsRepository>;

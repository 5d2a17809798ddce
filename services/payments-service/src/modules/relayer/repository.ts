import { uuidv7 } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { rowMapper } from '@holdfast/db';
import { type RelayKind, relayedLocks } from './tables.js';

/** A relay as stored: the table's row type (wei amounts as bigint, hashes as hex). */
export type RelayRow = typeof relayedLocks.$inferSelect;
const toRelay = rowMapper(relayedLocks);

/** NOTIFYed with a relay's id when its outcome is recorded (mined, reverted, failed): x402's settle waits on it. */
export const RELAY_SETTLED_CHANNEL = 'payments_relay_settled';

export interface NewRelay {
  platformId: string;
  transactionId: string;
  network: string;
  kind: RelayKind;
  request: Record<string, unknown>;
  derivedNonce: string;
  relayer: string;
  accountNonce: number;
  gasLimit: bigint;
  rawTx: string;
  txHash: string;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** All SQL of the relayer (postgres.js; callers pass their transaction). */
export function createRelayerRepository() {
  return {
    /** Every relay of a transaction, newest first (at most one is live: submitted or mined). */
    async ofTransaction(q: Queryable, transactionId: string): Promise<RelayRow[]> {
      const rows = await q`select * from relayed_locks where transaction_id = ${transactionId} order by created_at desc, id desc`;
      return rows.map(toRelay);
    },

    async get(q: Queryable, id: string): Promise<RelayRow | null> {
      const rows = await q`select * from relayed_locks where id = ${id}`;
      return rows[0] ? toRelay(rows[0]) : null;
    },

    /** Whether a live or mined relay on the network carries this authorization (`authorizer:nonce`; one signature, one lock). */
    async nonceTaken(q: Queryable, network: string, derivedNonce: string): Promise<boolean> {
      const rows = await q`
        select 1 from relayed_locks where network = ${network} and derived_nonce = ${derivedNonce} and status in ('submitted', 'mined') limit 1`;
      return rows.length > 0;
    },

    /** Serializes the budget checks of one platform until the caller's transaction ends. */
    async lockPlatformBudget(tx: Queryable, platformId: string): Promise<void> {
      await tx`select pg_advisory_xact_lock(hashtextextended(${`relayer-budget:${platformId}`}, 0))`;
    },

    /**
     * Wei the relayer spent or may still spend for a platform in the last 24 hours: the fee paid of
     * what was mined, the most a pending relay can cost (gas limit x max fee) of what was not.
     */
    async spentLastDay(q: Queryable, platformId: string): Promise<bigint> {
      const rows = await q<{ spent: string | null }[]>`
        select sum(case when fee_paid_wei is not null then fee_paid_wei
                        when status = 'submitted' then gas_limit * max_fee_per_gas
                        else 0 end)::text as spent
        from relayed_locks where platform_id = ${platformId} and created_at > now() - interval '1 day'`;
      return BigInt(rows[0]?.spent ?? '0');
    },

    /**
     * The relayer's next account nonce on a network, taken under the row's lock: at least the chain's
     * pending count (`pending()`, asked only once the row is locked), so a key used elsewhere or a
     * fresh table starts where the chain is.
     */
    async allocateNonce(tx: Queryable, network: string, address: string, pending: () => Promise<number>): Promise<number> {
      await tx`insert into relayer_accounts (network, address, next_nonce) values (${network}, ${address}, 0) on conflict do nothing`;
      const [row] = await tx<{ next_nonce: string | number }[]>`
        select next_nonce from relayer_accounts where network = ${network} and address = ${address} for update`;
      const nonce = Math.max(Number(row?.next_nonce ?? 0), await pending());
      await tx`update relayer_accounts set next_nonce = ${nonce + 1}, updated_at = now() where network = ${network} and address = ${address}`;
      return nonce;
    },

    async insert(tx: Queryable, r: NewRelay): Promise<RelayRow> {
      const [row] = await tx`
        insert into relayed_locks (id, platform_id, transaction_id, network, kind, request, derived_nonce, relayer, account_nonce,
          gas_limit, raw_tx, tx_hash, max_fee_per_gas, max_priority_fee_per_gas)
        values (${uuidv7()}, ${r.platformId}, ${r.transactionId}, ${r.network}, ${r.kind}, ${JSON.stringify(r.request)}::text::jsonb, ${r.derivedNonce},
          ${r.relayer}, ${r.accountNonce}, ${r.gasLimit.toString()}, ${r.rawTx}, ${r.txHash}, ${r.maxFeePerGas.toString()},
          ${r.maxPriorityFeePerGas.toString()})
        returning *`;
      return toRelay(row!);
    },

    /** Claims relays due for a look (no receipt yet, or mined and not yet applied), leased for `leaseSeconds`. */
    async claimDue(tx: Queryable, limit: number, leaseSeconds: number): Promise<RelayRow[]> {
      const rows = await tx`
        update relayed_locks set next_check_at = now() + make_interval(secs => ${leaseSeconds})
        where id in (
          select id from relayed_locks
          where (status = 'submitted' or (status = 'mined' and applied_at is null)) and next_check_at <= now()
          order by next_check_at limit ${limit} for update skip locked)
        returning *`;
      return rows.map(toRelay);
    },

    async reschedule(q: Queryable, id: string, inMs: number, error: string | null = null): Promise<void> {
      await q`
        update relayed_locks set next_check_at = now() + make_interval(secs => ${inMs / 1000}), error = coalesce(${error}, error), updated_at = now()
        where id = ${id}`;
    },

    /** The receipt of one of its attempts: mined or reverted, what it cost. */
    async recordReceipt(
      q: Queryable,
      id: string,
      r: { status: 'mined' | 'reverted'; hash: string; gasUsed: bigint; feePaidWei: bigint },
    ): Promise<void> {
      await q`
        with recorded as (
          update relayed_locks set status = ${r.status}, mined_hash = ${r.hash}, gas_used = ${r.gasUsed.toString()},
            fee_paid_wei = ${r.feePaidWei.toString()}, next_check_at = now(), updated_at = now(),
            applied_at = ${r.status === 'reverted' ? new Date().toISOString() : null}
          where id = ${id} and status = 'submitted'
          returning id)
        select pg_notify(${RELAY_SETTLED_CHANNEL}, id::text) from recorded`;
    },

    /** A replacement of the current attempt (same nonce, higher fees), stored before it is broadcast. */
    async replace(
      q: Queryable,
      id: string,
      previousHash: string,
      next: { rawTx: string; txHash: string; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
    ): Promise<boolean> {
      const rows = await q`
        update relayed_locks set raw_tx = ${next.rawTx}, tx_hash = ${next.txHash}, max_fee_per_gas = ${next.maxFeePerGas.toString()},
          max_priority_fee_per_gas = ${next.maxPriorityFeePerGas.toString()},
          earlier_hashes = earlier_hashes || to_jsonb(${previousHash}::text), attempts = attempts + 1, sent_at = now(), updated_at = now()
        where id = ${id} and tx_hash = ${previousHash} and status = 'submitted'
        returning id`;
      return rows.length === 1;
    },

    async markApplied(q: Queryable, id: string, error: string | null): Promise<void> {
      await q`update relayed_locks set applied_at = now(), error = ${error}, updated_at = now() where id = ${id}`;
    },

    async markFailed(q: Queryable, id: string, error: string): Promise<void> {
      await q`
        with failed as (
          update relayed_locks set status = 'failed', error = ${error}, updated_at = now() where id = ${id} and status = 'submitted'
          returning id)
        select pg_notify(${RELAY_SETTLED_CHANNEL}, id::text) from failed`;
    },

    /** Relays by status (metrics). */
    async countByStatus(q: Queryable): Promise<Record<string, number>> {
      const rows = await q<{ status: string; n: number }[]>`select status, count(*)::int as n from relayed_locks group by status`;
      return Object.fromEntries(rows.map((r) => [r.status, r.n]));
    },
  };
}
export type RelayerRepository = ReturnType<typeof createRelayerRepository>;

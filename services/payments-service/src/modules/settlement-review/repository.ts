import {
  type DisputedClaim,
  type DisputedClaimStatus,
  type OperatorAction,
  type SettlementItem,
  type SettlementItemStatus,
  type SettlementKind,
  type TransferClaim,
  uuidv7,
} from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { isoOf } from '@holdfast/db';

/** An item as stored, before its actions are attached. */
export type ItemRow = Omit<SettlementItem, 'actions'>;

interface DbItem {
  kind: 'settlement' | 'chain_message';
  id: string;
  transaction_id: string | null;
  status: string;
  detail: string | null;
  settlement_kind: SettlementKind | null;
  event_kind: string | null;
  attempts: number | null;
  created_at: string | Date;
  resolved_at: string | Date | null;
}

const toItem = (r: DbItem): ItemRow => ({
  kind: r.kind,
  id: r.id,
  transactionId: r.transaction_id,
  status: r.status,
  detail: r.detail,
  settlementKind: r.settlement_kind,
  eventKind: r.event_kind,
  attempts: r.attempts,
  createdAt: isoOf(r.created_at),
  resolvedAt: r.resolved_at === null ? null : isoOf(r.resolved_at),
});

/** A disputed claim as stored, before its claims are attached. */
export type DisputedClaimRow = Omit<DisputedClaim, 'claims'>;

interface DbDisputedClaim {
  id: string;
  network: string;
  chain_id: number;
  tx_hash: string;
  log_index: number;
  status: DisputedClaimStatus;
  rightful_transaction_id: string | null;
  resolution: string | null;
  resolved_by: string | null;
  resolved_at: string | Date | null;
  created_at: string | Date;
}

const toDisputedClaim = (r: DbDisputedClaim): DisputedClaimRow => ({
  id: r.id,
  network: r.network,
  chainId: r.chain_id,
  txHash: r.tx_hash,
  logIndex: r.log_index,
  status: r.status,
  rightfulTransactionId: r.rightful_transaction_id,
  resolution: r.resolution,
  resolvedBy: r.resolved_by,
  resolvedAt: r.resolved_at === null ? null : isoOf(r.resolved_at),
  createdAt: isoOf(r.created_at),
});

/** The key of a claimed log in `claimsOf`'s answer. */
export const claimKey = (c: Pick<DisputedClaimRow, 'chainId' | 'txHash' | 'logIndex'>) => `${c.chainId}|${c.txHash}|${c.logIndex}`;

/** Settlement instructions and CHAIN messages that need a person, as one list (docs/settlement.md, "Operator runbook"). */
export function createSettlementReviewRepository() {
  return {
    async list(
      q: Queryable,
      filter: { status?: SettlementItemStatus; includeResolved: boolean; limit: number; offset: number },
    ): Promise<{ rows: ItemRow[]; total: number }> {
      const status = filter.status ?? null;
      const rows = await q<(DbItem & { total: number })[]>`
        with items as (
          select 'settlement' as kind, id::text as id, transaction_id, status, last_error as detail, kind as settlement_kind,
                 null::text as event_kind, attempts, created_at, resolved_at
          from settlements where status in ('failed', 'superseded') or resolved_at is not null
          union all
          select 'chain_message', message_id, transaction_id, outcome, detail, null, kind, null, applied_at, resolved_at
          from applied_chain_messages where outcome in ('conflict', 'rejected', 'correction_unapplied')
        )
        select *, count(*) over ()::int as total from items
        where (${filter.includeResolved} or resolved_at is null) and (${status}::text is null or status = ${status})
        order by created_at desc, id
        limit ${filter.limit} offset ${filter.offset}`;
      return { rows: rows.map(toItem), total: rows[0]?.total ?? 0 };
    },

    async lockSettlement(q: Queryable, id: string): Promise<ItemRow | null> {
      const rows = await q<DbItem[]>`
        select 'settlement' as kind, id::text as id, transaction_id, status, last_error as detail, kind as settlement_kind,
               null::text as event_kind, attempts, created_at, resolved_at
        from settlements where id = ${id} for update`;
      return rows[0] ? toItem(rows[0]) : null;
    },

    async lockChainMessage(q: Queryable, messageId: string): Promise<ItemRow | null> {
      const rows = await q<DbItem[]>`
        select 'chain_message' as kind, message_id as id, transaction_id, outcome as status, detail, null as settlement_kind,
               kind as event_kind, null::int as attempts, applied_at as created_at, resolved_at
        from applied_chain_messages where message_id = ${messageId} for update`;
      return rows[0] ? toItem(rows[0]) : null;
    },

    /** A failed instruction runs again now, with a fresh attempt budget. */
    async retrySettlement(q: Queryable, id: string): Promise<void> {
      await q`update settlements set status = 'pending', attempts = 0, next_attempt_at = now(), lease_until = null,
        resolved_at = null, updated_at = now() where id = ${id}`;
    },

    async resolve(q: Queryable, kind: 'settlement' | 'chain_message', id: string): Promise<void> {
      if (kind === 'settlement') await q`update settlements set resolved_at = now(), updated_at = now() where id = ${id}`;
      else await q`update applied_chain_messages set resolved_at = now() where message_id = ${id}`;
    },

    async recordAction(
      q: Queryable,
      a: Omit<OperatorAction, 'createdAt'> & { itemKind: 'settlement' | 'chain_message' | 'disputed_claim'; itemId: string },
    ): Promise<void> {
      await q`
        insert into settlement_operator_actions (id, item_kind, item_id, action, actor, actor_platform_id, reason, from_status)
        values (${uuidv7()}, ${a.itemKind}, ${a.itemId}, ${a.action}, ${a.actor}, ${a.actorPlatformId}, ${a.reason}, ${a.fromStatus})`;
    },

    async actionsOf(q: Queryable, items: readonly Pick<ItemRow, 'kind' | 'id'>[]): Promise<Map<string, OperatorAction[]>> {
      const out = new Map<string, OperatorAction[]>();
      if (items.length === 0) return out;
      // Kinds and ids as two arrays, pairwise, so that each item is probed through the index on
      // (item_kind, item_id); a filter on their concatenation read every action ever taken.
      const kinds = items.map((i) => i.kind);
      const ids = items.map((i) => i.id);
      const rows = await q<
        {
          item_kind: string;
          item_id: string;
          action: 'retry' | 'resolve';
          actor: string;
          actor_platform_id: string;
          reason: string;
          from_status: string;
          created_at: string | Date;
        }[]
      >`
        select a.* from unnest(${kinds}::text[], ${ids}::text[]) as i(kind, id)
        join settlement_operator_actions a on a.item_kind = i.kind and a.item_id = i.id
        order by a.created_at, a.id`;
      for (const r of rows) {
        const key = `${r.item_kind}|${r.item_id}`;
        const list = out.get(key) ?? [];
        list.push({
          action: r.action,
          actor: r.actor,
          actorPlatformId: r.actor_platform_id,
          reason: r.reason,
          fromStatus: r.from_status,
          createdAt: isoOf(r.created_at),
        });
        out.set(key, list);
      }
      return out;
    },

    // ---- disputed claims (a plain transfer claimed by several platforms' raw transactions)

    async listDisputedClaims(
      q: Queryable,
      filter: { status: DisputedClaimStatus; limit: number; offset: number },
    ): Promise<{ rows: DisputedClaimRow[]; total: number }> {
      const rows = await q<(DbDisputedClaim & { total: number })[]>`
        select *, count(*) over ()::int as total from settlement_disputed_claims
        where status = ${filter.status}
        order by created_at desc, id
        limit ${filter.limit} offset ${filter.offset}`;
      return { rows: rows.map(toDisputedClaim), total: rows[0]?.total ?? 0 };
    },

    async lockDisputedClaim(q: Queryable, id: string): Promise<DisputedClaimRow | null> {
      const rows = await q<DbDisputedClaim[]>`select * from settlement_disputed_claims where id = ${id} for update`;
      return rows[0] ? toDisputedClaim(rows[0]) : null;
    },

    /** The claims of each log, oldest first, keyed by `chainId|txHash|logIndex` (each log probed through the claims' key). */
    async claimsOf(
      q: Queryable,
      logs: readonly Pick<DisputedClaimRow, 'chainId' | 'txHash' | 'logIndex'>[],
    ): Promise<Map<string, TransferClaim[]>> {
      const out = new Map<string, TransferClaim[]>();
      if (logs.length === 0) return out;
      const rows = await q<
        {
          chain_id: number;
          tx_hash: string;
          log_index: number;
          transaction_id: string;
          platform_id: string;
          status: string;
          created_at: string | Date;
        }[]
      >`
        select c.chain_id, c.tx_hash, c.log_index, c.transaction_id, c.platform_id, t.status, c.created_at
        from unnest(${logs.map((l) => l.chainId)}::int[], ${logs.map((l) => l.txHash)}::text[], ${logs.map((l) => l.logIndex)}::int[])
          as l(chain_id, tx_hash, log_index)
        join claimed_transfers c on c.chain_id = l.chain_id and c.tx_hash = l.tx_hash and c.log_index = l.log_index
        join transactions t on t.id = c.transaction_id
        order by c.created_at, c.transaction_id`;
      for (const r of rows) {
        const key = claimKey({ chainId: r.chain_id, txHash: r.tx_hash, logIndex: r.log_index });
        const list = out.get(key) ?? [];
        list.push({
          transactionId: r.transaction_id,
          platformId: r.platform_id,
          transactionStatus: r.status,
          claimedAt: isoOf(r.created_at),
        });
        out.set(key, list);
      }
      return out;
    },

    async resolveDisputedClaim(
      q: Queryable,
      id: string,
      r: { rightfulTransactionId: string; resolution: string; resolvedBy: string },
    ): Promise<void> {
      await q`update settlement_disputed_claims set status = 'resolved', rightful_transaction_id = ${r.rightfulTransactionId},
        resolution = ${r.resolution}, resolved_by = ${r.resolvedBy}, resolved_at = now(), updated_at = now() where id = ${id}`;
    },
  };
}
export type SettlementReviewRepository = ReturnType<typeof createSettlementReviewRepository>;

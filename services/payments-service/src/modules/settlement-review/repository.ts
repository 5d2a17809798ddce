import { type OperatorAction, type SettlementItem, type SettlementItemStatus, type SettlementKind, uuidv7 } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { isoOf } from '../auth/repository.js';

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
      a: Omit<OperatorAction, 'createdAt'> & { itemKind: 'settlement' | 'chain_message'; itemId: string },
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
  };
}
export type SettlementReviewRepository = ReturnType<typeof createSettlementReviewRepository>;

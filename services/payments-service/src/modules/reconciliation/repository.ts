import { type FinalityLevel, type MismatchKind, type MismatchQuery, type ReconciliationMismatch, uuidv7 } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { isoOf } from '@holdfast/db';

/** A transaction the reconciler compares with its escrow. */
export interface Candidate {
  id: string;
  status: string;
  network: string;
  /** Null for a lock announced below the level the transaction counts at (not escrowed yet). */
  escrowAddress: string | null;
  batchId: string | null;
  /** Where the books say the lock is (docs/chain.md, levels): null when no level was recorded. */
  finality: FinalityLevel | null;
  blockNumber: number | null;
  blockHash: string | null;
  /** A release or refund instruction of the settlement worker is still owed (pending or sending). */
  instructionOwed: boolean;
}

interface DbMismatch {
  id: string;
  kind: MismatchKind;
  transaction_id: string;
  batch_id: string | null;
  network: string;
  escrow_address: string;
  database_status: string;
  chain_status: ReconciliationMismatch['chainStatus'];
  announced_finality: FinalityLevel | null;
  announced_block_number: string | number | null;
  announced_block_hash: string | null;
  first_seen_at: string | Date;
  last_seen_at: string | Date;
  resolved_at: string | Date | null;
  resolution: 'repaired' | 'cleared' | null;
  repaired_by: string | null;
}

const toMismatch = (r: DbMismatch): ReconciliationMismatch => ({
  id: r.id,
  kind: r.kind,
  transactionId: r.transaction_id,
  batchId: r.batch_id,
  network: r.network,
  escrowAddress: r.escrow_address,
  databaseStatus: r.database_status,
  chainStatus: r.chain_status,
  announcedFinality: r.announced_finality,
  announcedBlockNumber: r.announced_block_number === null ? null : Number(r.announced_block_number),
  announcedBlockHash: r.announced_block_hash,
  firstSeenAt: isoOf(r.first_seen_at),
  lastSeenAt: isoOf(r.last_seen_at),
  resolvedAt: r.resolved_at === null ? null : isoOf(r.resolved_at),
  resolution: r.resolution,
  repairedBy: r.repaired_by,
});

export function createReconciliationRepository() {
  return {
    /**
     * One page (by id) of what is compared: every escrowed transaction and batch leg not yet
     * settled, and the settled ones changed within the look-back.
     */
    async candidates(q: Queryable, afterId: string | null, limit: number, lookbackSeconds: number): Promise<Candidate[]> {
      const rows = await q<
        {
          id: string;
          status: string;
          blockchain_network: string;
          escrow_address: string | null;
          batch_id: string | null;
          finality: FinalityLevel | null;
          block_number: string | null;
          block_hash: string | null;
          owed: boolean;
        }[]
      >`
        select t.id, t.status, t.blockchain_network, t.escrow_address, t.batch_id, t.finality, t.block_number, t.block_hash,
          exists (select 1 from settlements s where s.transaction_id = t.id and s.status in ('pending', 'sending')) as owed
        from transactions t
        where t.orchestration_type = 'platform'
          and ((t.escrow_address is not null
                and (t.status in ('escrowed', 'in_review', 'disputed')
                     or (t.status in ('completed', 'refunded', 'rescinded')
                         and t.updated_at > now() - ${lookbackSeconds} * interval '1 second')))
               -- A lock announced below the level its transaction counts at: its block is checked too.
               or (t.status in ('pending', 'pending_user_action') and t.finality is not null))
          and (${afterId}::uuid is null or t.id > ${afterId}::uuid)
        order by t.id limit ${limit}`;
      return rows.map((r) => ({
        id: r.id,
        status: r.status,
        network: r.blockchain_network,
        escrowAddress: r.escrow_address,
        batchId: r.batch_id,
        finality: r.finality,
        blockNumber: r.block_number === null ? null : Number(r.block_number),
        blockHash: r.block_hash,
        instructionOwed: r.owed,
      }));
    },

    /** Records (or refreshes) the open mismatch of a transaction and kind; answers it and whether it is new. */
    async upsertOpen(
      q: Queryable,
      m: Pick<
        ReconciliationMismatch,
        'kind' | 'transactionId' | 'batchId' | 'network' | 'escrowAddress' | 'databaseStatus' | 'chainStatus'
      > &
        Partial<Pick<ReconciliationMismatch, 'announcedFinality' | 'announcedBlockNumber' | 'announcedBlockHash'>>,
    ): Promise<{ mismatch: ReconciliationMismatch; fresh: boolean }> {
      const rows = await q<(DbMismatch & { fresh: boolean })[]>`
        insert into reconciliation_mismatches (id, kind, transaction_id, batch_id, network, escrow_address, database_status, chain_status,
          announced_finality, announced_block_number, announced_block_hash)
        values (${uuidv7()}, ${m.kind}, ${m.transactionId}, ${m.batchId}, ${m.network}, ${m.escrowAddress}, ${m.databaseStatus}, ${m.chainStatus},
          ${m.announcedFinality ?? null}, ${m.announcedBlockNumber ?? null}::bigint, ${m.announcedBlockHash ?? null})
        on conflict (transaction_id, kind) where resolved_at is null do update set
          last_seen_at = now(), database_status = excluded.database_status, chain_status = excluded.chain_status
        returning *, (xmax = 0) as fresh`;
      const row = rows[0] as DbMismatch & { fresh: boolean };
      return { mismatch: toMismatch(row), fresh: row.fresh };
    },

    async markRepaired(q: Queryable, id: string, action: string): Promise<void> {
      await q`update reconciliation_mismatches set resolved_at = now(), resolution = 'repaired', repaired_by = ${action} where id = ${id}`;
    },

    /** Open mismatches of a transaction other than `keep`: the difference went away. */
    async clear(q: Queryable, transactionId: string, keep: MismatchKind | null): Promise<number> {
      const rows = await q`
        update reconciliation_mismatches set resolved_at = now(), resolution = 'cleared'
        where transaction_id = ${transactionId} and resolved_at is null and (${keep}::text is null or kind <> ${keep})
        returning id`;
      return rows.length;
    },

    async list(q: Queryable, query: MismatchQuery): Promise<{ rows: ReconciliationMismatch[]; total: number }> {
      const open = query.open ?? true;
      const rows = await q<(DbMismatch & { total: number })[]>`
        select *, count(*) over ()::int as total from reconciliation_mismatches
        where (${!open} or resolved_at is null) and (${query.kind ?? null}::text is null or kind = ${query.kind ?? null})
          and (${query.transactionId ?? null}::uuid is null or transaction_id = ${query.transactionId ?? null}::uuid)
        order by first_seen_at desc, id
        limit ${query.limit} offset ${(query.page - 1) * query.limit}`;
      return { rows: rows.map(toMismatch), total: rows[0]?.total ?? 0 };
    },

    async countOpen(q: Queryable): Promise<Record<string, number>> {
      const rows = await q<{ kind: string; n: number }[]>`
        select kind, count(*)::int as n from reconciliation_mismatches where resolved_at is null group by kind`;
      return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
    },

    /** One reconciler at a time across instances: a transaction-scoped advisory lock held for the pass. */
    async tryLease(q: Queryable): Promise<boolean> {
      const rows = await q<{ ok: boolean }[]>`select pg_try_advisory_xact_lock(hashtextextended('payments-reconciler', 0)) as ok`;
      return rows[0]?.ok === true;
    },
  };
}
export type ReconciliationRepository = ReturnType<typeof createReconciliationRepository>;

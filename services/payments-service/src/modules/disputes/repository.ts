import type { DisputeOutcome, DisputeStatus, DisputeTier, Evidence } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { rowMapper } from '@holdfast/db';
import { disputeEvidence, disputes } from './tables.js';

/** A dispute row as the service uses it (the API record without `evidence`, plus routing and audit columns): the table's row type. */
export type DisputeRow = typeof disputes.$inferSelect;
const toDisputeRow = rowMapper(disputes);

/** Evidence as stored is its API record. */
const toEvidence: (row: Record<string, unknown>) => Evidence = rowMapper(disputeEvidence);

/** What `resolutionFor` reads of a dispute. */
const toResolution = rowMapper(disputes, { only: ['id', 'outcome', 'refundPercentage', 'resolvedAt'] });

/** A dispute to insert: what it is opened with; the rest comes as it moves. */
export type NewDispute = Pick<
  DisputeRow,
  'id' | 'platformId' | 'workspaceId' | 'transactionId' | 'initiatedBy' | 'currentTier' | 'status' | 'reason' | 'metadata'
>;

/** Evidence to insert: all of it but when it was written. */
export type NewEvidence = Omit<typeof disputeEvidence.$inferSelect, 'createdAt'>;

/** What the on-chain settlement reads of a resolved dispute. */
export interface DisputeResolution {
  disputeId: string;
  outcome: DisputeOutcome;
  /** 0-100, to the basis point. */
  refundPercentage: number;
  /** The same share in basis points (0-10000): the escrow's `refund(id, bps)` argument. */
  refundBps: number;
  resolvedAt: string;
}

export function createDisputesRepository() {
  return {
    /** The platform's dispute, locked until the caller's transaction ends (`for update`). */
    async lock(tx: Queryable, id: string, platformId: string): Promise<DisputeRow | null> {
      const rows = await tx`select * from disputes where id = ${id} and platform_id = ${platformId} for update`;
      return rows[0] ? toDisputeRow(rows[0]) : null;
    },

    async find(q: Queryable, id: string, platformId: string): Promise<DisputeRow | null> {
      const rows = await q`select * from disputes where id = ${id} and platform_id = ${platformId}`;
      return rows[0] ? toDisputeRow(rows[0]) : null;
    },

    async existsForTransaction(q: Queryable, transactionId: string): Promise<boolean> {
      const rows = await q`select 1 from disputes where transaction_id = ${transactionId}`;
      return rows.length > 0;
    },

    async list(
      q: Queryable,
      platformId: string,
      filter: { status?: DisputeStatus; transactionId?: string; limit: number },
    ): Promise<DisputeRow[]> {
      const rows = await q`
        select * from disputes
        where platform_id = ${platformId}
          ${filter.status ? q`and status = ${filter.status}` : q``}
          ${filter.transactionId ? q`and transaction_id = ${filter.transactionId}` : q``}
        order by created_at desc, id desc
        limit ${filter.limit}`;
      return rows.map(toDisputeRow);
    },

    /** Inserts a dispute; null when the transaction already has one (the unique index decided). */
    async insert(tx: Queryable, d: NewDispute): Promise<DisputeRow | null> {
      const rows = await tx`
        insert into disputes (id, platform_id, workspace_id, transaction_id, initiated_by, current_tier, status, reason, metadata)
        values (${d.id}, ${d.platformId}, ${d.workspaceId}, ${d.transactionId}, ${d.initiatedBy}, ${d.currentTier}, ${d.status},
                ${d.reason}, ${JSON.stringify(d.metadata)}::text::jsonb)
        on conflict (transaction_id) do nothing
        returning *`;
      return rows[0] ? toDisputeRow(rows[0]) : null;
    },

    /** Moves a locked dispute one tier up, stamping the tier it leaves. */
    async escalate(
      tx: Queryable,
      id: string,
      to: { tier: DisputeTier; status: DisputeStatus; completed: 'tier1CompletedAt' | 'tier2CompletedAt' | null },
    ): Promise<DisputeRow> {
      const rows = await tx`
        update disputes set
          current_tier = ${to.tier},
          status = ${to.status},
          tier1_completed_at = ${to.completed === 'tier1CompletedAt' ? tx`now()` : tx`tier1_completed_at`},
          tier2_completed_at = ${to.completed === 'tier2CompletedAt' ? tx`now()` : tx`tier2_completed_at`},
          updated_at = now()
        where id = ${id}
        returning *`;
      return toDisputeRow(rows[0]!);
    },

    async resolve(
      tx: Queryable,
      id: string,
      r: { outcome: DisputeOutcome; resolutionReason: string; refundPercentage: string; resolvedBy: string },
    ): Promise<DisputeRow> {
      const rows = await tx`
        update disputes set
          status = 'resolved',
          outcome = ${r.outcome},
          resolution_reason = ${r.resolutionReason},
          refund_percentage = ${r.refundPercentage}::numeric,
          resolved_by = ${r.resolvedBy},
          resolved_at = now(),
          updated_at = now()
        where id = ${id} and status <> 'resolved'
        returning *`;
      const row = rows[0];
      if (!row) throw new Error(`dispute ${id} was already resolved: the caller must hold its row lock`);
      return toDisputeRow(row);
    },

    async touch(tx: Queryable, id: string): Promise<void> {
      await tx`update disputes set updated_at = now() where id = ${id}`;
    },

    async insertEvidence(tx: Queryable, e: NewEvidence): Promise<Evidence> {
      const rows = await tx`
        insert into dispute_evidence (id, dispute_id, submitted_by, type, title, description, content, file_url, file_hash, is_encrypted, metadata)
        values (${e.id}, ${e.disputeId}, ${e.submittedBy}, ${e.type}, ${e.title}, ${e.description}, ${e.content}, ${e.fileUrl},
                ${e.fileHash}, ${e.isEncrypted}, ${JSON.stringify(e.metadata)}::text::jsonb)
        returning *`;
      return toEvidence(rows[0]!);
    },

    /** Evidence of the given disputes, oldest first, grouped by dispute id. */
    async evidenceOf(q: Queryable, disputeIds: readonly string[]): Promise<Map<string, Evidence[]>> {
      const out = new Map<string, Evidence[]>(disputeIds.map((id) => [id, []]));
      if (disputeIds.length === 0) return out;
      const rows = await q`
        select * from dispute_evidence where dispute_id = any(${disputeIds as string[]}::uuid[]) order by created_at, id`;
      for (const evidence of rows.map(toEvidence)) out.get(evidence.disputeId)?.push(evidence);
      return out;
    },

    /**
     * The resolution of a transaction's dispute, or null when it has none or it is unresolved. For
     * the on-chain settlement: `refundBps` is what the attester passes to `refund(id, bps)`.
     */
    async resolutionFor(q: Queryable, transactionId: string): Promise<DisputeResolution | null> {
      const rows = await q`
        select id, outcome, refund_percentage, resolved_at from disputes
        where transaction_id = ${transactionId} and status = 'resolved'`;
      const r = rows[0] ? toResolution(rows[0]) : null;
      // A resolved dispute has all three (resolve sets them together).
      if (!r?.outcome || r.refundPercentage === null || r.resolvedAt === null) return null;
      const bps = bpsOfDecimal(r.refundPercentage);
      return { disputeId: r.id, outcome: r.outcome, refundPercentage: bps / 100, refundBps: bps, resolvedAt: r.resolvedAt };
    },
  };
}
export type DisputesRepository = ReturnType<typeof createDisputesRepository>;

/** `'37.5'` / `'37.50'` -> 3750, exactly (no floating point). */
export function bpsOfDecimal(value: string): number {
  const [whole = '0', fraction = ''] = value.split('.');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
}

/** 3750 -> `'37.50'`. */
export function decimalOfBps(bps: number): string {
  return `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')}`;
}

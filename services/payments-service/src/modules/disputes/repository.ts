import type { DisputeOutcome, DisputeParty, DisputeStatus, DisputeTier, Evidence, EvidenceType } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { isoOf } from '@holdfast/db';

/** A dispute row as the service uses it (the API record without `evidence`, plus routing and audit columns). */
export interface DisputeRow {
  id: string;
  platformId: string;
  workspaceId: string | null;
  transactionId: string;
  initiatedBy: DisputeParty;
  currentTier: DisputeTier;
  status: DisputeStatus;
  reason: string;
  tier1CompletedAt: string | null;
  tier2CompletedAt: string | null;
  resolvedAt: string | null;
  outcome: DisputeOutcome | null;
  resolutionReason: string | null;
  /** Exact decimal string (`numeric(5,2)`), e.g. `'37.50'`. */
  refundPercentage: string | null;
  resolvedBy: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  id: string;
  platform_id: string;
  workspace_id: string | null;
  transaction_id: string;
  initiated_by: DisputeParty;
  current_tier: DisputeTier;
  status: DisputeStatus;
  reason: string;
  tier1_completed_at: string | Date | null;
  tier2_completed_at: string | Date | null;
  resolved_at: string | Date | null;
  outcome: DisputeOutcome | null;
  resolution_reason: string | null;
  refund_percentage: string | null;
  resolved_by: string | null;
  metadata: Record<string, unknown>;
  created_at: string | Date;
  updated_at: string | Date;
}

interface EvidenceDbRow {
  id: string;
  dispute_id: string;
  submitted_by: DisputeParty;
  type: EvidenceType;
  title: string;
  description: string | null;
  content: string | null;
  file_url: string | null;
  file_hash: string | null;
  is_encrypted: boolean;
  metadata: Record<string, unknown>;
  created_at: string | Date;
}

const isoOrNull = (v: string | Date | null) => (v === null ? null : isoOf(v));

function toDisputeRow(r: Row): DisputeRow {
  return {
    id: r.id,
    platformId: r.platform_id,
    workspaceId: r.workspace_id,
    transactionId: r.transaction_id,
    initiatedBy: r.initiated_by,
    currentTier: r.current_tier,
    status: r.status,
    reason: r.reason,
    tier1CompletedAt: isoOrNull(r.tier1_completed_at),
    tier2CompletedAt: isoOrNull(r.tier2_completed_at),
    resolvedAt: isoOrNull(r.resolved_at),
    outcome: r.outcome,
    resolutionReason: r.resolution_reason,
    refundPercentage: r.refund_percentage,
    resolvedBy: r.resolved_by,
    metadata: r.metadata,
    createdAt: isoOf(r.created_at),
    updatedAt: isoOf(r.updated_at),
  };
}

function toEvidence(r: EvidenceDbRow): Evidence {
  return {
    id: r.id,
    disputeId: r.dispute_id,
    submittedBy: r.submitted_by,
    type: r.type,
    title: r.title,
    description: r.description,
    content: r.content,
    fileUrl: r.file_url,
    fileHash: r.file_hash,
    isEncrypted: r.is_encrypted,
    metadata: r.metadata,
    createdAt: isoOf(r.created_at),
  };
}

/** A dispute to insert: what it is opened with; the rest comes as it moves. */
export type NewDispute = Pick<
  DisputeRow,
  'id' | 'platformId' | 'workspaceId' | 'transactionId' | 'initiatedBy' | 'currentTier' | 'status' | 'reason' | 'metadata'
>;

export interface NewEvidence {
  id: string;
  disputeId: string;
  submittedBy: DisputeParty;
  type: EvidenceType;
  title: string;
  description: string | null;
  content: string | null;
  fileUrl: string | null;
  fileHash: string | null;
  isEncrypted: boolean;
  metadata: Record<string, unknown>;
}

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
      const rows = await tx<Row[]>`select * from disputes where id = ${id} and platform_id = ${platformId} for update`;
      return rows[0] ? toDisputeRow(rows[0]) : null;
    },

    async find(q: Queryable, id: string, platformId: string): Promise<DisputeRow | null> {
      const rows = await q<Row[]>`select * from disputes where id = ${id} and platform_id = ${platformId}`;
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
      const rows = await q<Row[]>`
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
      const rows = await tx<Row[]>`
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
      const rows = await tx<Row[]>`
        update disputes set
          current_tier = ${to.tier},
          status = ${to.status},
          tier1_completed_at = ${to.completed === 'tier1CompletedAt' ? tx`now()` : tx`tier1_completed_at`},
          tier2_completed_at = ${to.completed === 'tier2CompletedAt' ? tx`now()` : tx`tier2_completed_at`},
          updated_at = now()
        where id = ${id}
        returning *`;
      return toDisputeRow(rows[0] as Row);
    },

    async resolve(
      tx: Queryable,
      id: string,
      r: { outcome: DisputeOutcome; resolutionReason: string; refundPercentage: string; resolvedBy: string },
    ): Promise<DisputeRow> {
      const rows = await tx<Row[]>`
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
      const rows = await tx<EvidenceDbRow[]>`
        insert into dispute_evidence (id, dispute_id, submitted_by, type, title, description, content, file_url, file_hash, is_encrypted, metadata)
        values (${e.id}, ${e.disputeId}, ${e.submittedBy}, ${e.type}, ${e.title}, ${e.description}, ${e.content}, ${e.fileUrl},
                ${e.fileHash}, ${e.isEncrypted}, ${JSON.stringify(e.metadata)}::text::jsonb)
        returning *`;
      return toEvidence(rows[0] as EvidenceDbRow);
    },

    /** Evidence of the given disputes, oldest first, grouped by dispute id. */
    async evidenceOf(q: Queryable, disputeIds: readonly string[]): Promise<Map<string, Evidence[]>> {
      const out = new Map<string, Evidence[]>(disputeIds.map((id) => [id, []]));
      if (disputeIds.length === 0) return out;
      const rows = await q<EvidenceDbRow[]>`
        select * from dispute_evidence where dispute_id = any(${disputeIds as string[]}::uuid[]) order by created_at, id`;
      for (const r of rows) out.get(r.dispute_id)?.push(toEvidence(r));
      return out;
    },

    /**
     * The resolution of a transaction's dispute, or null when it has none or it is unresolved. For
     * the on-chain settlement: `refundBps` is what the attester passes to `refund(id, bps)`.
     */
    async resolutionFor(q: Queryable, transactionId: string): Promise<DisputeResolution | null> {
      const rows = await q<{ id: string; outcome: DisputeOutcome; refund_percentage: string; resolved_at: string | Date }[]>`
        select id, outcome, refund_percentage, resolved_at from disputes
        where transaction_id = ${transactionId} and status = 'resolved'`;
      const r = rows[0];
      if (!r) return null;
      const bps = bpsOfDecimal(r.refund_percentage);
      return { disputeId: r.id, outcome: r.outcome, refundPercentage: bps / 100, refundBps: bps, resolvedAt: isoOf(r.resolved_at) };
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

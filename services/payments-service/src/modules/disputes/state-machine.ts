import { DISPUTE_TIERS, type DisputeOutcome, type DisputeStatus, type DisputeTier, type ErrorCode } from '@holdfast/contracts';
import type { TransactionAction } from '../transactions/index.js';

/**
 * The dispute state machine: pure and table-driven (docs/disputes.md renders it). A dispute is born
 * `open` at `tier_1_smart_contract`; `escalate` climbs one tier at a time; `resolve` ends it from any
 * unresolved status. `resolved` is final: no escalation, no evidence, no second resolution.
 */

/** Each tier, the status a dispute has while it sits there, and the column stamped when it leaves it. */
export const DISPUTE_TIER_TABLE: Readonly<
  Record<DisputeTier, { status: DisputeStatus; completedColumn: 'tier1CompletedAt' | 'tier2CompletedAt' | null; who: string }>
> = {
  tier_1_smart_contract: {
    status: 'open',
    completedColumn: 'tier1CompletedAt',
    who: 'the parties, with the funds frozen in the escrow contract',
  },
  tier_2_platform_mediation: {
    status: 'under_review',
    completedColumn: 'tier2CompletedAt',
    who: "the platform's support team mediates",
  },
  tier_3_arbitration: { status: 'in_arbitration', completedColumn: null, who: 'a neutral arbitrator decides' },
};

/** Statuses a dispute can be in before it is resolved (`pending_votes` is reserved: see docs/disputes.md). */
export const UNRESOLVED_STATUSES: readonly DisputeStatus[] = ['open', 'under_review', 'pending_votes', 'in_arbitration'];

export const HIGHEST_TIER: DisputeTier = DISPUTE_TIERS[DISPUTE_TIERS.length - 1] as DisputeTier;

export type Refusal = { ok: false; code: ErrorCode; message: string };

export type Escalation =
  | { ok: true; tier: DisputeTier; status: DisputeStatus; completed: 'tier1CompletedAt' | 'tier2CompletedAt' | null }
  | Refusal;

/** Where `escalate` takes a dispute, or why it cannot. */
export function escalation(current: { status: DisputeStatus; currentTier: DisputeTier }): Escalation {
  if (current.status === 'resolved') return { ok: false, code: 'DISPUTE_RESOLVED', message: 'The dispute is resolved' };
  const index = DISPUTE_TIERS.indexOf(current.currentTier);
  const next = DISPUTE_TIERS[index + 1];
  if (index < 0 || next === undefined) {
    return { ok: false, code: 'HIGHEST_TIER_REACHED', message: `The dispute is already at the highest tier (${HIGHEST_TIER})` };
  }
  return {
    ok: true,
    tier: next,
    status: DISPUTE_TIER_TABLE[next].status,
    completed: DISPUTE_TIER_TABLE[current.currentTier].completedColumn,
  };
}

/** Whether evidence may still be submitted. */
export function acceptsEvidence(status: DisputeStatus): { ok: true } | Refusal {
  return status === 'resolved'
    ? { ok: false, code: 'DISPUTE_RESOLVED', message: 'Evidence cannot be submitted to a resolved dispute' }
    : { ok: true };
}

/** What each outcome does to the disputed transaction. */
export const OUTCOME_MOVES: Readonly<Record<DisputeOutcome, TransactionAction>> = {
  favor_receiver: 'resolve_for_receiver',
  favor_sender: 'resolve_for_sender',
  partial_refund: 'resolve_for_sender',
};

export type Resolution =
  | { ok: true; outcome: DisputeOutcome; refundPercentage: number; refundBps: number; action: TransactionAction }
  | { ok: false; code: 'VALIDATION_ERROR'; message: string };

/** Whole basis points of a percentage, or null when it has a finer fraction (steps of 0.01 only). */
export function bpsOf(percentage: number): number | null {
  const bps = Math.round(percentage * 100);
  return Math.abs(percentage * 100 - bps) < 1e-6 ? bps : null;
}

/**
 * The refund share an outcome settles with. favor_sender refunds everything (100, or omitted),
 * favor_receiver nothing (0, or omitted), partial_refund needs a share strictly between 0 and 100.
 * Percentages are kept to the basis point: the escrow's `refund(id, bps)` takes whole basis points.
 */
export function resolution(outcome: DisputeOutcome, refundPercentage?: number): Resolution {
  const refuse = (message: string): Resolution => ({ ok: false, code: 'VALIDATION_ERROR', message });
  let pct: number;
  switch (outcome) {
    case 'favor_sender':
      if (refundPercentage !== undefined && refundPercentage !== 100)
        return refuse('refundPercentage must be 100 (or omitted) for favor_sender');
      pct = 100;
      break;
    case 'favor_receiver':
      if (refundPercentage !== undefined && refundPercentage !== 0)
        return refuse('refundPercentage must be 0 (or omitted) for favor_receiver');
      pct = 0;
      break;
    case 'partial_refund':
      if (refundPercentage === undefined) return refuse('refundPercentage is required for partial_refund');
      if (!(refundPercentage > 0 && refundPercentage < 100))
        return refuse('refundPercentage must be more than 0 and less than 100 for partial_refund');
      pct = refundPercentage;
      break;
  }
  const bps = bpsOf(pct);
  if (bps === null) return refuse('refundPercentage has at most two decimals (whole basis points)');
  return { ok: true, outcome, refundPercentage: bps / 100, refundBps: bps, action: OUTCOME_MOVES[outcome] };
}

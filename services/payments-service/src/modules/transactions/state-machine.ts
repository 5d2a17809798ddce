import type { EventType, TransactionStatus } from '@holdfast/contracts';

/**
 * The transaction state machine: pure and table-driven. Every status change of a transaction or
 * batch leg goes through `nextStatus`; the table below is the whole truth (docs/transactions.md
 * renders it). A move not in the table is refused with INVALID_STATE_TRANSITION.
 *
 * Creation is not a move: a transaction is born `pending`, `pending_user_action` (a control waits
 * for the user, or an external wallet must sign) or `risk_review`; `transaction.created` is always
 * its first event. A control that fails at creation is the `fail_control` move right after.
 */
export const TRANSACTION_ACTIONS = [
  /** A control now waits for the user (two-factor code, vendor SMS). */
  'require_user_action',
  /** The user satisfied the control (code accepted). */
  'complete_user_action',
  /** A control or the risk rules sent the transaction to manual review. */
  'flag_for_review',
  /** Review approved: back to the flow. */
  'approve_review',
  /** Review rejected. */
  'reject_review',
  /** A pre-escrow control failed (deny list, amount limit, attempts exhausted, code expired). */
  'fail_control',
  /** Funds locked in the escrow contract (chain event, or a verified escrow hash). */
  'lock_escrow',
  /** Raw orchestration: the transfer's receipt was verified on chain. */
  'confirm_transfer',
  /** Raw orchestration: the submitted transfer reverted on chain. */
  'fail_transfer',
  /** The release was attested (by the sender, the platform's attester, or both parties early). */
  'attest_release',
  /** The escrow paid the receiver (chain event). */
  'release',
  /** A dispute was opened. */
  'open_dispute',
  /** A dispute was resolved for the receiver: funds go to the receiver. */
  'resolve_for_receiver',
  /** A dispute was resolved for the sender (full or partial refund). */
  'resolve_for_sender',
  /** Funds returned to the sender (refund operation, or chain event). */
  'refund',
  /** The sender took the funds back during the hold period. */
  'rescind',
  /** A reorg withdrew the `escrow.created` event that escrowed it (docs/settlement.md, corrections). */
  'revert_escrow',
  /**
   * Raw orchestration: an operator resolved a disputed claim (one plain transfer claimed by several
   * platforms' transactions) for another transaction; this one's transfer paid someone else's.
   */
  'void_transfer',
] as const;
export type TransactionAction = (typeof TRANSACTION_ACTIONS)[number];

export interface Move {
  from: readonly TransactionStatus[];
  to: TransactionStatus;
  /** The event announcing the move, when the spec names one for the target state. */
  event: EventType | null;
  why: string;
}

/** Every allowed move. */
export const TRANSACTION_MOVES: Readonly<Record<TransactionAction, Move>> = {
  require_user_action: { from: ['pending'], to: 'pending_user_action', event: null, why: 'a control waits for the user' },
  complete_user_action: { from: ['pending_user_action'], to: 'pending', event: null, why: 'the control accepted the user' },
  flag_for_review: { from: ['pending', 'pending_user_action'], to: 'risk_review', event: null, why: 'held for risk review' },
  approve_review: { from: ['risk_review'], to: 'pending', event: null, why: 'risk review approved' },
  reject_review: { from: ['risk_review'], to: 'failed', event: 'transaction.failed', why: 'risk review rejected' },
  fail_control: {
    from: ['pending', 'pending_user_action'],
    to: 'failed',
    event: 'transaction.failed',
    why: 'a pre-escrow control failed',
  },
  lock_escrow: {
    from: ['pending', 'pending_user_action'],
    to: 'escrowed',
    event: 'transaction.escrowed',
    why: 'funds locked in the escrow contract',
  },
  confirm_transfer: {
    from: ['pending', 'pending_user_action'],
    to: 'completed',
    event: 'transaction.completed',
    why: 'direct transfer confirmed on chain',
  },
  fail_transfer: { from: ['pending', 'pending_user_action'], to: 'failed', event: 'transaction.failed', why: 'direct transfer reverted' },
  attest_release: { from: ['escrowed'], to: 'in_review', event: null, why: 'release attested, settling on chain' },
  release: { from: ['escrowed', 'in_review'], to: 'completed', event: 'transaction.completed', why: 'escrow paid the receiver' },
  open_dispute: { from: ['escrowed', 'in_review'], to: 'disputed', event: null, why: 'a dispute was opened' },
  resolve_for_receiver: { from: ['disputed'], to: 'completed', event: 'transaction.completed', why: 'dispute resolved for the receiver' },
  resolve_for_sender: { from: ['disputed'], to: 'refunded', event: 'transaction.refunded', why: 'dispute resolved for the sender' },
  refund: {
    from: ['escrowed', 'in_review', 'disputed'],
    to: 'refunded',
    event: 'transaction.refunded',
    why: 'funds returned to the sender',
  },
  rescind: { from: ['escrowed'], to: 'rescinded', event: 'transaction.rescinded', why: 'the sender rescinded during the hold period' },
  revert_escrow: {
    from: ['escrowed', 'in_review'],
    to: 'pending',
    event: 'transaction.reorged',
    why: 'a reorg removed the escrow: nothing is paid on it; escrowed again once re-mined',
  },
  void_transfer: {
    from: ['completed'],
    to: 'failed',
    event: 'transaction.failed',
    why: 'a disputed transfer was found to pay another transaction',
  },
};

/**
 * Client requests whose outcome is a status: where the same party asks again once its request took
 * effect (the release it attested is in review or done, the refund it asked for is made or being
 * made on chain), the answer is the transaction as it is now (200), not a refusal (docs/settlement.md,
 * "Repeating a settlement request"). Any other status still refuses the move.
 */
export const REPEATABLE_REQUESTS: Readonly<Partial<Record<TransactionAction, readonly TransactionStatus[]>>> = {
  attest_release: ['in_review', 'completed'],
  refund: ['refunded'],
};

/** Whether `action`, asked again by a party that already made it, is answered with the transaction as it is. */
export function isRepeatedRequest(status: TransactionStatus, action: TransactionAction, madeBySameParty: boolean): boolean {
  return madeBySameParty && (REPEATABLE_REQUESTS[action]?.includes(status) ?? false);
}

/** Where a transaction may start. */
export const INITIAL_STATUSES: readonly TransactionStatus[] = ['pending', 'pending_user_action', 'risk_review'];

export type MoveResult =
  | { ok: true; to: TransactionStatus; event: EventType | null }
  | { ok: false; allowedFrom: readonly TransactionStatus[] };

/** The status `action` leads to from `from`, or why it cannot. */
export function nextStatus(from: TransactionStatus, action: TransactionAction): MoveResult {
  const move = TRANSACTION_MOVES[action];
  if (!move.from.includes(from)) return { ok: false, allowedFrom: move.from };
  return { ok: true, to: move.to, event: move.event };
}

/** The actions allowed from a status (for error messages and the docs). */
export function actionsFrom(status: TransactionStatus): TransactionAction[] {
  return TRANSACTION_ACTIONS.filter((a) => TRANSACTION_MOVES[a].from.includes(status));
}

/** Statuses a dispute may be opened from. */
export const DISPUTABLE_STATUSES = TRANSACTION_MOVES.open_dispute.from;

// ------------------------------------------------------------------ batches

export const BATCH_STATUSES = ['pending_user_action', 'submitted', 'completed', 'failed'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/**
 * A batch's status follows its legs: `pending_user_action` while every leg is before escrow (the
 * signer's batch call not yet seen), `submitted` once any leg moved on and some leg has not ended,
 * and once every leg ended: `completed` when at least one leg paid its receiver, `failed` when none
 * did (all failed, refunded or rescinded). Pure: derived from the legs, never set by hand.
 */
export function batchStatusOf(legStatuses: readonly TransactionStatus[]): BatchStatus {
  const preEscrow = (s: TransactionStatus) => s === 'pending' || s === 'pending_user_action' || s === 'risk_review';
  if (legStatuses.every(preEscrow)) return 'pending_user_action';
  const terminal = (s: TransactionStatus) => s === 'completed' || s === 'failed' || s === 'refunded' || s === 'rescinded';
  if (!legStatuses.every(terminal)) return 'submitted';
  return legStatuses.includes('completed') ? 'completed' : 'failed';
}

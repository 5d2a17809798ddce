import type { MismatchKind } from '@holdfast/contracts';
import { EscrowStatus } from '@holdfast/escrow';
import { nextStatus, type TransactionAction } from '../transactions/index.js';

/*
 * The reconciliation table (docs/settlement.md, "Reconciliation"): what the books say (the
 * transaction's status) against what the escrow contract says, and the repair that is safe. Pure.
 */

export type ChainStatusName = 'none' | 'held' | 'released' | 'rescinded' | 'refunded';

export const CHAIN_STATUS_NAMES: Record<number, ChainStatusName> = {
  [EscrowStatus.None]: 'none',
  [EscrowStatus.Held]: 'held',
  [EscrowStatus.Released]: 'released',
  [EscrowStatus.Rescinded]: 'rescinded',
  [EscrowStatus.Refunded]: 'refunded',
};

/** The move a chain settlement stands for: what the missed CHAIN event would have applied. */
const MOVE_OF: Partial<Record<ChainStatusName, { kind: MismatchKind; action: TransactionAction }>> = {
  released: { kind: 'released_on_chain', action: 'release' },
  rescinded: { kind: 'rescinded_on_chain', action: 'rescind' },
  refunded: { kind: 'refunded_on_chain', action: 'refund' },
};

/** The chain status each settled status of the books must match. */
const SETTLED_AS: Record<string, ChainStatusName> = { completed: 'released', refunded: 'refunded', rescinded: 'rescinded' };

export interface Comparison {
  /** null: the books and the chain agree. */
  kind: MismatchKind | null;
  /** The move that makes the books say what the chain says, when it is safe (see `compare`). */
  repair: TransactionAction | null;
}

const agree: Comparison = { kind: null, repair: null };

/**
 * Compares one transaction with its escrow. A repair is offered only where the chain is final and
 * the books simply missed it: the escrow is settled on chain (read CHAIN_CONFIRMATIONS deep) while
 * the books still hold it (`escrowed`, `in_review`), and the state machine allows that very move.
 * Everything else is reported for an operator: a settlement during a dispute (a decision is
 * pending), a terminal status (never left automatically: its webhooks went out), an escrow missing.
 * `instructionOwed`: a release/refund instruction of the settlement worker is still pending, so a
 * settled status over a held escrow is in flight, not a mismatch.
 */
export function compare(databaseStatus: string, chain: ChainStatusName, instructionOwed: boolean): Comparison {
  if (chain === 'none') return { kind: 'escrow_missing', repair: null };
  if (databaseStatus === 'escrowed' || databaseStatus === 'in_review') {
    const move = MOVE_OF[chain];
    if (!move) return agree;
    return { kind: move.kind, repair: nextStatus(databaseStatus as never, move.action).ok ? move.action : null };
  }
  if (databaseStatus === 'disputed') return chain === 'held' ? agree : { kind: 'settled_during_dispute', repair: null };
  const expected = SETTLED_AS[databaseStatus];
  if (!expected || chain === expected) return agree;
  if (chain === 'held') return instructionOwed ? agree : { kind: 'terminal_but_held', repair: null };
  return { kind: 'settled_otherwise', repair: null };
}

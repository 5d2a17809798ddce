import type { CheckoutSessionStatus, EventType } from '@holdfast/contracts';

/**
 * The checkout session state machine: pure and table-driven (docs/checkout.md renders it). A
 * session is born `open`; every change of status goes through `nextSessionStatus`.
 */
export const CHECKOUT_ACTIONS = [
  /** The payer named its address and the session's transaction was created. */
  'attach_payer',
  /** The payer's transaction could not be created (refused): the session waits for a payer again. */
  'release_payer',
  /** The session's transaction became `escrowed` (the funds are locked on chain). */
  'complete',
  /** `expiresAt` passed (the expiry worker) or the platform expired it (POST …/expire). */
  'expire',
  /**
   * A `processing` session past `expiresAt` whose transaction was never funded, once nothing signed
   * for it can still lock (no relay in flight, every authorization's window closed): the worker.
   */
  'expire_unfunded',
] as const;
export type CheckoutAction = (typeof CHECKOUT_ACTIONS)[number];

export interface CheckoutMove {
  from: readonly CheckoutSessionStatus[];
  to: CheckoutSessionStatus;
  event: EventType | null;
  why: string;
}

/**
 * Every allowed move. `expire` is refused from `processing`: the transaction exists and its escrow
 * may already be on its way on chain; expiring the session then could announce `expired` for a
 * payment that locks a moment later. Only `expire_unfunded` leaves `processing` for `expired`,
 * when the worker found that no signature can lock it any more.
 */
export const CHECKOUT_MOVES: Readonly<Record<CheckoutAction, CheckoutMove>> = {
  attach_payer: { from: ['open'], to: 'processing', event: null, why: 'the payer named its address; its transaction exists' },
  release_payer: { from: ['processing'], to: 'open', event: null, why: 'the payer’s transaction was refused; nothing was created' },
  complete: { from: ['processing'], to: 'complete', event: 'checkout.session.completed', why: 'its transaction is escrowed' },
  expire: { from: ['open'], to: 'expired', event: 'checkout.session.expired', why: 'expiresAt passed, or the platform expired it' },
  expire_unfunded: {
    from: ['processing'],
    to: 'expired',
    event: 'checkout.session.expired',
    why: 'expiresAt passed, its transaction never funded and no signature can still fund it',
  },
};

export type CheckoutMoveResult =
  | { ok: true; to: CheckoutSessionStatus; event: EventType | null }
  | { ok: false; allowedFrom: readonly CheckoutSessionStatus[] };

export function nextSessionStatus(from: CheckoutSessionStatus, action: CheckoutAction): CheckoutMoveResult {
  const move = CHECKOUT_MOVES[action];
  if (!move.from.includes(from)) return { ok: false, allowedFrom: move.from };
  return { ok: true, to: move.to, event: move.event };
}

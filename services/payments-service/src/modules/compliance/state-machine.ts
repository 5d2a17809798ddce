import type { VerificationStatus } from '@holdfast/contracts';

/**
 * Verification statuses (docs/api/compliance.md). A verification starts `pending` when the
 * inquiry is opened at the identity provider; only the provider's callbacks move it:
 *
 *   pending       -> approved | rejected | needs_review | expired
 *   needs_review  -> approved | rejected | expired
 *   approved      -> expired          (the approval lapsed)
 *   rejected, expired: terminal       (the platform opens a new verification to try again)
 *
 * Pure and table-driven: the service asks, the repository writes.
 */
export const VERIFICATION_TRANSITIONS: Readonly<Record<VerificationStatus, readonly VerificationStatus[]>> = {
  pending: ['approved', 'rejected', 'needs_review', 'expired'],
  needs_review: ['approved', 'rejected', 'expired'],
  approved: ['expired'],
  rejected: [],
  expired: [],
};

export const INITIAL_VERIFICATION_STATUS: VerificationStatus = 'pending';

export type MoveDecision = 'move' | 'unchanged' | 'not_allowed';

/** What a report of `to` does to a verification in `from`. */
export function decideMove(from: VerificationStatus, to: VerificationStatus): MoveDecision {
  if (from === to) return 'unchanged';
  return VERIFICATION_TRANSITIONS[from].includes(to) ? 'move' : 'not_allowed';
}

export function isTerminal(status: VerificationStatus): boolean {
  return VERIFICATION_TRANSITIONS[status].length === 0;
}

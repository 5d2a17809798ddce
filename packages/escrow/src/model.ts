/** `HoldfastEscrow.Status` as returned by `getEscrow` (uint8). */
export const EscrowStatus = { None: 0, Held: 1, Released: 2, Rescinded: 3, Refunded: 4 } as const;
export type EscrowStatus = (typeof EscrowStatus)[keyof typeof EscrowStatus];

/** `HoldfastEscrow.ReleaseReason` in `EscrowReleased` events (uint8). */
export const ReleaseReason = { Release: 0, EarlyRelease: 1, Expiry: 2 } as const;
export type ReleaseReason = (typeof ReleaseReason)[keyof typeof ReleaseReason];

const DAY = 24n * 60n * 60n;

/** Default escape: anyone may pay the receiver 180 days after the hold deadline unless frozen. */
export const DEFAULT_EXPIRY_PERIOD = 180n * DAY;
/** Default dispute freeze: each `freeze` keeps the escape closed for at least 90 more days. */
export const DEFAULT_FREEZE_PERIOD = 90n * DAY;
/** The bounds the constructor enforces on both periods. */
export const MIN_PERIOD = DAY;
export const MAX_PERIOD = 730n * DAY;
/** Basis points of a full refund. */
export const MAX_BPS = 10_000n;

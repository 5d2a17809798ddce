import { AppError } from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import type { TransactionsRepository } from './repository.js';

/** How long the per-sender window is (the operator contract says "per minute"). */
export const SENDER_WINDOW_SECONDS = 60;

export interface SenderLimitsConfig {
  /** TX_RATE_LIMIT_PER_SENDER: creations per minute per sender and platform (single transactions and batch legs alike); 0 = off. */
  perSender: number;
  /** PAYMENTS_DUPLICATE_WINDOW_SECONDS; 0 = off. */
  duplicateWindowSeconds: number;
}

export interface SenderCreation {
  platformId: string;
  fromAddress: string;
  currency: string;
  blockchainNetwork: string;
  /** One entry per transaction about to be created: a single transaction has one, a batch one per leg. */
  transfers: readonly { toAddress: string; amount: string; field?: string }[];
  /** With an idempotency key a repeat is deliberate: the duplicate window does not apply. */
  idempotent: boolean;
}

/**
 * The rules on a sender's recent creations for a batch (docs/transactions.md, "Duplicates and the
 * per-sender limit"; a single creation reads the same state in its one statement,
 * `repository.createSingle`, and both refuse through `senderRules`). Call inside the creating
 * database transaction: it takes the sender's lock first, so concurrent creations of one sender see
 * each other's rows. Answers the database's clock, the creation time to use. The batch's legs then
 * take the sender's next `sender_seq` numbers, which a single creation that read the sender's rows
 * before the batch committed collides with (ADR 32).
 *
 * The lock and every read are sent together (postgres.js pipelines queries issued in one tick on
 * the transaction's connection): PostgreSQL runs them in order, so each read starts after the lock
 * is held and sees every creation committed before it, in one round trip instead of one per query.
 */
export function createSenderLimits(repository: TransactionsRepository, config: SenderLimitsConfig) {
  return async function checkSender(tx: Queryable, c: SenderCreation): Promise<string> {
    const checkDuplicates = !c.idempotent && config.duplicateWindowSeconds > 0;
    const [, state, duplicates] = await Promise.all([
      repository.lockSender(tx, c.platformId, c.fromAddress),
      repository.senderWindow(tx, c.platformId, c.fromAddress, SENDER_WINDOW_SECONDS, Math.max(1, config.perSender)),
      Promise.all(
        checkDuplicates
          ? c.transfers.map((transfer) =>
              repository.findDuplicate(
                tx,
                {
                  platformId: c.platformId,
                  fromAddress: c.fromAddress,
                  toAddress: transfer.toAddress,
                  amount: transfer.amount,
                  currency: c.currency,
                  blockchainNetwork: c.blockchainNetwork,
                },
                config.duplicateWindowSeconds,
              ),
            )
          : [],
      ),
    ]);
    senderRules(config, c, { now: state.now, nthNewest: state.nthNewest, duplicateIds: duplicates });
    return state.now;
  };
}
export type CheckSender = ReturnType<typeof createSenderLimits>;

/** What the sender's recent creations look like to a creation: read under the sender's lock, or by the creation statement. */
export interface SenderState {
  /** The database's clock when they were read. */
  now: string;
  /** When the sender's `perSender`th newest creation of the window was made; null while the window has room. */
  nthNewest: string | null;
  /** Per transfer, the id of a recent transaction it repeats (the duplicate window), or null. */
  duplicateIds: readonly (string | null)[];
}

/**
 * Throws the refusal the sender's recent creations call for: 409 DUPLICATE_TRANSACTION (a transfer
 * repeats one of the duplicate window), then 429 with Retry-After (the per-sender window is full).
 * The one reading of these rules, for `checkSender` and for the single-statement creation.
 */
export function senderRules(config: SenderLimitsConfig, c: Pick<SenderCreation, 'transfers'>, state: SenderState): void {
  const { now, duplicateIds: duplicates } = state;
  const nowMs = Date.parse(now);
  const duplicateAt = duplicates.findIndex((id) => id !== null);
  if (duplicateAt >= 0) {
    const transfer = c.transfers[duplicateAt]!;
    throw new AppError(
      'DUPLICATE_TRANSACTION',
      `A transaction with the same sender, receiver, amount, currency and network was created less than ${config.duplicateWindowSeconds} s ago; send an idempotency key to create deliberate repeats`,
      {
        transactionId: duplicates[duplicateAt]!,
        windowSeconds: config.duplicateWindowSeconds,
        ...(transfer.field ? { field: transfer.field } : {}),
      },
    );
  }
  if (config.perSender <= 0) return;
  // A request is admitted while the window is not full; all of its transactions then count, so a
  // batch larger than the room left fills the window and the sender waits for it to drain.
  if (state.nthNewest) {
    const retryAfter = Math.max(1, Math.ceil((Date.parse(state.nthNewest) + SENDER_WINDOW_SECONDS * 1000 - nowMs) / 1000));
    throw new AppError(
      'RATE_LIMIT_EXCEEDED',
      `At most ${config.perSender} transactions (batch legs included) per minute per sender; retry in ${retryAfter} s`,
      { scope: 'sender', limit: config.perSender, retryAfterSeconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
}

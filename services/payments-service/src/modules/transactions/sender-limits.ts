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
 * The rules on a sender's recent creations, shared by a single create and a batch (docs/transactions.md,
 * "Duplicates and the per-sender limit"). Call inside the creating database transaction: it takes
 * the sender's lock first, so concurrent creations of one sender see each other's rows. Answers the
 * database's clock, the creation time to use.
 */
export function createSenderLimits(repository: TransactionsRepository, config: SenderLimitsConfig) {
  return async function checkSender(tx: Queryable, c: SenderCreation): Promise<string> {
    await repository.lockSender(tx, c.platformId, c.fromAddress);
    const now = await repository.clock(tx);
    const nowMs = Date.parse(now);
    if (!c.idempotent && config.duplicateWindowSeconds > 0) {
      const since = new Date(nowMs - config.duplicateWindowSeconds * 1000).toISOString();
      for (const transfer of c.transfers) {
        const duplicate = await repository.findDuplicate(
          tx,
          {
            platformId: c.platformId,
            fromAddress: c.fromAddress,
            toAddress: transfer.toAddress,
            amount: transfer.amount,
            currency: c.currency,
            blockchainNetwork: c.blockchainNetwork,
          },
          since,
        );
        if (duplicate) {
          throw new AppError(
            'DUPLICATE_TRANSACTION',
            `A transaction with the same sender, receiver, amount, currency and network was created less than ${config.duplicateWindowSeconds} s ago; send an idempotency key to create deliberate repeats`,
            {
              transactionId: duplicate,
              windowSeconds: config.duplicateWindowSeconds,
              ...(transfer.field ? { field: transfer.field } : {}),
            },
          );
        }
      }
    }
    if (config.perSender <= 0) return now;
    // A request is admitted while the window is not full; all of its transactions then count, so a
    // batch larger than the room left fills the window and the sender waits for it to drain.
    const window = await repository.senderWindow(
      tx,
      c.platformId,
      c.fromAddress,
      new Date(nowMs - SENDER_WINDOW_SECONDS * 1000).toISOString(),
      config.perSender,
    );
    if (window.nthNewest) {
      const retryAfter = Math.max(1, Math.ceil((Date.parse(window.nthNewest) + SENDER_WINDOW_SECONDS * 1000 - nowMs) / 1000));
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `At most ${config.perSender} transactions (batch legs included) per minute per sender; retry in ${retryAfter} s`,
        { scope: 'sender', limit: config.perSender, retryAfterSeconds: retryAfter },
        { 'Retry-After': String(retryAfter) },
      );
    }
    return now;
  };
}
export type CheckSender = ReturnType<typeof createSenderLimits>;

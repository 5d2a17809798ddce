import { AppError, notFound, type TransactionOperationResult } from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import type { Logger } from '@holdfast/logging';
import type { Principal } from '../auth/index.js';
import type { ChainAccess } from '../settlement/index.js';
import { type TransactionsRepository, toPaymentsTransaction } from '../transactions/index.js';

export interface TestClockDeps {
  sql: Sql;
  appEnv: string;
  transactions: TransactionsRepository;
  /** Makes the transaction's attested release due now, in the caller's transaction (settlement's queue). */
  releaseDueNow: (tx: Queryable, transactionId: string) => Promise<void>;
  chain: ChainAccess;
  logger: Logger;
}

/** The statuses whose hold can be ended: locked on chain, not yet settled. */
const HELD = ['escrowed', 'in_review'] as const;

/**
 * The test clock (docs/test-clock.md): a sandbox credential's platform, or any platform of a local
 * deployment, ends the hold period of its own transaction now, so that an attested release is
 * carried out at once and `transaction.completed` can be seen without a dispute. A live platform is
 * refused: its holds are its senders' protection.
 */
export function createTestClockService(deps: TestClockDeps) {
  const { sql, transactions, releaseDueNow, chain } = deps;
  const log = deps.logger.child({ component: 'test-clock' });

  async function advanceHold(principal: Principal, id: string): Promise<TransactionOperationResult> {
    if (!principal.sandbox && deps.appEnv !== 'local') {
      throw new AppError('FORBIDDEN', 'The test clock is for sandbox credentials and local deployments only', {
        reason: 'live_platform',
      });
    }
    const row = await transactions.find(sql, id, principal.platformId);
    if (!row) throw notFound('Transaction');
    if (row.orchestrationType !== 'platform' || !row.escrowAddress || !(HELD as readonly string[]).includes(row.status)) {
      throw new AppError('INVALID_STATE_TRANSITION', `The hold of a ${row.status} transaction cannot be advanced`, {
        currentStatus: row.status,
        allowed: [...HELD],
      });
    }
    // The contract's clock first: when it refuses to move, nothing here is changed.
    const escrow = await chain.getEscrow(row.blockchainNetwork, row.escrowAddress, row.id);
    const chainNow = await chain.chainTime(row.blockchainNetwork);
    const moved = chainNow < escrow.holdDeadline;
    if (moved) await chain.moveChainClock(row.blockchainNetwork, escrow.holdDeadline);
    const after = await sql.begin(async (tx) => {
      const ended = await transactions.endHold(tx, id);
      await releaseDueNow(tx, id);
      return ended;
    });
    log.info(
      { transactionId: id, platformId: principal.platformId, chainMovedTo: moved ? Number(escrow.holdDeadline) : null },
      'test clock: hold ended',
    );
    return {
      success: true,
      message: `The hold period is over${moved ? " (the chain's clock was moved to the escrow's hold deadline)" : ''}${
        after.status === 'in_review' ? ': the attested release is carried out now' : ': attest the release to complete it'
      }`,
      transaction: toPaymentsTransaction(after),
    };
  }

  return { advanceHold };
}
export type TestClockService = ReturnType<typeof createTestClockService>;

import type { Sql } from '@holdfast/db';
import type { Logger } from '@holdfast/logging';
import { createLeasedJobWorker, defineLeasedJob } from '@holdfast/runtime';
import type { TransactionsRepository } from '../transactions/index.js';
import { type ChainAccess, EscrowStatus } from './chain.js';
import type { SettlementRepository, SettlementRow } from './repository.js';
import { settlements } from './tables.js';

/** How far the next block's timestamp may trail this machine's clock before a release would revert (and be retried). */
const CLOCK_SKEW_MARGIN_SECONDS = 5;

export interface SettlementWorkerDeps {
  sql: Sql;
  repository: SettlementRepository;
  transactions: TransactionsRepository;
  chain: ChainAccess;
  logger: Logger;
  pollIntervalMs: number;
}

/** Attempts before an instruction is given up (`failed`, logged for operators). */
export const MAX_SETTLEMENT_ATTEMPTS = 20;

/** Delay after the n-th failed attempt: 2 s, 4 s, 8 s... capped at 5 minutes. */
export function settlementBackoffMs(attempts: number): number {
  return Math.min(1000 * 2 ** Math.max(1, attempts), 300_000);
}

/** The on-chain instructions of `settlements`, as a leased job (ADR 65). */
export const settlementJob = defineLeasedJob<SettlementRow>({
  name: 'settlement-worker',
  table: settlements,
  // A claim lasts this long: another instance takes over an instruction whose claimer died.
  lease: { seconds: 120 },
  batch: 5,
  attempts: MAX_SETTLEMENT_ATTEMPTS,
  backoff: settlementBackoffMs,
  failure: (error) => (error instanceof Error ? error.message.slice(0, 500) : String(error)),
  describe: (s) => ({ settlementId: s.id, transactionId: s.transactionId, attempts: s.attempts }),
  // In the trace of what asked for it (the attestation's request, the dispute's): its chain
  // calls are this span's children; the chain event they cause starts a trace at the indexer.
  span: (s) => ({
    name: `settlement ${s.kind}`,
    parent: s.traceContext,
    attributes: { 'holdfast.settlement.id': s.id, 'holdfast.transaction.id': s.transactionId, 'holdfast.settlement.attempt': s.attempts },
  }),
  messages: { retrying: 'settlement failed; will retry', gaveUp: 'settlement given up: needs an operator' },
});

/**
 * Executes the on-chain instructions of `settlements` with the attester key: `release(id)` and
 * `refund(id, bps)`. At least once and idempotent: before sending, the escrow's on-chain status is
 * read, so an instruction already carried out (a crash after sending, a second instance) is
 * recorded as done rather than sent again. The transaction's status is moved by the chain event
 * (release -> completed), or was moved when the instruction was written (refund).
 */
export function createSettlementWorker(deps: SettlementWorkerDeps) {
  const { sql, repository, transactions, chain, pollIntervalMs } = deps;
  const log = deps.logger.child({ component: 'settlement-worker' });

  async function execute(s: SettlementRow): Promise<void> {
    const row = await transactions.find(sql, s.transactionId);
    if (!row?.escrowAddress) {
      await repository.finish(sql, s.id, 'failed', null, 'the transaction has no escrow address');
      log.error({ settlementId: s.id, transactionId: s.transactionId }, 'settlement has no escrow: needs an operator');
      return;
    }
    const network = row.blockchainNetwork;
    const escrow = await chain.getEscrow(network, row.escrowAddress, row.id);
    if (s.kind === 'freeze') {
      // Only a held escrow can be frozen; one already settled (a rescission before the dispute) needs none.
      if (escrow.status !== EscrowStatus.Held) {
        await repository.finish(sql, s.id, 'superseded', null, `the escrow is no longer held (status ${escrow.status})`);
        return;
      }
      const frozen = await chain.settle(network, row.escrowAddress, row.id, { kind: 'freeze' });
      if (frozen.status !== 'success') throw new Error(`freeze transaction ${frozen.hash} reverted`);
      await repository.finish(sql, s.id, 'done', frozen.hash, null);
      log.info({ settlementId: s.id, transactionId: row.id, txHash: frozen.hash }, 'escrow frozen for its dispute');
      return;
    }
    const wanted = s.kind === 'release' ? EscrowStatus.Released : EscrowStatus.Refunded;
    if (escrow.status === wanted) {
      await repository.finish(sql, s.id, 'done', null, null);
      return;
    }
    if (escrow.status !== EscrowStatus.Held) {
      if (escrow.status === EscrowStatus.None) throw new Error('the escrow does not exist on chain (yet)');
      await repository.finish(sql, s.id, 'superseded', null, `the escrow was already settled otherwise (status ${escrow.status})`);
      log.error(
        { settlementId: s.id, transactionId: row.id, kind: s.kind, onchainStatus: escrow.status },
        'escrow settled otherwise: needs an operator',
      );
      return;
    }
    const bps = s.refundBps ?? 10_000;
    // The attester may release, or refund a split, only once the hold has ended: wait for it.
    if (s.kind === 'release' || bps < 10_000) {
      // The contract compares with the timestamp of the block that includes the call. The latest
      // block's is a floor of it; on a quiet chain (or an idle local anvil) it lags the clock, and
      // the next block's timestamp will be about now. Trust the clock, less a margin for skew.
      const wall = BigInt(Math.floor(Date.now() / 1000) - CLOCK_SKEW_MARGIN_SECONDS);
      const latest = await chain.chainTime(network);
      const now = latest > wall ? latest : wall;
      if (now < escrow.holdDeadline) {
        await repository.reschedule(sql, s.id, Number(escrow.holdDeadline - now) * 1000, null, false);
        return;
      }
    }
    const sent = await chain.settle(
      network,
      row.escrowAddress,
      row.id,
      s.kind === 'release' ? { kind: 'release' } : { kind: 'refund', bps },
    );
    if (sent.status !== 'success') throw new Error(`${s.kind} transaction ${sent.hash} reverted`);
    await repository.finish(sql, s.id, 'done', sent.hash, null);
    log.info({ settlementId: s.id, transactionId: row.id, kind: s.kind, txHash: sent.hash }, 'settled on chain');
  }

  return createLeasedJobWorker(
    settlementJob,
    { logger: deps.logger, intervalMs: pollIntervalMs },
    {
      claim: (limit, leaseSeconds) => sql.begin((tx) => repository.claimDue(tx, limit, leaseSeconds)),
      run: execute,
      retry: (s, delayMs, failure) => repository.reschedule(sql, s.id, delayMs, failure),
      giveUp: (s, failure) => repository.finish(sql, s.id, 'failed', null, failure),
    },
  );
}

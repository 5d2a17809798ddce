import {
  type ChainEvent,
  type ChainEventOf,
  chainMessageId,
  DEFAULT_FINALITY,
  type FinalityLevel,
  finalityAtLeast,
} from '@holdfast/contracts';
import { appendToOutboxSql, type Queryable, retryOnConflict, type Sql } from '@holdfast/db';
import type { Logger } from '@holdfast/logging';
import { NonRetryableError } from '@holdfast/messaging';
import { getAddress } from 'viem';
import { SCHEMA_NAME } from '../../db/pg-schema.js';
import {
  nextStatus,
  TRANSACTION_MOVES,
  type TransactionAction,
  type TransactionMoves,
  type TransactionRow,
  type TransactionsRepository,
  transactionEvent,
  transactionRef,
} from '../transactions/index.js';
import { type ChainAccess, sameAddress } from './chain.js';
import { PRE_ESCROW, type SettlementReceiptChecks } from './receipts.js';
import type { ChainOutcome, SettlementRepository } from './repository.js';

/**
 * The handler of payments' CHAIN consumer (`payments-chain-events`, started in src/service.ts):
 * each escrow event the indexer publishes, checked against the chain, moves its transaction at
 * most once; a correction (a reorg withdrew the log) undoes what can be undone.
 */
export interface SettlementChainConsumer {
  /**
   * One CHAIN message: its outcome, or `duplicate` when its message id was handled before. A
   * message the chain does not back, or whose escrow terms differ, throws NonRetryableError
   * (terminated); one whose level the chain does not show yet RetryableError (it comes again).
   */
  handleChainEvent: (event: ChainEvent) => Promise<ChainOutcome | 'duplicate'>;
}

export interface SettlementChainConsumerDeps {
  sql: Sql;
  moves: TransactionMoves;
  transactions: TransactionsRepository;
  repository: SettlementRepository;
  chain: ChainAccess;
  receipts: SettlementReceiptChecks;
  logger: Logger;
}

const ACTION_OF: Partial<Record<ChainEvent['kind'], TransactionAction>> = {
  'escrow.created': 'lock_escrow',
  'escrow.released': 'release',
  'escrow.refunded': 'refund',
  'escrow.rescinded': 'rescind',
};

/** The recorded action: a move, or a level recorded or withdrawn without one. */
type DecidedAction = TransactionAction | 'record_finality' | 'withdraw_finality';
interface Decision {
  outcome: ChainOutcome;
  action: DecidedAction | null;
  detail: string | null;
}
const decided = (outcome: ChainOutcome, detail: string | null = null, action: DecidedAction | null = null): Decision => ({
  outcome,
  action,
  detail,
});

/** Every move goes through `moves.move` (row lock, state machine, outbox event), in the transaction that claims the message. */
export function createSettlementChainConsumer(deps: SettlementChainConsumerDeps): SettlementChainConsumer {
  const { sql, moves, transactions, repository, chain, receipts } = deps;
  const log = deps.logger.child({ component: 'settlement' });

  /** `transaction.finality_updated` of a row whose lock reached `level` (in the caller's transaction). */
  async function announceLevel(tx: Queryable, row: TransactionRow, level: FinalityLevel, confirmations: number, event: ChainEvent) {
    await appendToOutboxSql(tx, SCHEMA_NAME, [
      transactionEvent('transaction.finality_updated', row, {
        transaction: transactionRef(row),
        finality: level,
        requiredFinality: row.requiredFinality ?? DEFAULT_FINALITY,
        confirmations,
        blockNumber: event.blockNumber,
        blockHash: event.blockHash,
        txHash: event.transactionHash,
      }),
    ]);
  }

  /**
   * An `EscrowCreated` of this transaction (terms checked) at a level (docs/chain.md, levels): the
   * level is recorded on the row and announced (`transaction.finality_updated`) each time it rises;
   * the transaction becomes `escrowed` once the level reaches the one it counts at
   * (`requiredFinality`, `confirmed` by default). A lower or equal level than recorded changes nothing.
   */
  async function applyLock(tx: Queryable, row: TransactionRow, event: ChainEventOf<'escrow.created'>, actor: string): Promise<Decision> {
    const level = event.finality ?? DEFAULT_FINALITY;
    const required = row.requiredFinality ?? DEFAULT_FINALITY;
    const confirmations = event.confirmations ?? chain.requiredConfirmations(event.network);
    const fact = { finality: level, confirmations, blockNumber: event.blockNumber, blockHash: event.blockHash };
    const sameLock = row.txHash === event.transactionHash && (!row.blockHash || row.blockHash === event.blockHash);
    const rises = !sameLock || !row.finality || !finalityAtLeast(row.finality, level);
    const preEscrow = (PRE_ESCROW as readonly string[]).includes(row.status);
    if (preEscrow && finalityAtLeast(level, required)) {
      const moved = await moves.move(tx, {
        transactionId: row.id,
        action: 'lock_escrow',
        actor,
        reason: null,
        patch: {
          escrowAddress: getAddress(event.contractAddress),
          txHash: event.transactionHash,
          chainId: event.chainId,
          holdDeadline: event.data.holdDeadline,
          ...fact,
        },
      });
      // `transaction.escrowed` announces the level it counts at; a level above it is announced as well.
      if (level !== required) await announceLevel(tx, moved.after, level, confirmations, event);
      return decided('applied', level === required ? null : `${level}; counts at ${required}`, 'lock_escrow');
    }
    if (!preEscrow && !sameLock) {
      if (row.status === 'escrowed' || row.status === 'in_review')
        return decided('conflict', `already escrowed by ${row.txHash}`, 'lock_escrow');
      return decided('noop', `the transaction is ${row.status}`, 'lock_escrow');
    }
    if (!rises) return decided('noop', `already ${row.finality}`, null);
    if (!preEscrow && !['escrowed', 'in_review', 'disputed'].includes(row.status)) {
      return decided('noop', `the transaction is ${row.status}`, null);
    }
    const recorded = await transactions.recordFinality(tx, row.id, { ...fact, txHash: event.transactionHash });
    await announceLevel(tx, recorded, level, confirmations, event);
    return decided('applied', preEscrow ? `${level}; counts at ${required}` : `${level}`, 'record_finality');
  }

  async function applyEvent(tx: Queryable, event: ChainEvent, genuine: boolean): Promise<Decision> {
    const actor = `chain:${event.eventId}`;
    if (event.kind === 'escrow.batch-created' || event.kind === 'escrow.frozen') return decided('noop', 'changes no transaction status');
    const row = await transactions.lock(tx, event.transactionId);
    if (!row) return decided('ignored', 'unknown transaction');
    if (row.blockchainNetwork !== event.network || (row.chainId !== null && row.chainId !== event.chainId)) {
      return decided('ignored', `the transaction is on ${row.blockchainNetwork}`);
    }
    if (row.orchestrationType !== 'platform') return decided('ignored', 'not an escrowed (platform) transaction');
    if (!genuine) return decided('ignored', `${event.contractAddress} is not a Holdfast escrow contract`);
    if (event.kind !== 'escrow.created' && !sameAddress(row.escrowAddress, event.contractAddress)) {
      return decided('ignored', `the transaction is escrowed in ${row.escrowAddress ?? 'no contract yet'}`);
    }

    if (event.kind === 'escrow.early-release-attested') {
      const party = sameAddress(event.data.party, row.fromAddress)
        ? 'sender'
        : sameAddress(event.data.party, row.toAddress)
          ? 'receiver'
          : null;
      if (!party) return decided('ignored', `${event.data.party} is neither party`);
      await repository.recordAttestation(tx, row.id, party, event.transactionHash, true);
      return decided('applied', `${party} consented to an early release`);
    }

    const action = ACTION_OF[event.kind];
    if (!action) return decided('noop');
    const level = event.finality ?? DEFAULT_FINALITY;
    // Money moves out of an escrow at `confirmed`, as before levels: a release, refund or rescind
    // only seen may still be undone by a reorg (its confirmed copy follows).
    if (event.kind !== 'escrow.created' && level === 'seen') return decided('noop', 'seen only: applied once confirmed', null);
    let patch = {};
    if (event.kind === 'escrow.created') {
      const problems = receipts.termsProblems(row, {
        ...event.data,
        amount: BigInt(event.data.amount),
        holdDeadline: BigInt(Math.floor(Date.parse(event.data.holdDeadline) / 1000)),
      });
      if (problems.length > 0) return decided('rejected', `the escrow's ${problems.join(', ')} differ from the transaction`, action);
      if (row.escrowAddress && !sameAddress(row.escrowAddress, event.contractAddress)) {
        return decided('conflict', `already escrowed in ${row.escrowAddress}`, action);
      }
      return applyLock(tx, row, event, actor);
    } else {
      patch = { txHash: event.transactionHash };
    }
    if (row.status === TRANSACTION_MOVES[action].to) return decided('noop', `already ${row.status}`, action);
    if (!nextStatus(row.status, action).ok) {
      log.error(
        { transactionId: row.id, eventId: event.eventId, kind: event.kind, status: row.status },
        'chain event conflicts with the transaction status: needs an operator',
      );
      return decided('conflict', `the transaction is ${row.status}`, action);
    }
    const reason =
      action === 'rescind'
        ? await repository.rescindReason(tx, row.id)
        : event.kind === 'escrow.refunded'
          ? `refund_bps:${event.data.refundBps}`
          : null;
    await moves.move(tx, { transactionId: row.id, action, actor, reason, patch });
    return decided('applied', null, action);
  }

  /**
   * A reorg withdrew an `EscrowCreated` (docs/chain.md, reorgs): when it is the lock the row holds
   * (its transaction hash and block), an `escrowed` (or `in_review`) transaction moves back to
   * `pending` (`revert_escrow`, `transaction.reorged`; a release not yet sent is superseded), a
   * transaction not yet counted forgets the level it was announced at and emits
   * `transaction.reorged` too; nothing later (a dispute, a payment) is undone automatically.
   */
  async function withdrawLock(tx: Queryable, event: ChainEvent): Promise<Decision> {
    const row = await transactions.lock(tx, event.transactionId);
    if (!row || row.txHash !== event.transactionHash || (!!row.blockHash && row.blockHash !== event.blockHash)) {
      return decided('noop', 'the withdrawn lock is not the one the transaction holds');
    }
    const reason = event.removedReason ?? 'reorg';
    const cleared = { finality: null, confirmations: null, blockNumber: null, blockHash: null };
    const eventData = {
      reason,
      previousStatus: row.status,
      finality: row.finality ?? event.finality ?? DEFAULT_FINALITY,
      blockNumber: event.blockNumber,
      blockHash: event.blockHash,
      txHash: event.transactionHash,
    };
    if (row.status === 'escrowed' || row.status === 'in_review') {
      await moves.move(tx, {
        transactionId: row.id,
        action: 'revert_escrow',
        actor: `chain:${event.eventId}:removed`,
        reason,
        patch: cleared,
        eventData,
      });
      await repository.supersedePending(tx, row.id);
      return decided('applied', null, 'revert_escrow');
    }
    if ((PRE_ESCROW as readonly string[]).includes(row.status) && row.finality) {
      const after = await transactions.recordFinality(tx, row.id, cleared);
      await appendToOutboxSql(tx, SCHEMA_NAME, [
        transactionEvent('transaction.reorged', after, { transaction: transactionRef(after), ...eventData }),
      ]);
      return decided('applied', `withdrawn at ${eventData.finality}`, 'withdraw_finality');
    }
    log.error(
      { transactionId: row.id, eventId: event.eventId, status: row.status },
      'a reorg withdrew the lock of a transaction past escrow: needs an operator',
    );
    return decided('correction_unapplied', `the transaction is ${row.status}: not undone automatically`);
  }

  /** Undoes what the event `eventId` did, when it did something that can be undone (docs/settlement.md, corrections). */
  async function applyCorrection(tx: Queryable, event: ChainEvent): Promise<Decision> {
    if (event.kind === 'escrow.created') return withdrawLock(tx, event);
    const original = await repository.findMessage(tx, event.eventId);
    if (original?.outcome !== 'applied') return decided('noop', 'the withdrawn event changed nothing');
    if (event.kind === 'escrow.early-release-attested') {
      await repository.removeChainAttestation(tx, event.transactionId, event.transactionHash);
      return decided('applied', 'early-release consent withdrawn');
    }
    log.error(
      { transactionId: event.transactionId, eventId: event.eventId, kind: event.kind, action: original.action },
      'a chain event payments applied was withdrawn and cannot be undone: needs an operator',
    );
    return decided('correction_unapplied', `${original.action ?? 'the move'} is not undone automatically`);
  }

  /**
   * One CHAIN message, at most once: its message id is claimed in the transaction that applies it.
   * A database error propagates (the consumer naks and it comes again); an escrow whose terms differ
   * from the transaction is recorded, then terminated (NonRetryableError, logged for operators).
   * A message the chain does not back (an event whose log is not there, a correction whose log still
   * is) is terminated WITHOUT claiming its id, so a forgery carrying the id of a genuine event still
   * to come cannot make the genuine one a duplicate.
   */
  async function handleChainEvent(event: ChainEvent): Promise<ChainOutcome | 'duplicate'> {
    // An RPC failure here throws: the consumer naks and the message comes again.
    // A correction is a fact only when the log it withdraws is no longer in its block.
    const offChain = await receipts.notOnChain(event);
    const problem = event.removed
      ? offChain
        ? undefined
        : `log ${event.logIndex} of ${event.transactionHash} is still on chain`
      : offChain;
    if (problem) {
      log.warn(
        { eventId: event.eventId, transactionId: event.transactionId, kind: event.kind, removed: event.removed, problem },
        'chain event refused: the chain does not back it',
      );
      throw new NonRetryableError(`chain event ${chainMessageId(event)} refused: ${problem}`);
    }
    if (!event.removed) await receipts.requireLevel(event);
    const genuine = event.removed ? true : await chain.isEscrowContract(event.network, event.contractAddress);
    const messageId = chainMessageId(event);
    const decision = await retryOnConflict(() =>
      sql.begin(async (tx) => {
        // The transaction's row first, then the message: the order escrow-hash takes them in, so the
        // API and the consumer applying the same EscrowCreated wait for each other instead of deadlocking.
        if (event.transactionId) await transactions.lock(tx, event.transactionId);
        const fresh = await repository.claimMessage(
          tx,
          {
            messageId,
            eventId: event.eventId,
            kind: event.kind,
            removed: event.removed,
            network: event.network,
            transactionId: event.transactionId,
            source: 'chain',
          },
          'pending',
        );
        if (!fresh) return null;
        const d = event.removed ? await applyCorrection(tx, event) : await applyEvent(tx, event, genuine);
        await repository.recordOutcome(tx, messageId, d.outcome, d.action, d.detail);
        return d;
      }),
    );
    if (!decision) return 'duplicate';
    log.info({ messageId, transactionId: event.transactionId, outcome: decision.outcome, detail: decision.detail }, 'chain event handled');
    if (decision.outcome === 'rejected') {
      throw new NonRetryableError(`chain event ${messageId} not applied: ${decision.detail}`);
    }
    return decision.outcome;
  }

  return { handleChainEvent };
}

import {
  AppError,
  chainEventId,
  notFound,
  type RefundBody,
  type ReleaseEarlyAttestBody,
  type RescindBody,
  type SettlementKind,
  type SubmitEscrowHashBody,
  type SubmitHashBody,
  type TransactionOperationResult,
  validationError,
} from '@holdfast/contracts';
import { type Queryable, retryOnConflict } from '@holdfast/db';
import { uuidToOnchainId } from '@holdfast/escrow';
import { getAddress, type Hash } from 'viem';
import type { Principal } from '../auth/index.js';
import {
  actionsFrom,
  isRepeatedRequest,
  nextStatus,
  type TransactionAction,
  type TransactionRow,
  toPaymentsTransaction,
} from '../transactions/index.js';
import type { SettlementChainConsumerDeps } from './chain-consumer.js';
import { PRE_ESCROW } from './receipts.js';

/**
 * The on-chain operations of a transaction, as the routes, the relayer, the Workspace API's
 * forwarded calls and the disputes module start them. Each one checks what the chain says
 * (`SettlementReceiptChecks`) before it moves the transaction.
 */
export interface SettlementOperations {
  /** Raw orchestration: the client's transfer, proven by its receipt. */
  submitHash: (principal: Pick<Principal, 'platformId'>, id: string, body: SubmitHashBody) => Promise<TransactionOperationResult>;
  /** Platform orchestration: the client's `createEscrow`/`createBatch`, proven by its `EscrowCreated` log. */
  submitEscrowHash: (
    principal: Pick<Principal, 'platformId'>,
    id: string,
    body: SubmitEscrowHashBody,
  ) => Promise<TransactionOperationResult>;
  /** The platform attests the release: in_review, and the attester key releases the escrow once its hold has ended. */
  attestRelease: (principal: Principal, id: string) => Promise<TransactionOperationResult>;
  /** A party's consent to an early release: recorded (verified when its `attestEarlyRelease` hash is given). */
  attestEarlyRelease: (principal: Principal, id: string, body: ReleaseEarlyAttestBody) => Promise<TransactionOperationResult>;
  /** The sender takes the funds back during the hold: verified hash -> rescinded (200); else the request is recorded (202). */
  rescind: (principal: Principal, id: string, body: RescindBody) => Promise<{ status: 200 | 202; body: TransactionOperationResult }>;
  /** Full refund: refunded now (transaction.refunded), the attester key returns the funds on chain. */
  refund: (principal: Principal, id: string, body: RefundBody) => Promise<TransactionOperationResult>;
  /** Writes an on-chain instruction for the settlement worker, in the caller's transaction (the disputes module's resolutions). */
  enqueueSettlement: (
    tx: Queryable,
    input: { transactionId: string; kind: SettlementKind; refundBps?: number; notBefore?: string | null },
  ) => Promise<void>;
}

/** The operations need what the CHAIN consumer needs, and the template's release controls. */
export interface SettlementOperationsDeps extends SettlementChainConsumerDeps {
  /** The template's `pre_release` controls (controls module): a refusal's reason, or null. */
  checkRelease?: (tx: Queryable, row: TransactionRow) => Promise<string | null>;
}

const actorOf = (principal: Pick<Principal, 'platformId'>) => `platform:${principal.platformId}`;
const lower = (hash: string) => hash.toLowerCase() as Hash;
const isoOfSeconds = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();

/** The same refusal `moves.move` gives, for operations that check before they call the chain. */
export function refuseUnless(row: TransactionRow, action: TransactionAction): void {
  const decision = nextStatus(row.status, action);
  if (decision.ok) return;
  throw new AppError('INVALID_STATE_TRANSITION', `Cannot ${action.replaceAll('_', ' ')} a transaction that is ${row.status}`, {
    status: row.status,
    action,
    allowedFrom: decision.allowedFrom,
    allowedActions: actionsFrom(row.status),
  });
}

export function requireOrchestration(row: TransactionRow, type: 'raw' | 'platform'): void {
  if (row.orchestrationType === type) return;
  throw new AppError(
    'ORCHESTRATION_TYPE_MISMATCH',
    type === 'raw'
      ? 'This transaction is held in the escrow contract (orchestrationType platform): submit its escrow hash instead'
      : 'This transaction is a direct transfer (orchestrationType raw): submit its transfer hash instead',
    { orchestrationType: row.orchestrationType, required: type },
  );
}

/**
 * Every move goes through `moves.move` (row lock, state machine, outbox event); an instruction for
 * the attester key (release, refund) is a `settlements` row written in the move's transaction.
 */
export function createSettlementOperations(deps: SettlementOperationsDeps): SettlementOperations {
  const { sql, moves, transactions, repository, chain, receipts } = deps;
  const log = deps.logger.child({ component: 'settlement' });

  async function load(principal: Pick<Principal, 'platformId'>, id: string): Promise<TransactionRow> {
    const row = await transactions.find(sql, id, principal.platformId);
    if (!row) throw notFound('Transaction');
    return row;
  }

  function result(row: TransactionRow, message: string, success = true): TransactionOperationResult {
    return { success, message, transaction: toPaymentsTransaction(row) };
  }

  /** The log index under which a reverted transfer (it has no logs) is claimed in claimed_transfers. */
  const REVERTED_TRANSFER_LOG = -1;

  /**
   * Raw orchestration: the client's transfer, proven by its receipt (docs/settlement.md, ADR 45;
   * which log is this transaction's: `requireTransferLog`).
   */
  async function submitHash(
    principal: Pick<Principal, 'platformId'>,
    id: string,
    body: SubmitHashBody,
  ): Promise<TransactionOperationResult> {
    const row = await load(principal, id);
    requireOrchestration(row, 'raw');
    const hash = lower(body.txHash);
    if (row.txHash === hash && (row.status === 'completed' || row.status === 'failed')) {
      return result(row, `This hash was already applied: the transaction is ${row.status}`, row.status === 'completed');
    }
    refuseUnless(row, 'confirm_transfer');
    const network = row.blockchainNetwork;
    const token = chain.tokenAddress(network, row.currency);
    const chainId = chain.chainId(network);
    const receipt = await receipts.receiptOf(row, hash);

    if (receipt.status === 'reverted') {
      await receipts.requireOwnRevertedTransfer(row, hash, token);
      await receipts.requireConfirmations(row, hash, receipt);
      const out = await sql.begin(async (tx) => {
        // Claimed once, like a transfer's log (REVERTED_TRANSFER_LOG stands for the whole reverted
        // transaction): a sender's one reverted token transfer failed every raw transaction of that
        // sender it was submitted for. The failed transaction holds it; a second one is refused.
        const claim = {
          chainId,
          txHash: hash,
          logIndex: REVERTED_TRANSFER_LOG,
          platformId: principal.platformId,
          transactionId: id,
          tagged: false,
        };
        const { holder } = await repository.claimTransfer(tx, claim);
        if (holder !== id) {
          throw new AppError('CONFLICT', 'This reverted transfer already failed another transaction', {
            txHash: hash,
            transactionId: holder,
          });
        }
        return moves.move(tx, {
          transactionId: id,
          platformId: principal.platformId,
          action: 'fail_transfer',
          actor: actorOf(principal),
          reason: 'transfer_reverted',
          patch: { txHash: hash, chainId, failureReason: 'The transfer reverted on chain' },
        });
      });
      return result(out.after, 'The transfer reverted on chain: the transaction failed', false);
    }

    const { logIndex, tagged } = await receipts.requireTransferLog(row, receipt, token);
    await receipts.requireConfirmations(row, hash, receipt);
    const out = await sql.begin(async (tx) => {
      const claim = { chainId, txHash: hash, logIndex, platformId: principal.platformId, transactionId: id, tagged };
      const { holder, others } = await repository.claimTransfer(tx, claim);
      if (holder !== id) throw new AppError('CONFLICT', 'This transfer already confirmed another transaction', { txHash: hash });
      const moved = await moves.move(tx, {
        transactionId: id,
        platformId: principal.platformId,
        action: 'confirm_transfer',
        actor: actorOf(principal),
        patch: { txHash: hash, chainId },
      });
      // A plain transfer names no transaction: another platform's claim of it makes a disputed claim.
      // (A tagged log names this transaction: no other platform's transaction can have claimed it.)
      const disputed =
        !tagged && others.length > 0 ? await repository.openDisputedClaim(tx, { chainId, network, txHash: hash, logIndex }) : null;
      return { ...moved, disputed, others };
    });
    if (out.disputed) {
      log.warn(
        { transactionId: id, disputedClaimId: out.disputed, claimedBy: out.others.map((o) => o.transactionId), txHash: hash, logIndex },
        'a plain transfer was claimed by transactions of several platforms: disputed claim open for an operator',
      );
      return result(
        out.after,
        'Transfer confirmed on chain; a transaction of another platform claimed the same plain transfer, so an operator will decide which one it paid (use pay to tag a transfer to its transaction)',
      );
    }
    return result(out.after, tagged ? 'Forwarded transfer confirmed on chain' : 'Transfer confirmed on chain');
  }

  /** Platform orchestration: the client's `createEscrow`/`createBatch`, proven by its `EscrowCreated` log. */
  async function submitEscrowHash(
    principal: Pick<Principal, 'platformId'>,
    id: string,
    body: SubmitEscrowHashBody,
  ): Promise<TransactionOperationResult> {
    const row = await load(principal, id);
    requireOrchestration(row, 'platform');
    const hash = lower(body.transactionHash);
    if (row.txHash === hash && !(PRE_ESCROW as readonly string[]).includes(row.status)) {
      return result(row, `This escrow was already recorded: the transaction is ${row.status}`);
    }
    refuseUnless(row, 'lock_escrow');
    const network = row.blockchainNetwork;
    const chainId = chain.chainId(network);
    const receipt = await receipts.receiptOf(row, hash);
    const created = await receipts.requireEscrowCreated(row, receipt);
    const level = await receipts.requireRequiredLevel(row, hash, receipt);
    const out = await retryOnConflict(() =>
      sql.begin(async (tx) => {
        const locked = await transactions.lock(tx, id, principal.platformId);
        if (locked && locked.status === 'escrowed' && locked.txHash === hash) return { after: locked };
        // The indexer's copy of this log is then a no-op, and its correction (a reorg) undoes this move.
        await repository.claimMessage(
          tx,
          {
            messageId: chainEventId(chainId, hash, created.logIndex),
            eventId: chainEventId(chainId, hash, created.logIndex),
            kind: 'escrow.created',
            removed: false,
            network,
            transactionId: id,
            source: 'api',
          },
          'applied',
          'lock_escrow',
        );
        return moves.move(tx, {
          transactionId: id,
          platformId: principal.platformId,
          action: 'lock_escrow',
          actor: actorOf(principal),
          patch: {
            txHash: hash,
            escrowAddress: getAddress(created.address),
            chainId,
            holdDeadline: isoOfSeconds(created.holdDeadline),
            finality: level.finality,
            confirmations: level.confirmations,
            blockNumber: Number(receipt.blockNumber),
            blockHash: receipt.blockHash.toLowerCase(),
          },
        });
      }),
    );
    return result(out.after, 'Escrow confirmed on chain');
  }

  /**
   * The transaction (locked) when this request repeats one the same party already made and that took
   * effect (`isRepeatedRequest`); undefined when the request is to be made (or refused) as usual.
   * Under the row lock, so a concurrent first request is seen once it committed.
   */
  async function repeatOf(
    tx: Queryable,
    principal: Pick<Principal, 'platformId'>,
    id: string,
    action: 'attest_release' | 'refund',
  ): Promise<TransactionRow | undefined> {
    const locked = await transactions.lock(tx, id, principal.platformId);
    if (!locked) throw new AppError('NOT_FOUND', 'Transaction not found');
    const made = await transactions.madeMove(tx, id, action, actorOf(principal));
    return isRepeatedRequest(locked.status, action, made) ? locked : undefined;
  }

  async function attestRelease(principal: Principal, id: string): Promise<TransactionOperationResult> {
    const row = await load(principal, id);
    requireOrchestration(row, 'platform');
    const out = await sql.begin(async (tx) => {
      const repeated = await repeatOf(tx, principal, id, 'attest_release');
      if (repeated) return { repeated };
      chain.requireAttester();
      // The template's pre_release controls: their results are kept even when one refuses.
      const refused = deps.checkRelease ? await deps.checkRelease(tx, row) : null;
      if (refused) return { refused };
      const moved = await moves.move(tx, {
        transactionId: id,
        platformId: principal.platformId,
        action: 'attest_release',
        actor: actorOf(principal),
      });
      await repository.enqueue(tx, { transactionId: id, kind: 'release', notBefore: moved.after.holdDeadline });
      return { moved };
    });
    if (out.repeated) return result(out.repeated, `The release was already attested: the transaction is ${out.repeated.status}`);
    if ('refused' in out)
      throw new AppError('RELEASE_BLOCKED_BY_CONTROL', 'A control of the template refused the release', { reason: out.refused });
    return result(out.moved.after, 'Release attested: the escrow is released on chain once its hold period has ended');
  }

  async function attestEarlyRelease(principal: Principal, id: string, body: ReleaseEarlyAttestBody): Promise<TransactionOperationResult> {
    const row = await load(principal, id);
    requireOrchestration(row, 'platform');
    // A consent hash already recorded for this party again (also once the release completed it): 200.
    if (body.txHash && (await repository.hasAttestation(sql, id, body.party, lower(body.txHash)))) {
      return {
        ...result(row, `The ${body.party}'s consent with this hash was already recorded: the transaction is ${row.status}`),
        earlyRelease: await repository.attestations(sql, id),
      };
    }
    if (row.status !== 'escrowed' && row.status !== 'in_review') {
      throw new AppError('INVALID_STATE_TRANSITION', `Cannot attest an early release of a transaction that is ${row.status}`, {
        status: row.status,
        action: 'release_early_attest',
        allowedFrom: ['escrowed', 'in_review'],
        allowedActions: actionsFrom(row.status),
      });
    }
    let txHash: Hash | null = null;
    if (body.txHash) {
      txHash = lower(body.txHash);
      const receipt = await receipts.receiptOf(row, txHash);
      receipts.requireEarlyReleaseConsent(row, receipt, body.party);
      await receipts.requireConfirmations(row, txHash, receipt);
    }
    await sql.begin((tx) => repository.recordAttestation(tx, id, body.party, txHash, txHash !== null));
    const earlyRelease = await repository.attestations(sql, id);
    const fresh = (await transactions.find(sql, id)) ?? row;
    return {
      ...result(
        fresh,
        earlyRelease.senderAttested && earlyRelease.receiverAttested
          ? 'Both parties consented: the escrow pays the receiver when both consents are on chain'
          : `The ${body.party}'s consent is recorded; the other party's is still needed`,
      ),
      earlyRelease,
    };
  }

  /** docs/settlement.md: a verified hash rescinds now; without one the request is recorded for the chain event. */
  async function rescind(
    principal: Principal,
    id: string,
    body: RescindBody,
  ): Promise<{ status: 200 | 202; body: TransactionOperationResult }> {
    const row = await load(principal, id);
    requireOrchestration(row, 'platform');
    // The hash that rescinded it (through this route or the chain event) again: 200, as submit-escrow-hash does.
    if (body.txHash && row.status === 'rescinded' && row.txHash === lower(body.txHash)) {
      return { status: 200, body: result(row, 'This rescind was already recorded: the transaction is rescinded') };
    }
    refuseUnless(row, 'rescind');
    const policy = (row.rescindPolicy ?? {}) as { allowed?: boolean; requiresReason?: boolean; deadline?: string };
    if (policy.allowed === false) throw new AppError('RESCIND_NOT_ALLOWED', "This transaction's rescind rules do not allow rescinding it");
    const reason = body.reason ?? null;
    if (policy.requiresReason && !reason) throw validationError([{ field: 'reason', reason: 'is required by the rescind rules' }]);

    if (body.txHash) {
      const hash = lower(body.txHash);
      const receipt = await receipts.receiptOf(row, hash);
      const rescinded = receipts.requireRescindLog(row, receipt);
      await receipts.requireConfirmations(row, hash, receipt);
      const chainId = chain.chainId(row.blockchainNetwork);
      const out = await sql.begin(async (tx) => {
        // The row lock before the message claim, in the CHAIN consumer's order: claiming first
        // deadlocked against the consumer applying the same EscrowRescinded (a 500 to the caller).
        const locked = await transactions.lock(tx, id, principal.platformId);
        if (locked && locked.status === 'rescinded' && locked.txHash === hash) return { after: locked };
        await repository.claimMessage(
          tx,
          {
            messageId: chainEventId(chainId, hash, rescinded.logIndex),
            eventId: chainEventId(chainId, hash, rescinded.logIndex),
            kind: 'escrow.rescinded',
            removed: false,
            network: row.blockchainNetwork,
            transactionId: id,
            source: 'api',
          },
          'applied',
          'rescind',
        );
        return moves.move(tx, {
          transactionId: id,
          platformId: principal.platformId,
          action: 'rescind',
          actor: actorOf(principal),
          reason,
          patch: { txHash: hash },
        });
      });
      return { status: 200, body: result(out.after, 'Rescinded on chain') };
    }

    const deadline = row.holdDeadline ?? policy.deadline ?? null;
    if (!deadline || Date.parse(deadline) <= Date.now()) {
      throw new AppError('HOLD_PERIOD_ENDED', 'The hold period is over: the sender can no longer rescind', { holdDeadline: deadline });
    }
    await sql.begin((tx) => repository.recordRescindRequest(tx, id, reason, actorOf(principal)));
    return {
      status: 202,
      body: result(
        row,
        `Rescind recorded: the sender calls rescind(${uuidToOnchainId(id)}) on ${row.escrowAddress} before ${deadline}; the transaction moves to rescinded when the chain confirms it`,
      ),
    };
  }

  async function refund(principal: Principal, id: string, body: RefundBody): Promise<TransactionOperationResult> {
    const row = await load(principal, id);
    requireOrchestration(row, 'platform');
    const out = await sql.begin(async (tx) => {
      const repeated = await repeatOf(tx, principal, id, 'refund');
      if (repeated) return { repeated };
      chain.requireAttester();
      const moved = await moves.move(tx, {
        transactionId: id,
        platformId: principal.platformId,
        action: 'refund',
        actor: actorOf(principal),
        reason: body.reason ?? null,
      });
      await enqueueSettlement(tx, { transactionId: id, kind: 'refund', refundBps: 10_000 });
      return { moved };
    });
    if (out.repeated) return result(out.repeated, 'The refund was already made: the funds are returned to the sender on chain');
    return result(out.moved.after, 'Refunded: the funds are returned to the sender on chain');
  }

  /** `resolve_for_receiver` -> release, `resolve_for_sender` -> refund with its share. */
  async function enqueueSettlement(
    tx: Queryable,
    input: { transactionId: string; kind: SettlementKind; refundBps?: number; notBefore?: string | null },
  ): Promise<void> {
    await repository.enqueue(tx, input);
  }

  return { submitHash, submitEscrowHash, attestRelease, attestEarlyRelease, rescind, refund, enqueueSettlement };
}

import { isDeepStrictEqual } from 'node:util';
import {
  AppError,
  type ChainEvent,
  type ChainEventOf,
  chainEventId,
  chainMessageId,
  DEFAULT_FINALITY,
  type FinalityLevel,
  finalityAtLeast,
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
import { holdfastEscrowAbi } from '@holdfast/contracts/escrow';
import { appendToOutboxSql, type Queryable, retryOnConflict, type Sql } from '@holdfast/db';
import { decodeEscrowLog, uuidToOnchainId } from '@holdfast/escrow';
import type { Logger } from '@holdfast/logging';
import { NonRetryableError, RetryableError } from '@holdfast/messaging';
import { decodeFunctionData, erc20Abi, getAddress, type Hash, parseEventLogs, type TransactionReceipt } from 'viem';
import { SCHEMA_NAME } from '../../db/pg-schema.js';
import type { Principal } from '../auth/index.js';
import { toBaseUnits } from '../money/index.js';
import {
  actionsFrom,
  isRepeatedRequest,
  nextStatus,
  TRANSACTION_MOVES,
  type TransactionAction,
  type TransactionMoves,
  type TransactionRow,
  type TransactionsRepository,
  toPaymentsTransaction,
  transactionEvent,
  transactionRef,
} from '../transactions/index.js';
import { type ChainAccess, sameAddress } from './chain.js';
import type { ChainOutcome, SettlementRepository } from './repository.js';

export interface SettlementDeps {
  sql: Sql;
  moves: TransactionMoves;
  transactions: TransactionsRepository;
  repository: SettlementRepository;
  chain: ChainAccess;
  logger: Logger;
  /** The template's `pre_release` controls (controls module): a refusal's reason, or null. */
  checkRelease?: (tx: Queryable, row: TransactionRow) => Promise<string | null>;
}

const PRE_ESCROW = ['pending', 'pending_user_action'] as const;
const actorOf = (principal: Pick<Principal, 'platformId'>) => `platform:${principal.platformId}`;
const lower = (hash: string) => hash.toLowerCase() as Hash;
const isoOfSeconds = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();

function mismatch(reason: string, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('CHAIN_RECEIPT_MISMATCH', message, { reason, ...details });
}

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

interface EscrowTerms {
  sender: string;
  receiver: string;
  token: string;
  amount: bigint;
  attester: string;
  /** Unix seconds, as the contract keeps it. */
  holdDeadline: bigint;
}

/**
 * The hold deadline the escrow of `row` must have (unix seconds), or null when any will do. A
 * transaction that states one was told to its sender (`escrow.holdDeadline` of the create answer,
 * a batch's `nextAction`): a shorter one lets the receiver be paid before the platform's hold ends,
 * a longer one keeps the receiver waiting past it. One without (a leg created before legs kept
 * theirs) accepts the chain's, as it always did.
 */
function expectedHoldDeadline(row: TransactionRow): bigint | null {
  return row.holdDeadline === null ? null : BigInt(Math.floor(Date.parse(row.holdDeadline) / 1000));
}

/**
 * The on-chain operations of a transaction and the application of CHAIN events. Every move goes
 * through `moves.move` (row lock, state machine, outbox event); an instruction for the attester key
 * (release, refund) is a `settlements` row written in the move's transaction.
 */
export function createSettlementService(deps: SettlementDeps) {
  const { sql, moves, transactions, repository, chain, logger } = deps;
  const log = logger.child({ component: 'settlement' });

  async function load(principal: Pick<Principal, 'platformId'>, id: string): Promise<TransactionRow> {
    const row = await transactions.find(sql, id, principal.platformId);
    if (!row) throw notFound('Transaction');
    return row;
  }

  function result(row: TransactionRow, message: string, success = true): TransactionOperationResult {
    return { success, message, transaction: toPaymentsTransaction(row) };
  }

  /** What the escrow of `row` must say: sender, receiver, token, amount (base units), our attester and the hold deadline. */
  function termsProblems(row: TransactionRow, terms: EscrowTerms): string[] {
    const problems: string[] = [];
    if (!sameAddress(terms.sender, row.fromAddress)) problems.push('sender');
    if (!sameAddress(terms.receiver, row.toAddress)) problems.push('receiver');
    if (!sameAddress(terms.token, chain.tokenAddress(row.blockchainNetwork, row.currency))) problems.push('token');
    if (toBaseUnits(row.amount) !== terms.amount) problems.push('amount');
    if (!sameAddress(terms.attester, chain.requireAttester())) problems.push('attester');
    const hold = expectedHoldDeadline(row);
    if (hold !== null && terms.holdDeadline !== hold) problems.push('holdDeadline');
    return problems;
  }

  async function receiptOf(row: TransactionRow, hash: Hash): Promise<TransactionReceipt> {
    const receipt = await chain.receipt(row.blockchainNetwork, hash);
    if (!receipt) {
      throw new AppError(
        'CHAIN_TRANSACTION_PENDING',
        `No receipt for ${hash} on ${row.blockchainNetwork} yet: submit it again once it is mined`,
        {
          txHash: hash,
          network: row.blockchainNetwork,
        },
      );
    }
    return receipt;
  }

  /**
   * A submitted hash moves a transaction only once `requiredConfirmations` blocks are on top of its
   * receipt's block, the depth at which the indexer publishes the same log (CHAIN_CONFIRMATIONS means
   * one thing everywhere): shallower, a reorg could take it away after the move.
   * Until then 409 CHAIN_TRANSACTION_PENDING, nothing changed; the indexer's CHAIN event (which waits
   * as long) moves it too.
   */
  async function requireConfirmations(row: TransactionRow, hash: Hash, receipt: TransactionReceipt): Promise<void> {
    const network = row.blockchainNetwork;
    const required = chain.requiredConfirmations(network);
    if (required === 0) return;
    const latest = await chain.latestBlock(network);
    const have = Math.max(0, Number(latest - receipt.blockNumber));
    if (have >= required) return;
    throw new AppError(
      'CHAIN_TRANSACTION_PENDING',
      `${hash} has ${have} of the ${required} confirmations ${network} needs: nothing changed; submit it again later (or wait: the transaction moves once the chain event arrives)`,
      { txHash: hash, network, confirmations: have, required },
    );
  }

  /**
   * A CHAIN message's level is a claim the chain must back before it counts (docs/chain.md,
   * levels): `confirmed` at the depth a submitted hash needs (`requiredConfirmations`), `safe` and
   * `finalized` at or below the RPC's tagged block; `seen` only needs the log (notOnChain). A
   * message that claims more than the chain shows yet (another indexer's settings, a publisher that
   * is not the indexer) comes again later (RetryableError: nak with a delay), unclaimed.
   */
  async function requireLevel(event: ChainEvent): Promise<void> {
    const claimed = event.finality ?? DEFAULT_FINALITY;
    if (claimed === 'seen') return;
    if (claimed === 'confirmed' && chain.requiredConfirmations(event.network) === 0) return;
    const now = await chain.levelOf(event.network, BigInt(event.blockNumber));
    if (finalityAtLeast(now.finality, claimed)) return;
    const required = chain.requiredConfirmations(event.network);
    throw new RetryableError(
      `chain event ${chainMessageId(event)} claims ${claimed}; the chain shows ${now.finality} (${now.confirmations} of the ${required} confirmations ${event.network} needs)`,
      claimed === 'confirmed' ? Math.min(30_000, 1_000 * Math.max(1, required - now.confirmations)) : 5_000,
    );
  }

  /**
   * Submitted hashes count at the transaction's level too: a lock at `confirmed` (today's
   * default) needs the confirmations, one at `safe` or `finalized` the chain's tagged block.
   * Until then 409 CHAIN_TRANSACTION_PENDING, nothing changed.
   */
  async function requireRequiredLevel(row: TransactionRow, hash: Hash, receipt: TransactionReceipt) {
    const required = row.requiredFinality ?? DEFAULT_FINALITY;
    if (required === 'confirmed' || required === 'seen') {
      if (required === 'confirmed') await requireConfirmations(row, hash, receipt);
      return chain.levelOf(row.blockchainNetwork, receipt.blockNumber);
    }
    const now = await chain.levelOf(row.blockchainNetwork, receipt.blockNumber);
    if (finalityAtLeast(now.finality, required)) return now;
    throw new AppError(
      'CHAIN_TRANSACTION_PENDING',
      `${hash} is ${now.finality} on ${row.blockchainNetwork}; this transaction counts once it is ${required}: nothing changed; submit it again later (or wait: the transaction moves once the chain event arrives)`,
      {
        txHash: hash,
        network: row.blockchainNetwork,
        finality: now.finality,
        requiredFinality: required,
        confirmations: now.confirmations,
      },
    );
  }

  /** Logs of the transaction's escrow event `eventName` for this id, emitted by `contract` (or any genuine escrow). */
  function escrowLogs<E extends 'EscrowCreated' | 'EscrowRescinded' | 'EarlyReleaseAttested'>(
    receipt: TransactionReceipt,
    eventName: E,
    id: string,
  ) {
    const onchainId = uuidToOnchainId(id).toLowerCase();
    return parseEventLogs({ abi: holdfastEscrowAbi, eventName, logs: receipt.logs }).filter(
      (l) => (l.args as { id: string }).id.toLowerCase() === onchainId,
    );
  }

  // ---------------------------------------------------------------- operations

  /** The genuine escrows' `TransferForwarded` logs of a receipt (a `pay`: the log names the transaction it pays). */
  async function forwardedLogs(network: string, receipt: TransactionReceipt) {
    const found = parseEventLogs({ abi: holdfastEscrowAbi, eventName: 'TransferForwarded', logs: receipt.logs });
    const genuine: typeof found = [];
    for (const l of found) if (await chain.isEscrowContract(network, l.address)) genuine.push(l);
    return genuine;
  }

  /** The log index under which a reverted transfer (it has no logs) is claimed in claimed_transfers. */
  const REVERTED_TRANSFER_LOG = -1;

  /**
   * Whether a reverted transaction was this transaction's transfer: its sender's `transfer` (or
   * `transferFrom` of its sender) of the token to its receiver for its amount, or its `pay`. Any
   * other reverted call to the token (an `approve`, a transfer elsewhere or of another amount) is
   * not: it must not fail this transaction.
   */
  async function isOwnRevertedTransfer(row: TransactionRow, hash: Hash, token: string): Promise<boolean> {
    const sent = await chain.transaction(row.blockchainNetwork, hash);
    if (!sent || !sameAddress(sent.from, row.fromAddress) || !sent.to) return false;
    if (sameAddress(sent.to, token)) {
      try {
        const call = decodeFunctionData({ abi: erc20Abi, data: sent.input });
        const amount = toBaseUnits(row.amount);
        if (call.functionName === 'transfer') return sameAddress(call.args[0], row.toAddress) && call.args[1] === amount;
        if (call.functionName === 'transferFrom')
          return sameAddress(call.args[0], row.fromAddress) && sameAddress(call.args[1], row.toAddress) && call.args[2] === amount;
        return false;
      } catch {
        return false;
      }
    }
    if (!(await chain.isEscrowContract(row.blockchainNetwork, sent.to))) return false;
    try {
      const call = decodeFunctionData({ abi: holdfastEscrowAbi, data: sent.input });
      return call.functionName === 'pay' && call.args[0].toLowerCase() === uuidToOnchainId(row.id).toLowerCase();
    } catch {
      return false;
    }
  }

  /**
   * Raw orchestration: the client's transfer, proven by its receipt (docs/settlement.md, ADR 45).
   * A `pay` through a genuine escrow logs `TransferForwarded` with the transaction's on-chain id:
   * that log is this transaction's and nobody else's. A plain ERC-20 `Transfer` names no
   * transaction; one inside another transaction's `pay` is that transaction's and is refused here.
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
    const amount = toBaseUnits(row.amount);
    const chainId = chain.chainId(network);
    const receipt = await receiptOf(row, hash);

    if (receipt.status === 'reverted') {
      if (!(await isOwnRevertedTransfer(row, hash, token))) {
        throw mismatch('not_this_transfer', "The reverted transaction is not a transfer of this transaction's token from its sender");
      }
      await requireConfirmations(row, hash, receipt);
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

    const sameTerms = (t: { sender: string; receiver: string; token: string; amount: bigint }) =>
      sameAddress(t.sender, row.fromAddress) &&
      sameAddress(t.receiver, row.toAddress) &&
      sameAddress(t.token, token) &&
      t.amount === amount;
    const onchainId = uuidToOnchainId(id).toLowerCase();
    const forwarded = await forwardedLogs(network, receipt);
    const tagged = forwarded.find((l) => l.args.id.toLowerCase() === onchainId);
    let logIndex: number;
    if (tagged) {
      if (!sameTerms(tagged.args)) {
        const problems = [
          ...(sameAddress(tagged.args.sender, row.fromAddress) ? [] : ['sender']),
          ...(sameAddress(tagged.args.receiver, row.toAddress) ? [] : ['receiver']),
          ...(sameAddress(tagged.args.token, token) ? [] : ['token']),
          ...(tagged.args.amount === amount ? [] : ['amount']),
        ];
        throw mismatch('terms_mismatch', `The forwarded transfer's ${problems.join(', ')} differ from the transaction`, {
          fields: problems,
        });
      }
      logIndex = tagged.logIndex;
    } else {
      // The Transfer of someone else's `pay` matches that transaction's terms: it is not this one's to claim.
      const taggedElsewhere = forwarded.find((l) => sameTerms(l.args));
      if (taggedElsewhere) {
        throw mismatch(
          'transfer_of_another_transaction',
          'This transfer was made with pay for another transaction (its TransferForwarded log names another id): it cannot complete this one',
          { onchainId: taggedElsewhere.args.id.toLowerCase(), expectedOnchainId: onchainId },
        );
      }
      const transfer = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs }).find((l) =>
        sameTerms({ sender: l.args.from, receiver: l.args.to, token: l.address, amount: l.args.value }),
      );
      if (!transfer) {
        throw mismatch(
          'no_matching_transfer',
          `The transaction holds no ${row.currency} transfer of ${row.amount} from the sender to the receiver`,
          {
            expected: { token, from: row.fromAddress, to: row.toAddress, amount: amount?.toString() ?? null },
          },
        );
      }
      logIndex = transfer.logIndex;
    }
    await requireConfirmations(row, hash, receipt);
    const out = await sql.begin(async (tx) => {
      const claim = { chainId, txHash: hash, logIndex, platformId: principal.platformId, transactionId: id, tagged: !!tagged };
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
    const receipt = await receiptOf(row, hash);
    if (receipt.status === 'reverted') throw mismatch('reverted', 'The escrow transaction reverted on chain');
    const created = escrowLogs(receipt, 'EscrowCreated', id);
    const genuine: typeof created = [];
    for (const l of created) if (await chain.isEscrowContract(network, l.address)) genuine.push(l);
    const log = genuine[0];
    if (!log)
      throw mismatch(
        'no_escrow_for_transaction',
        'The transaction created no escrow for this transaction id in a Holdfast escrow contract',
      );
    const problems = termsProblems(row, log.args);
    if (problems.length > 0) {
      throw mismatch('terms_mismatch', `The escrow's ${problems.join(', ')} differ from the transaction`, { fields: problems });
    }
    const level = await requireRequiredLevel(row, hash, receipt);
    const out = await retryOnConflict(() =>
      sql.begin(async (tx) => {
        const locked = await transactions.lock(tx, id, principal.platformId);
        if (locked && locked.status === 'escrowed' && locked.txHash === hash) return { after: locked };
        // The indexer's copy of this log is then a no-op, and its correction (a reorg) undoes this move.
        await repository.claimMessage(
          tx,
          {
            messageId: chainEventId(chainId, hash, log.logIndex),
            eventId: chainEventId(chainId, hash, log.logIndex),
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
            escrowAddress: getAddress(log.address),
            chainId,
            holdDeadline: isoOfSeconds(log.args.holdDeadline),
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

  /** The platform attests the release: in_review, and the attester key releases the escrow once its hold has ended. */
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

  /** A party's consent to an early release: recorded (verified when its `attestEarlyRelease` hash is given). */
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
      const receipt = await receiptOf(row, txHash);
      if (receipt.status === 'reverted') throw mismatch('reverted', 'The attestation reverted on chain');
      const party = body.party === 'sender' ? row.fromAddress : row.toAddress;
      const found = escrowLogs(receipt, 'EarlyReleaseAttested', id).some(
        (l) => sameAddress(l.address, row.escrowAddress) && sameAddress(l.args.party, party),
      );
      if (!found) throw mismatch('no_attestation', `The transaction holds no early-release consent of the ${body.party} for this escrow`);
      await requireConfirmations(row, txHash, receipt);
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

  /** The sender takes the funds back during the hold (docs/settlement.md): verified hash -> rescinded; else the request is recorded. */
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
      const receipt = await receiptOf(row, hash);
      if (receipt.status === 'reverted') throw mismatch('reverted', 'The rescind transaction reverted on chain');
      const log = escrowLogs(receipt, 'EscrowRescinded', id).find((l) => sameAddress(l.address, row.escrowAddress));
      if (!log) throw mismatch('no_rescind', "The transaction holds no rescind of this transaction's escrow");
      await requireConfirmations(row, hash, receipt);
      const chainId = chain.chainId(row.blockchainNetwork);
      const out = await sql.begin(async (tx) => {
        // The row lock before the message claim, in the CHAIN consumer's order: claiming first
        // deadlocked against the consumer applying the same EscrowRescinded (a 500 to the caller).
        const locked = await transactions.lock(tx, id, principal.platformId);
        if (locked && locked.status === 'rescinded' && locked.txHash === hash) return { after: locked };
        await repository.claimMessage(
          tx,
          {
            messageId: chainEventId(chainId, hash, log.logIndex),
            eventId: chainEventId(chainId, hash, log.logIndex),
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

  /** Full refund: refunded now (transaction.refunded), the attester key returns the funds on chain. */
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

  /**
   * Writes an on-chain instruction (in the caller's transaction): the disputes module calls it when a
   * resolution moves a transaction (`resolve_for_receiver` -> release, `resolve_for_sender` -> refund with its share).
   */
  async function enqueueSettlement(
    tx: Queryable,
    input: { transactionId: string; kind: SettlementKind; refundBps?: number; notBefore?: string | null },
  ): Promise<void> {
    await repository.enqueue(tx, input);
  }

  // ---------------------------------------------------------------- chain events

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
      const problems = termsProblems(row, {
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
   * Why a CHAIN message is not what the chain says, or undefined when it is: the receipt of its
   * transaction hash holds, at its log index and in its block, an escrow log that decodes to
   * exactly the message's payload. NATS is not trusted with money: whoever can publish on CHAIN
   * subjects (a stolen credential, a bug) still cannot move a transaction with made-up fields.
   */
  async function notOnChain(event: ChainEvent): Promise<string | undefined> {
    const receipt = await chain.receipt(event.network, event.transactionHash as Hash);
    const found = receipt?.logs.find((l) => l.logIndex === event.logIndex);
    if (!receipt || !found) return `no log ${event.logIndex} in transaction ${event.transactionHash} on ${event.network}`;
    if (receipt.status !== 'success') return 'its transaction reverted';
    let decoded: ReturnType<typeof decodeEscrowLog>;
    try {
      decoded = decodeEscrowLog(found, 0n, event.network, chain.chainId(event.network));
    } catch {
      return `log ${event.logIndex} of ${event.transactionHash} is not an escrow event`;
    }
    const { blockTimestamp: _decodedTime, ...onChain } = decoded;
    const {
      eventId: _id,
      removed: _removed,
      removedReason: _reason,
      blockTimestamp: _time,
      finality: _finality,
      confirmations: _confirmations,
      ...claimed
    } = event;
    return isDeepStrictEqual(onChain, claimed) ? undefined : `the message differs from log ${event.logIndex} of ${event.transactionHash}`;
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
    const offChain = await notOnChain(event);
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
    if (!event.removed) await requireLevel(event);
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

  return { submitHash, submitEscrowHash, attestRelease, attestEarlyRelease, rescind, refund, enqueueSettlement, handleChainEvent };
}
export type SettlementService = ReturnType<typeof createSettlementService>;

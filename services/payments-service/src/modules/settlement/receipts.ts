import { isDeepStrictEqual } from 'node:util';
import { AppError, type ChainEvent, chainMessageId, DEFAULT_FINALITY, type FinalityLevel, finalityAtLeast } from '@holdfast/contracts';
import { holdfastEscrowAbi } from '@holdfast/contracts/escrow';
import { decodeEscrowLog, uuidToOnchainId } from '@holdfast/escrow';
import { RetryableError } from '@holdfast/messaging';
import { type Address, decodeFunctionData, erc20Abi, type Hash, parseEventLogs, type TransactionReceipt } from 'viem';
import { toBaseUnits } from '../money/index.js';
import type { TransactionRow } from '../transactions/index.js';
import { type ChainAccess, sameAddress } from './chain.js';

/** The statuses before a transaction's escrow counts: what a lock (a submitted hash, a CHAIN event) moves from. */
export const PRE_ESCROW = ['pending', 'pending_user_action'] as const;

/** What an escrow says of itself (its `EscrowCreated` log, or the CHAIN event decoded from it). */
export interface EscrowTerms {
  sender: string;
  receiver: string;
  token: string;
  amount: bigint;
  attester: string;
  /** Unix seconds, as the contract keeps it. */
  holdDeadline: bigint;
}

/** Where a block stands on the chain now (docs/chain.md, levels). */
export interface ChainLevel {
  finality: FinalityLevel;
  confirmations: number;
}

/**
 * What the chain says of a submitted hash or a CHAIN message, checked before anything moves: the
 * receipt, the log it must hold, the terms of an escrow and the depth or level it has reached. A
 * check that fails throws the error the caller answers or the consumer acts on (409
 * CHAIN_RECEIPT_MISMATCH or CHAIN_TRANSACTION_PENDING; RetryableError for a CHAIN message). No
 * check writes: the operations and the CHAIN consumer move the transaction.
 */
export interface SettlementReceiptChecks {
  /** The receipt of `hash` on the transaction's network; 409 CHAIN_TRANSACTION_PENDING while it is not mined. */
  receiptOf: (row: TransactionRow, hash: Hash) => Promise<TransactionReceipt>;
  /** 409 CHAIN_TRANSACTION_PENDING until `requiredConfirmations` blocks are on top of the receipt's block. */
  requireConfirmations: (row: TransactionRow, hash: Hash, receipt: TransactionReceipt) => Promise<void>;
  /** The receipt's level, once it reached the transaction's `requiredFinality`; 409 CHAIN_TRANSACTION_PENDING before. */
  requireRequiredLevel: (row: TransactionRow, hash: Hash, receipt: TransactionReceipt) => Promise<ChainLevel>;
  /** The fields in which an escrow differs from the transaction (none: it is this transaction's escrow). */
  termsProblems: (row: TransactionRow, terms: EscrowTerms) => string[];
  /** A reverted `hash` is this transaction's own transfer (or `pay`); else 409 CHAIN_RECEIPT_MISMATCH. */
  requireOwnRevertedTransfer: (row: TransactionRow, hash: Hash, token: Address) => Promise<void>;
  /** The log of a successful receipt that is this transaction's transfer of `token`; else 409 CHAIN_RECEIPT_MISMATCH. */
  requireTransferLog: (row: TransactionRow, receipt: TransactionReceipt, token: Address) => Promise<{ logIndex: number; tagged: boolean }>;
  /** The genuine escrow the receipt created for this transaction, with its terms; else 409 CHAIN_RECEIPT_MISMATCH. */
  requireEscrowCreated: (
    row: TransactionRow,
    receipt: TransactionReceipt,
  ) => Promise<{ address: Address; logIndex: number; holdDeadline: bigint }>;
  /** The receipt holds the party's early-release consent in this transaction's escrow; else 409 CHAIN_RECEIPT_MISMATCH. */
  requireEarlyReleaseConsent: (row: TransactionRow, receipt: TransactionReceipt, party: 'sender' | 'receiver') => void;
  /** The rescind of this transaction's escrow the receipt holds; else 409 CHAIN_RECEIPT_MISMATCH. */
  requireRescindLog: (row: TransactionRow, receipt: TransactionReceipt) => { logIndex: number };
  /** Why a CHAIN message is not what the chain says, or undefined when it is. */
  notOnChain: (event: ChainEvent) => Promise<string | undefined>;
  /** A CHAIN message's level is backed by the chain; else RetryableError (it comes again later). */
  requireLevel: (event: ChainEvent) => Promise<void>;
}

function mismatch(reason: string, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('CHAIN_RECEIPT_MISMATCH', message, { reason, ...details });
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

/** Logs of the transaction's escrow event `eventName` for this id, emitted by any contract (the caller checks which). */
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

export function createSettlementReceiptChecks(deps: { chain: ChainAccess }): SettlementReceiptChecks {
  const { chain } = deps;

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
   * Submitted hashes count at the transaction's level too: a lock at `confirmed` (today's
   * default) needs the confirmations, one at `safe` or `finalized` the chain's tagged block.
   * Until then 409 CHAIN_TRANSACTION_PENDING, nothing changed.
   */
  async function requireRequiredLevel(row: TransactionRow, hash: Hash, receipt: TransactionReceipt): Promise<ChainLevel> {
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

  /** The genuine escrows' `TransferForwarded` logs of a receipt (a `pay`: the log names the transaction it pays). */
  async function forwardedLogs(network: string, receipt: TransactionReceipt) {
    const found = parseEventLogs({ abi: holdfastEscrowAbi, eventName: 'TransferForwarded', logs: receipt.logs });
    const genuine: typeof found = [];
    for (const l of found) if (await chain.isEscrowContract(network, l.address)) genuine.push(l);
    return genuine;
  }

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

  async function requireOwnRevertedTransfer(row: TransactionRow, hash: Hash, token: Address): Promise<void> {
    if (!(await isOwnRevertedTransfer(row, hash, token))) {
      throw mismatch('not_this_transfer', "The reverted transaction is not a transfer of this transaction's token from its sender");
    }
  }

  /**
   * Raw orchestration's proof (docs/settlement.md, ADR 45): a `pay` through a genuine escrow logs
   * `TransferForwarded` with the transaction's on-chain id: that log is this transaction's and
   * nobody else's. A plain ERC-20 `Transfer` names no transaction; one inside another
   * transaction's `pay` is that transaction's and is refused here.
   */
  async function requireTransferLog(
    row: TransactionRow,
    receipt: TransactionReceipt,
    token: Address,
  ): Promise<{ logIndex: number; tagged: boolean }> {
    const amount = toBaseUnits(row.amount);
    const sameTerms = (t: { sender: string; receiver: string; token: string; amount: bigint }) =>
      sameAddress(t.sender, row.fromAddress) &&
      sameAddress(t.receiver, row.toAddress) &&
      sameAddress(t.token, token) &&
      t.amount === amount;
    const onchainId = uuidToOnchainId(row.id).toLowerCase();
    const forwarded = await forwardedLogs(row.blockchainNetwork, receipt);
    const tagged = forwarded.find((l) => l.args.id.toLowerCase() === onchainId);
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
      return { logIndex: tagged.logIndex, tagged: true };
    }
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
    return { logIndex: transfer.logIndex, tagged: false };
  }

  /** Platform orchestration's proof: the `EscrowCreated` log of a genuine escrow for this id, with the transaction's terms. */
  async function requireEscrowCreated(
    row: TransactionRow,
    receipt: TransactionReceipt,
  ): Promise<{ address: Address; logIndex: number; holdDeadline: bigint }> {
    if (receipt.status === 'reverted') throw mismatch('reverted', 'The escrow transaction reverted on chain');
    const created = escrowLogs(receipt, 'EscrowCreated', row.id);
    const genuine: typeof created = [];
    for (const l of created) if (await chain.isEscrowContract(row.blockchainNetwork, l.address)) genuine.push(l);
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
    return { address: log.address, logIndex: log.logIndex, holdDeadline: log.args.holdDeadline };
  }

  function requireEarlyReleaseConsent(row: TransactionRow, receipt: TransactionReceipt, party: 'sender' | 'receiver'): void {
    if (receipt.status === 'reverted') throw mismatch('reverted', 'The attestation reverted on chain');
    const address = party === 'sender' ? row.fromAddress : row.toAddress;
    const found = escrowLogs(receipt, 'EarlyReleaseAttested', row.id).some(
      (l) => sameAddress(l.address, row.escrowAddress) && sameAddress(l.args.party, address),
    );
    if (!found) throw mismatch('no_attestation', `The transaction holds no early-release consent of the ${party} for this escrow`);
  }

  function requireRescindLog(row: TransactionRow, receipt: TransactionReceipt): { logIndex: number } {
    if (receipt.status === 'reverted') throw mismatch('reverted', 'The rescind transaction reverted on chain');
    const log = escrowLogs(receipt, 'EscrowRescinded', row.id).find((l) => sameAddress(l.address, row.escrowAddress));
    if (!log) throw mismatch('no_rescind', "The transaction holds no rescind of this transaction's escrow");
    return { logIndex: log.logIndex };
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

  return {
    receiptOf,
    requireConfirmations,
    requireRequiredLevel,
    termsProblems,
    requireOwnRevertedTransfer,
    requireTransferLog,
    requireEscrowCreated,
    requireEarlyReleaseConsent,
    requireRescindLog,
    notOnChain,
    requireLevel,
  };
}

import { type ChainEvent, type ChainEventKind, type Network, RELEASE_REASONS } from '@holdfast/contracts';
import { holdfastEscrowAbi } from '@holdfast/contracts/escrow';
import { type Address, decodeEventLog, getAddress, type Hex } from 'viem';
import { onchainIdToUuid } from './ids.js';

/** A log as both the indexer (eth_getLogs) and payments (a receipt) read it. */
export interface EscrowLog {
  address: Address;
  topics: Hex[] | readonly Hex[];
  data: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  transactionHash: Hex;
  logIndex: number;
}

/** A log that is not one of the escrow contract's events as we know them: never published, counted and logged. */
export class UndecodableLogError extends Error {
  override readonly name = 'UndecodableLogError';
}

/** A decoded event before it gets its id (which depends on what was published before). */
export type DecodedEvent = Omit<ChainEvent, 'eventId' | 'removed' | 'removedReason'>;

const KIND_OF_EVENT: Record<string, ChainEventKind> = {
  EscrowCreated: 'escrow.created',
  BatchCreated: 'escrow.batch-created',
  EscrowReleased: 'escrow.released',
  EscrowRescinded: 'escrow.rescinded',
  EscrowRefunded: 'escrow.refunded',
  EarlyReleaseAttested: 'escrow.early-release-attested',
  EscrowFrozen: 'escrow.frozen',
};

/**
 * The escrow events the CHAIN stream carries: the lifecycle of an escrow. `TransferForwarded` (a `pay`,
 * no escrow) is not one of them: payments reads it from the receipt of a submitted hash (docs/settlement.md).
 */
export const ESCROW_LIFECYCLE_EVENTS: readonly string[] = Object.keys(KIND_OF_EVENT);

const MAX_DATE_SECONDS = 8_640_000_000_000n;

function isoOf(seconds: bigint): string {
  if (seconds > MAX_DATE_SECONDS) throw new UndecodableLogError(`time ${seconds} is beyond what a date can hold`);
  return new Date(Number(seconds) * 1000).toISOString();
}

/**
 * One escrow log as a CHAIN payload: the contract's arguments with checksummed addresses, amounts as
 * base-unit decimal strings, times as ISO 8601, and the transaction UUID mapped back from the on-chain id.
 * The indexer publishes what it decodes; payments decodes a receipt's log again to check a CHAIN
 * message against the chain before it moves money.
 */
export function decodeEscrowLog(log: EscrowLog, blockTimestamp: bigint, network: Network, chainId: number): DecodedEvent {
  let decoded: ReturnType<typeof decodeEventLog<typeof holdfastEscrowAbi>>;
  try {
    decoded = decodeEventLog({ abi: holdfastEscrowAbi, data: log.data, topics: log.topics as [Hex, ...Hex[]], strict: true });
  } catch (error) {
    throw new UndecodableLogError(`not an escrow event: ${(error as Error).message.split('\n')[0]}`, { cause: error });
  }
  const kind = KIND_OF_EVENT[decoded.eventName];
  if (!kind) throw new UndecodableLogError(`unknown event ${decoded.eventName}`);
  const args = decoded.args as Record<string, unknown>;
  const escrowId = ((args.id ?? args.firstId) as Hex).toLowerCase() as Hex;
  let transactionId: string;
  try {
    transactionId = onchainIdToUuid(escrowId);
  } catch (error) {
    throw new UndecodableLogError(`escrow id ${escrowId} is not a transaction UUID`, { cause: error });
  }
  const address = (name: string) => getAddress(args[name] as string);
  const units = (name: string) => (args[name] as bigint).toString();
  const common = {
    network,
    chainId,
    contractAddress: getAddress(log.address),
    blockNumber: Number(log.blockNumber),
    blockHash: log.blockHash.toLowerCase(),
    blockTimestamp: isoOf(blockTimestamp),
    transactionHash: log.transactionHash.toLowerCase(),
    logIndex: log.logIndex,
    escrowId,
    transactionId,
  };
  switch (decoded.eventName) {
    case 'EscrowCreated':
      return {
        ...common,
        kind: 'escrow.created',
        data: {
          sender: address('sender'),
          receiver: address('receiver'),
          token: address('token'),
          amount: units('amount'),
          attester: address('attester'),
          holdDeadline: isoOf(args.holdDeadline as bigint),
          expiresAt: isoOf(args.expiresAt as bigint),
        },
      };
    case 'BatchCreated':
      return {
        ...common,
        kind: 'escrow.batch-created',
        data: { sender: address('sender'), token: address('token'), legCount: Number(args.legCount), total: units('total') },
      };
    case 'EscrowReleased': {
      const reason = RELEASE_REASONS[Number(args.reason)];
      if (!reason) throw new UndecodableLogError(`unknown release reason ${String(args.reason)}`);
      return {
        ...common,
        kind: 'escrow.released',
        data: { receiver: address('receiver'), by: address('by'), amount: units('amount'), reason },
      };
    }
    case 'EscrowRescinded':
      return { ...common, kind: 'escrow.rescinded', data: { sender: address('sender'), amount: units('amount') } };
    case 'EscrowRefunded':
      return {
        ...common,
        kind: 'escrow.refunded',
        data: {
          sender: address('sender'),
          receiver: address('receiver'),
          refundedToSender: units('refundedToSender'),
          paidToReceiver: units('paidToReceiver'),
          refundBps: Number(args.refundBps),
        },
      };
    case 'EarlyReleaseAttested':
      return { ...common, kind: 'escrow.early-release-attested', data: { party: address('party') } };
    case 'EscrowFrozen':
      return { ...common, kind: 'escrow.frozen', data: { attester: address('attester'), expiresAt: isoOf(args.expiresAt as bigint) } };
    default:
      throw new UndecodableLogError('unknown event');
  }
}

import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { DateTime, type FinalityLevel, FinalityLevelSchema, NetworkSchema, StringEnum, Uuid } from '../common/domain.js';

/**
 * The CHAIN stream's contract: one message per decoded escrow contract event, published by the
 * chain-indexer to `chain.<network>.<kind>` (`chainSubject`), and one correction per published event
 * whose block left the chain (a reorg, or a local chain that was reset). docs/chain.md explains the
 * guarantees; the shapes are here.
 */

/** What happened on chain; the subject's last tokens. */
export const CHAIN_EVENT_KINDS = [
  /** `EscrowCreated`: funds locked for one transaction or batch leg -> `escrowed`. */
  'escrow.created',
  /** `BatchCreated`: one `createBatch` call locked its legs (each has its own `escrow.created` before this). */
  'escrow.batch-created',
  /** `EscrowReleased`: the receiver was paid -> `completed`. */
  'escrow.released',
  /** `EscrowRescinded`: the sender took the funds back during the hold -> `rescinded`. */
  'escrow.rescinded',
  /** `EscrowRefunded`: the attester split the funds (a dispute outcome or a full refund) -> `refunded`. */
  'escrow.refunded',
  /** `EarlyReleaseAttested`: the sender or the receiver consented to an early release. */
  'escrow.early-release-attested',
  /** `EscrowFrozen`: the attester froze the escape (a dispute); `expiresAt` is the new expiry. */
  'escrow.frozen',
] as const;
export type ChainEventKind = (typeof CHAIN_EVENT_KINDS)[number];
export const ChainEventKindSchema = StringEnum(CHAIN_EVENT_KINDS);

/** Why the payee was paid in an `escrow.released` event (`HoldfastEscrow.ReleaseReason`). */
export const RELEASE_REASONS = ['release', 'early_release', 'expiry'] as const;
export type ReleaseReasonName = (typeof RELEASE_REASONS)[number];

/** Why a correction (`removed: true`) was published. */
export const REMOVAL_REASONS = ['reorg', 'chain_reset'] as const;

/** An EVM address, EIP-55 checksummed as the indexer publishes it (compare case-insensitively). */
export const EvmAddress = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'EVM address, EIP-55 checksummed.' });
/** A 32-byte hash or word, lower-case hex. */
export const Hex32 = Type.String({ pattern: '^0x[0-9a-f]{64}$', description: '32 bytes, lower-case hex.' });
/** A token amount in the token's base units (MockUSDC and USDC: 6 decimals), as a decimal string. */
export const BaseUnits = Type.String({ pattern: '^(0|[1-9][0-9]*)$', description: 'Amount in base units of the token, decimal string.' });

/** `<chainId>:<transactionHash>:<logIndex>`, plus `:<n>` for the n-th (n >= 2) appearance of that log after corrections. */
export const CHAIN_EVENT_ID_PATTERN = '^[1-9][0-9]*:0x[0-9a-f]{64}:(0|[1-9][0-9]*)(:[2-9]|:[1-9][0-9]+)?$';

/**
 * The id of a decoded log: chain id, transaction hash and log index. When a reorg drops the block
 * and the same log (same transaction, same index) is mined again, its new appearance is a new event
 * (`occurrence` 2, 3, ...), so it is not mistaken for the copy JetStream already holds.
 */
export function chainEventId(chainId: number, transactionHash: string, logIndex: number, occurrence = 1): string {
  const base = `${chainId}:${transactionHash.toLowerCase()}:${logIndex}`;
  return occurrence > 1 ? `${base}:${occurrence}` : base;
}

/**
 * The `Nats-Msg-Id` of a CHAIN message: the event id at `confirmed` (or without a level: a message
 * of an indexer before levels), `<eventId>@<level>` at any other level (the same event published
 * again as its finality rises, which JetStream would otherwise drop as a duplicate), and
 * `<eventId>:removed` for its correction (one per event, whatever level it had reached).
 */
export function chainMessageId(event: { eventId: string; removed: boolean; finality?: FinalityLevel | undefined }): string {
  if (event.removed) return `${event.eventId}:removed`;
  return event.finality === undefined || event.finality === 'confirmed' ? event.eventId : `${event.eventId}@${event.finality}`;
}

const common = {
  eventId: Type.String({
    pattern: CHAIN_EVENT_ID_PATTERN,
    description: 'Id of the on-chain event (chainEventId); a correction carries the id of the event it withdraws.',
  }),
  removed: Type.Boolean({
    description:
      'false: the event happened. true: a correction, the event `eventId` (published before, same payload otherwise) is no longer on the chain; undo what it did.',
  }),
  removedReason: Type.Optional(StringEnum(REMOVAL_REASONS, { description: 'Only on corrections: a reorg, or a local chain reset.' })),
  network: NetworkSchema,
  chainId: Type.Integer({ minimum: 1 }),
  /** The escrow contract that emitted the event: the `escrowAddress` of `transaction.escrowed`. */
  contractAddress: EvmAddress,
  blockNumber: Type.Integer({ minimum: 0 }),
  blockHash: Hex32,
  blockTimestamp: DateTime,
  /**
   * How final the event's block was when this message was published (docs/chain.md, levels): the
   * indexer publishes an event when it is seen and again each time its level rises. Absent on
   * messages of an indexer before levels: read as `confirmed`. On a correction: the level the
   * withdrawn event had reached.
   */
  finality: Type.Optional(FinalityLevelSchema),
  /** Blocks on top of the event's block when this message was published (0: the head). */
  confirmations: Type.Optional(Type.Integer({ minimum: 0 })),
  /** The `txHash` of `transaction.escrowed` (and of the other transaction events). */
  transactionHash: Hex32,
  logIndex: Type.Integer({ minimum: 0, description: 'Index of the log in its block.' }),
  /** The on-chain id: the transaction's (or leg's) UUID left-padded to bytes32. */
  escrowId: Hex32,
  /** The Holdfast transaction (or batch leg) id, mapped back from `escrowId`; for `escrow.batch-created`, the first leg's. */
  transactionId: Uuid,
};

function chainEventOf<K extends ChainEventKind, D extends TSchema>(kind: K, data: D) {
  return Type.Object({ ...common, kind: Type.Literal(kind), data }, { additionalProperties: false });
}

/** The `data` of each kind: the event's own arguments, addresses checksummed, amounts in base units, times ISO 8601. */
export const CHAIN_EVENT_DATA = {
  'escrow.created': Type.Object(
    {
      sender: EvmAddress,
      receiver: EvmAddress,
      token: EvmAddress,
      amount: BaseUnits,
      attester: EvmAddress,
      /** Until then the sender may rescind; the epoch (1970) or any past time means no hold. */
      holdDeadline: DateTime,
      /** From then on anyone may pay the receiver (the escape). */
      expiresAt: DateTime,
    },
    { additionalProperties: false },
  ),
  'escrow.batch-created': Type.Object(
    { sender: EvmAddress, token: EvmAddress, legCount: Type.Integer({ minimum: 1 }), total: BaseUnits },
    { additionalProperties: false },
  ),
  'escrow.released': Type.Object(
    { receiver: EvmAddress, by: EvmAddress, amount: BaseUnits, reason: StringEnum(RELEASE_REASONS) },
    { additionalProperties: false },
  ),
  'escrow.rescinded': Type.Object({ sender: EvmAddress, amount: BaseUnits }, { additionalProperties: false }),
  'escrow.refunded': Type.Object(
    {
      sender: EvmAddress,
      receiver: EvmAddress,
      refundedToSender: BaseUnits,
      paidToReceiver: BaseUnits,
      /** Basis points refunded to the sender: 10000 is a full refund, 0 all to the receiver. */
      refundBps: Type.Integer({ minimum: 0, maximum: 10_000 }),
    },
    { additionalProperties: false },
  ),
  'escrow.early-release-attested': Type.Object({ party: EvmAddress }, { additionalProperties: false }),
  'escrow.frozen': Type.Object({ attester: EvmAddress, expiresAt: DateTime }, { additionalProperties: false }),
} as const satisfies Record<ChainEventKind, TSchema>;

export type ChainEventData<K extends ChainEventKind> = Static<(typeof CHAIN_EVENT_DATA)[K]>;

const ChainEventCommon = Type.Object(common);
type ChainEventCommon = Static<typeof ChainEventCommon>;
/** A CHAIN message: a discriminated union on `kind`, which narrows `data`. */
export type ChainEvent = { [K in ChainEventKind]: ChainEventCommon & { kind: K; data: ChainEventData<K> } }[ChainEventKind];
export type ChainEventOf<K extends ChainEventKind> = Extract<ChainEvent, { kind: K }>;

/** The payload of every message on the CHAIN stream. */
export const ChainEvent = Type.Unsafe<ChainEvent>(
  Type.Union(
    CHAIN_EVENT_KINDS.map((kind) => chainEventOf(kind, CHAIN_EVENT_DATA[kind])),
    {
      $id: 'ChainEvent',
      examples: [
        {
          eventId: '84532:0x8f2a5c0e7b1d4a6e9c3f0b2d5e8a1c4f7b0e3d6a9c2f5b8e1d4a7c0f3b6e9d2a:0',
          removed: false,
          network: 'base-sepolia',
          finality: 'confirmed',
          confirmations: 15,
          chainId: 84532,
          contractAddress: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
          blockNumber: 12,
          blockHash: '0x3d6a9c2f5b8e1d4a7c0f3b6e9d2a8f2a5c0e7b1d4a6e9c3f0b2d5e8a1c4f7b0e',
          blockTimestamp: '2026-11-21T10:00:00.000Z',
          transactionHash: '0x8f2a5c0e7b1d4a6e9c3f0b2d5e8a1c4f7b0e3d6a9c2f5b8e1d4a7c0f3b6e9d2a',
          logIndex: 0,
          escrowId: '0x000000000000000000000000000000002b1d5e9e7c1f4d3a9a632f7a1f0c9e11',
          transactionId: '2b1d5e9e-7c1f-4d3a-9a63-2f7a1f0c9e11',
          kind: 'escrow.created',
          data: {
            sender: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
            receiver: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
            token: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
            amount: '25000000',
            attester: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
            holdDeadline: '2026-11-22T10:00:00.000Z',
            expiresAt: '2027-05-21T10:00:00.000Z',
          },
        },
      ],
    },
  ),
);

import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../common/domain.js';
import { PaymentsTransaction } from './transactions.js';

/*
 * Payments API: the on-chain operations of a transaction (spec "named only"; the designs are in
 * docs/settlement.md). Submit hash (raw), submit escrow hash, release attest, early-release attest,
 * rescind and refund; the same bodies and answers on v1 and v2.
 */

const strict = { additionalProperties: false } as const;
/** A transaction hash: 0x and 64 hex digits (any case; stored lower-case). */
export const TxHash = Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'An EVM transaction hash: 0x and 64 hex digits.' });
/** An optional TxHash field that says which transaction it is. */
const txHashField = (description: string) => Type.Optional(Type.Unsafe<string>({ ...TxHash, description }));

/** POST /transactions/{id}/hash (v1 submit-hash): the client's direct ERC-20 transfer (raw orchestration). */
export const SubmitHashBody = Type.Object({ txHash: TxHash }, strict);
export type SubmitHashBody = Static<typeof SubmitHashBody>;

/** POST /transactions/{id}/escrow-hash (v1 submit-escrow-hash): the `createEscrow`/`createBatch` transaction (platform orchestration). */
export const SubmitEscrowHashBody = Type.Object({ transactionHash: TxHash }, strict);
export type SubmitEscrowHashBody = Static<typeof SubmitEscrowHashBody>;

export const EARLY_RELEASE_PARTIES = ['sender', 'receiver'] as const;
export type EarlyReleaseParty = (typeof EARLY_RELEASE_PARTIES)[number];

/** POST /transactions/{id}/release-early/attest (v1 release-early/authorize and release-early/attest). */
export const ReleaseEarlyAttestBody = Type.Object(
  {
    party: StringEnum(EARLY_RELEASE_PARTIES, { description: 'Which party consents to the early release.' }),
    txHash: txHashField(
      "The party's `attestEarlyRelease(id)` transaction: verified on chain when given (the consent then counts as verified).",
    ),
  },
  strict,
);
export type ReleaseEarlyAttestBody = Static<typeof ReleaseEarlyAttestBody>;

/** POST /transactions/{id}/rescind. */
export const RescindBody = Type.Object(
  {
    reason: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'Required when the rescind rules say `requiresReason`.' }),
    ),
    txHash: txHashField(
      "The sender's `rescind(id)` transaction: verified on chain, the transaction moves to rescinded at once. Without it the request is recorded and the move waits for the chain.",
    ),
  },
  strict,
);
export type RescindBody = Static<typeof RescindBody>;

/** POST /transactions/{id}/refund. */
export const RefundBody = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Carried by transaction.refunded.' })) },
  strict,
);
export type RefundBody = Static<typeof RefundBody>;

/** What the early-release consents recorded so far are. */
export const EarlyReleaseState = Type.Object(
  {
    senderAttested: Type.Boolean(),
    receiverAttested: Type.Boolean(),
  },
  strict,
);

/** The answer of every on-chain operation: the Workspace API's `{success, message, transaction}` shape. */
export const TransactionOperationResult = Type.Object(
  {
    success: Type.Boolean(),
    message: Type.String(),
    transaction: PaymentsTransaction,
    earlyRelease: Type.Optional(EarlyReleaseState),
  },
  { $id: 'TransactionOperationResult' },
);
export type TransactionOperationResult = Static<typeof TransactionOperationResult>;

/**
 * The on-chain instructions the settlement worker executes with the attester key: `freeze` when a
 * dispute opens (the expiry escape stays closed while it is decided), then `release` or `refund`.
 */
export const SETTLEMENT_KINDS = ['release', 'refund', 'freeze'] as const;
export type SettlementKind = (typeof SETTLEMENT_KINDS)[number];

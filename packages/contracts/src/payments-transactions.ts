import { type Static, type TSchema, Type } from '@sinclair/typebox';
import {
  CurrencySchema,
  DateTime,
  DecimalString,
  Metadata,
  NetworkSchema,
  ORCHESTRATION_TYPES,
  StringEnum,
  TransactionStatusSchema,
  Uuid,
} from './domain.js';

/*
 * Payments API: the transaction record and what every transaction operation shares. The
 * operations' own bodies and answers sit next to their module's contract; this file is the record.
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const OrchestrationTypeSchema = StringEnum(ORCHESTRATION_TYPES, {
  description: '`raw`: a direct transfer the client submits (submit-hash). `platform`: held in the escrow contract.',
});
export const SIGNER_TYPES = ['custodial', 'external_wallet'] as const;
export type SignerType = (typeof SIGNER_TYPES)[number];
export const SignerTypeSchema = StringEnum(SIGNER_TYPES);

/** The `rescind` object of a created transaction (spec "Transaction"). */
export const RescindInfo = Type.Object(
  {
    allowed: Type.Boolean({ description: 'Whether the sender may rescind this transaction once escrowed.' }),
    deadline: DateTime,
    requiresReason: Type.Boolean(),
    notifyRecipient: Type.Boolean(),
  },
  { description: 'Rescind rules: the sender may take escrowed funds back until `deadline` (the hold period).' },
);
export type RescindInfo = Static<typeof RescindInfo>;

/**
 * A transaction as the Payments API returns it. `amount` is an exact decimal string (the create
 * body takes a number, as the spec says; answers never round-trip money through floating point).
 */
export const PaymentsTransaction = Type.Object(
  {
    id: Uuid,
    platformId: Uuid,
    status: TransactionStatusSchema,
    amount: DecimalString,
    currency: CurrencySchema,
    fromAddress: Type.String(),
    toAddress: Type.String(),
    blockchainNetwork: NetworkSchema,
    chainId: Nullable(Type.Integer()),
    orchestrationType: OrchestrationTypeSchema,
    signerType: Nullable(SignerTypeSchema),
    customerId: Nullable(Type.String()),
    templateId: Nullable(Uuid),
    batchId: Nullable(Uuid),
    quoteId: Nullable(Uuid),
    feeAmount: Nullable(DecimalString),
    billingConfig: Nullable(Type.Record(Type.String(), Type.Unknown())),
    txHash: Nullable(Type.String()),
    escrowAddress: Nullable(Type.String()),
    holdDeadline: Nullable(DateTime),
    failureReason: Nullable(Type.String()),
    idempotencyKey: Nullable(Type.String()),
    metadata: Metadata,
    rescind: Type.Optional(RescindInfo),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'PaymentsTransaction' },
);
export type PaymentsTransaction = Static<typeof PaymentsTransaction>;

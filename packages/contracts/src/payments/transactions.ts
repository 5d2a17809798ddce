import { type Static, type TSchema, Type } from '@sinclair/typebox';
import {
  ChainAddress,
  CurrencySchema,
  DateTime,
  DecimalString,
  FINALITY_LEVELS,
  FinalityLevelSchema,
  Metadata,
  NetworkSchema,
  ORCHESTRATION_TYPES,
  StringEnum,
  TRANSACTION_STATUSES,
  TransactionStatusSchema,
  Uuid,
} from '../common/domain.js';
import { eachOf, Nullable, TransferFields } from '../common/fragments.js';
import { PaginationMeta } from '../common/pagination.js';
import { EmbeddedTemplate } from './controls.js';

/*
 * Payments API: the transaction record and what every transaction operation shares. The
 * operations' own bodies and answers sit next to their module's contract; this file is the record.
 */

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
 * Where the transaction's escrow stands on chain (docs/chain.md, levels): the level its lock reached,
 * the confirmations and the block, null until the chain shows a lock; and the level at which the
 * transaction counts (`escrowed`), fixed at creation from the request's `finality`, the platform's
 * `settings.finality` and its threshold.
 */
const nullableWith = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });
export const ChainFinalityFields = {
  finality: Type.Optional(
    nullableWith(
      FinalityLevelSchema,
      "The level the escrow's lock reached: seen, confirmed, safe or finalized; null before the chain shows it.",
    ),
  ),
  confirmations: Type.Optional(
    nullableWith(Type.Integer({ minimum: 0 }), "Blocks on top of the lock's block when its level was last recorded."),
  ),
  blockNumber: Type.Optional(nullableWith(Type.Integer({ minimum: 0 }), 'The block holding the lock.')),
  blockHash: Type.Optional(nullableWith(Type.String(), 'The hash of that block.')),
  requiredFinality: Type.Optional(
    nullableWith(
      FinalityLevelSchema,
      'The level at which the transaction becomes `escrowed` (and release, refund and disputes may act); null: `confirmed`.',
    ),
  ),
};

/**
 * A platform's rule for when money counts (`settings.finality` of the platform, docs/transactions.md):
 * the level a transaction needs unless its create says otherwise (default `confirmed`), and a
 * threshold: a transaction of more than `threshold.amountAbove` (in its own currency) needs at least
 * `threshold.finality`, whatever its create says.
 */
export const PlatformFinality = Type.Object(
  {
    defaultFinality: Type.Optional(FinalityLevelSchema),
    threshold: Type.Optional(
      Type.Object(
        {
          amountAbove: Type.String({ pattern: '^\\d+(\\.\\d+)?$', maxLength: 40, description: 'A non-negative decimal string.' }),
          finality: FinalityLevelSchema,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type PlatformFinality = Static<typeof PlatformFinality>;

/**
 * A transaction as the Payments API returns it. `amount` is an exact decimal string (the create
 * body takes a number, as the spec says; answers never round-trip money through floating point).
 */
export const PaymentsTransaction = Type.Object(
  {
    id: Uuid,
    platformId: Uuid,
    status: TransactionStatusSchema,
    ...TransferFields,
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
    ...ChainFinalityFields,
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

// ------------------------------------------------------------------ create

const BILLING_FEE_TYPES = ['percentage', 'fixed'] as const;
export type BillingFeeType = (typeof BILLING_FEE_TYPES)[number];

/** An amount as the spec sends it (a JSON number); an exact decimal string is accepted too. */
const AmountInput = Type.Union([Type.Number(), Type.String({ maxLength: 40 })], {
  description:
    "Between 0.01 and 1,000,000, at most the currency's decimals (6; ETH 18). A JSON number (as the spec says; at most 15 significant digits, read from the digits sent) or a decimal string (exact). Never rounded: anything else is 400 naming the field.",
});

/** `billingConfig` of a create or quote body (spec: feeType, feePercentage, feeWalletAddress, currency, isActive). */
export const BillingConfig = Type.Object(
  {
    feeType: Type.Optional(StringEnum(BILLING_FEE_TYPES, { description: '`percentage` of the amount, or a `fixed` fee.' })),
    feePercentage: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.String({ maxLength: 40 })])),
    fixedFee: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.String({ maxLength: 40 })])),
    feeWalletAddress: Type.Optional(ChainAddress),
    currency: Type.Optional(CurrencySchema),
    isActive: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type BillingConfig = Static<typeof BillingConfig>;

/**
 * A key a client library made up for its own retries (`auto_<uuid>`), not one the caller chose: it
 * replays like any key, but the duplicate window still applies to it (docs/transactions.md,
 * Duplicate detection), so an SDK user sending the same body twice gets 409 as a curl user does.
 */
export const AUTOMATIC_IDEMPOTENCY_KEY_PREFIX = 'auto_';
export type AutomaticIdempotencyKeyPrefix = typeof AUTOMATIC_IDEMPOTENCY_KEY_PREFIX;
export function isAutomaticIdempotencyKey(key: string): boolean {
  return key.startsWith(AUTOMATIC_IDEMPOTENCY_KEY_PREFIX);
}

export const IdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x21-\\x7E]+$',
  description:
    'Same key, same answer (the first result is replayed). A key starting with `auto_` is one a client library made for its own retries: it replays too, but the duplicate window still applies.',
});

/** The `Idempotency-Key` header of an operation the service keeps keys for (`idempotent: true` in the catalogue). */
const OperationIdempotencyKey: typeof IdempotencyKey = {
  ...IdempotencyKey,
  description:
    'Optional. The first success under this key is replayed (`Idempotent-Replayed: true`) to every retry for 24 hours; the key with other parameters is 422 IDEMPOTENCY_KEY_REUSED, while its first request runs 409 IDEMPOTENCY_KEY_IN_USE.',
};
export const OperationIdempotencyHeaders = Type.Object({ 'idempotency-key': Type.Optional(OperationIdempotencyKey) });

/** POST /transactions headers: the idempotency key may come as a header instead of the body field. */
const IdempotencyKeyHeader: typeof IdempotencyKey = {
  ...IdempotencyKey,
  description: 'Same as the body field `idempotencyKey` (send one, or the same).',
};
export const CreateTransactionHeaders = Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader) });

/** POST /transactions (spec "Create transaction body"). */
export const CreateTransactionBody = Type.Object(
  {
    fromAddress: Type.String({ ...ChainAddress, description: `Sender address. ${ChainAddress.description}` }),
    toAddress: Type.String({ ...ChainAddress, description: `Receiver address. ${ChainAddress.description}` }),
    amount: AmountInput,
    currency: Type.Optional(CurrencySchema),
    blockchainNetwork: Type.Optional(NetworkSchema),
    orchestrationType: Type.Optional(OrchestrationTypeSchema),
    templateId: Type.Optional(Uuid),
    contractTemplateId: Type.Optional(Uuid),
    template: Type.Optional(EmbeddedTemplate),
    metadata: Type.Optional(Metadata),
    billingConfig: Type.Optional(BillingConfig),
    quoteId: Type.Optional(Uuid),
    signerType: Type.Optional(SignerTypeSchema),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    idempotencyKey: Type.Optional(IdempotencyKey),
    finality: Type.Optional(
      StringEnum(FINALITY_LEVELS, {
        description:
          "When the transaction counts (becomes `escrowed`): replaces the platform's `settings.finality.defaultFinality` (default `confirmed`); an amount above the platform's threshold still needs at least the threshold's level.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateTransactionBody = Static<typeof CreateTransactionBody>;

/** The answer of a create: the record with its `rescind` rules. */
/** Where a `platform` transaction's funds go on chain: this deployment's shared escrow, token and attester for the network. */
export const EscrowTerms = Type.Object({
  contractAddress: Nullable(
    Type.String({ description: 'The escrow contract (ESCROW_CONTRACTS); null when none is configured for the network.' }),
  ),
  tokenAddress: Nullable(Type.String({ description: 'The ERC-20 of the currency (TOKEN_CONTRACTS); null when none is configured.' })),
  attester: Nullable(
    Type.String({
      description: "Payments' attester, the address the escrow must name to be released or refunded; null when none is configured.",
    }),
  ),
});
export type EscrowTerms = Static<typeof EscrowTerms>;

/** What the sender's wallet signs for a `platform` transaction (docs/settlement.md). */
export const EscrowInstructions = Type.Object(
  {
    ...EscrowTerms.properties,
    onchainId: Type.String({ pattern: '^0x[0-9a-f]{64}$', description: 'The escrow id: the transaction id as bytes32.' }),
    amountBaseUnits: Nullable(Type.String({ pattern: '^[0-9]+$', description: 'The amount in the token’s units (6 decimals).' })),
    holdDeadline: Type.Integer({ minimum: 0, description: 'Unix seconds: the sender may rescind until then.' }),
  },
  {
    description:
      'Approve `tokenAddress` for `amountBaseUnits` to `contractAddress`, then call `createEscrow(onchainId, toAddress, tokenAddress, amountBaseUnits, attester, holdDeadline)`. The transaction moves to `escrowed` when the chain shows it (or when its hash is submitted to escrow-hash).',
  },
);
export type EscrowInstructions = Static<typeof EscrowInstructions>;

/** What the sender's wallet signs for a `raw` transaction: a `pay` through the escrow contract, tagged with the transaction (docs/settlement.md). */
export const TransferInstructions = Type.Object(
  {
    contractAddress: Nullable(
      Type.String({
        description: 'The escrow contract whose `pay` forwards the transfer (ESCROW_CONTRACTS); null when none is configured.',
      }),
    ),
    tokenAddress: Nullable(Type.String({ description: 'The ERC-20 of the currency (TOKEN_CONTRACTS); null when none is configured.' })),
    onchainId: Type.String({ pattern: '^0x[0-9a-f]{64}$', description: 'The payment id: the transaction id as bytes32.' }),
    receiver: Type.String({ description: 'The transaction’s `toAddress`.' }),
    amountBaseUnits: Nullable(Type.String({ pattern: '^[0-9]+$', description: 'The amount in the token’s units (6 decimals).' })),
  },
  {
    description:
      'Approve `tokenAddress` for `amountBaseUnits` to `contractAddress`, then call `pay(onchainId, receiver, tokenAddress, amountBaseUnits)`: the funds go straight to the receiver and the `TransferForwarded` log names this transaction, so its hash completes this transaction only (submit it to `/hash`). A plain ERC-20 transfer is still accepted, but it names no transaction: when another platform claims the same transfer, both are recorded as a disputed claim that an operator resolves.',
  },
);
export type TransferInstructions = Static<typeof TransferInstructions>;

export const CreatedTransaction = Type.Object(
  {
    ...PaymentsTransaction.properties,
    rescind: RescindInfo,
    escrow: Type.Optional(EscrowInstructions),
    transfer: Type.Optional(TransferInstructions),
  },
  { $id: 'CreatedTransaction', description: 'The transaction as created, with its rescind rules.' },
);

// ------------------------------------------------------------------ reads

const DateOrDateTime = Type.Union([Type.String({ format: 'date-time' }), Type.String({ format: 'date' })], {
  description: 'ISO 8601 date-time, or a date (a whole day).',
});

export const TransactionListQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    status: Type.Optional(TransactionStatusSchema),
    fromAddress: Type.Optional(ChainAddress),
    toAddress: Type.Optional(ChainAddress),
    walletAddress: Type.Optional(Type.String({ ...ChainAddress, description: 'Matches the sender or the receiver.' })),
    dateFrom: Type.Optional(DateOrDateTime),
    dateTo: Type.Optional(DateOrDateTime),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type TransactionListQuery = Static<typeof TransactionListQuery>;

export const TransactionList = Type.Object(
  {
    data: Type.Array(PaymentsTransaction),
    // The PaginationMeta shape, without its $id (one schema may not carry the same $id twice).
    pagination: Type.Object(PaginationMeta.properties),
  },
  { $id: 'TransactionList', description: 'Newest first.' },
);
export type TransactionList = Static<typeof TransactionList>;

export const AT_RISK_STATUSES = ['escrowed', 'in_review', 'pending_user_action', 'disputed'] as const;
const AtRiskBucket = Type.Object({
  count: Type.Integer({ minimum: 0 }),
  totalAmount: DecimalString,
  oldestAgeSeconds: Nullable(Type.Integer({ minimum: 0, description: 'Since the oldest entered the status; null when none.' })),
  over24h: Type.Integer({ minimum: 0 }),
  over72h: Type.Integer({ minimum: 0 }),
});
export const AtRiskReport = Type.Object(eachOf(AT_RISK_STATUSES, AtRiskBucket), {
  $id: 'AtRiskReport',
  description: 'Ages count from the moment each transaction entered its current status.',
});
export type AtRiskReport = Static<typeof AtRiskReport>;

const StatsBucket = Type.Object({ count: Type.Integer({ minimum: 0 }), total_amount: DecimalString });
export const TransactionStats = Type.Object(eachOf(TRANSACTION_STATUSES, StatsBucket), {
  $id: 'TransactionStats',
  description: 'Every status, with zero counts included.',
});
export type TransactionStats = Static<typeof TransactionStats>;

// ------------------------------------------------------------------ quote

export const QuoteBody = Type.Object(
  {
    amount: AmountInput,
    currency: CurrencySchema,
    blockchainNetwork: Type.Optional(NetworkSchema),
    billingConfig: Type.Optional(BillingConfig),
  },
  { additionalProperties: false },
);
export type QuoteBody = Static<typeof QuoteBody>;

export const Quote = Type.Object(
  {
    quoteId: Uuid,
    amount: DecimalString,
    fee: DecimalString,
    total: DecimalString,
    currency: CurrencySchema,
    blockchainNetwork: NetworkSchema,
    feeType: StringEnum(BILLING_FEE_TYPES),
    feePercentage: DecimalString,
    expiresAt: DateTime,
  },
  { $id: 'Quote', description: 'A fee quote; pass `quoteId` to one create within its lifetime. Used once.' },
);
export type Quote = Static<typeof Quote>;

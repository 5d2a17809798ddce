import { type Static, Type } from '@sinclair/typebox';
import {
  ChainAddress,
  CURRENCIES,
  CurrencySchema,
  DateTime,
  DecimalString,
  Metadata,
  NETWORKS,
  NetworkSchema,
  ORCHESTRATION_TYPES,
  StringEnum,
  TransactionStatusSchema,
  Uuid,
} from '../common/domain.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, PaginationMeta } from '../common/pagination.js';
import { EscrowTerms, OrchestrationTypeSchema, PaymentsTransaction, SIGNER_TYPES, SignerTypeSchema } from './transactions.js';

/*
 * Payments API: batches (spec "Batch"; v1 `/api/v1/transactions/batch`, v2 `/api/v2/transactions/batches`).
 * One sender, 1..MAX_BATCH_LEGS legs; each leg is a transaction with `batchId` and `legIndex`.
 */

export const BATCH_STATUSES = ['pending_user_action', 'submitted', 'completed', 'failed'] as const;
export type BatchStatusValue = (typeof BATCH_STATUSES)[number];
export const BatchStatusSchema = StringEnum(BATCH_STATUSES, {
  description:
    'Derived from the legs: `pending_user_action` while no leg is escrowed yet, `submitted` once one is and until all are final, then `completed` (at least one leg completed) or `failed` (none did).',
});

/** Default of `PAYMENTS_MAX_BATCH_LEGS` (docs/batches.md); the configurable bound is 1..MAX_BATCH_LEGS_CEILING. */
export const MAX_BATCH_LEGS_DEFAULT = 100;
/** The largest `PAYMENTS_MAX_BATCH_LEGS` accepted: one `createBatch` call must fit in a block's gas. */
export const MAX_BATCH_LEGS_CEILING = 200;

const Address = Type.String({
  ...ChainAddress,
  description:
    'A blockchain address of the batch network (EVM: `0x` + 40 hex digits, EIP-55 checksum when mixed case; Solana: base58 of 32 bytes).',
});

export const BatchLegInput = Type.Object(
  {
    toAddress: Address,
    amount: Type.Union([Type.Number(), Type.String()], {
      description:
        "Between 0.01 and 1,000,000, at most the currency's decimals (6; ETH 18). A JSON number (as the spec says; at most 15 significant digits) or a decimal string (exact; recommended). Never rounded: anything else is 400 naming `legs.<i>.amount`.",
    }),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type BatchLegInput = Static<typeof BatchLegInput>;

export const CreateBatchBody = Type.Object(
  {
    fromAddress: Address,
    legs: Type.Array(BatchLegInput, {
      minItems: 1,
      description: `One leg per recipient, 1 to MAX_BATCH_LEGS (${MAX_BATCH_LEGS_DEFAULT} unless the operator set PAYMENTS_MAX_BATCH_LEGS). Each leg becomes a transaction.`,
    }),
    currency: Type.Optional(StringEnum(CURRENCIES, { description: 'Shared by every leg; USDC when omitted.' })),
    blockchainNetwork: Type.Optional(
      StringEnum(NETWORKS, {
        description:
          'The environment base network when omitted (`base` in production, `base-sepolia` elsewhere); mainnets are coerced to their testnet outside production; testnets are refused in production; a sandbox credential is refused any network that is not a testnet (403 `FORBIDDEN`, `details.reason: sandbox_mainnet`).',
      }),
    ),
    orchestrationType: Type.Optional(StringEnum(ORCHESTRATION_TYPES, { description: '`platform` (escrow, the default) or `raw`.' })),
    signerType: Type.Optional(
      StringEnum(SIGNER_TYPES, {
        description: 'Must be `external_wallet` (the default): custodial batches are not supported and answer 400.',
      }),
    ),
    templateId: Type.Optional(Type.String({ format: 'uuid', description: 'Control template, stored on the batch and each leg.' })),
    template: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { deprecated: true, description: 'Embedded template (deprecated: prefer templateId).' }),
    ),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    idempotencyKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Same key (or `Idempotency-Key` header) on the same platform returns the existing batch instead of creating another.',
      }),
    ),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateBatchBody = Static<typeof CreateBatchBody>;

export const IdempotencyKeyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Alternative to the body `idempotencyKey`; both must agree when both are sent.',
    }),
  ),
});

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

/** A batch as the Payments API returns it (legs are on reads of one batch, not in lists). */
export const Batch = Type.Object(
  {
    id: Uuid,
    platformId: Uuid,
    status: BatchStatusSchema,
    fromAddress: Type.String(),
    currency: CurrencySchema,
    blockchainNetwork: NetworkSchema,
    chainId: Type.Union([Type.Integer(), Type.Null()]),
    orchestrationType: OrchestrationTypeSchema,
    signerType: SignerTypeSchema,
    templateId: Nullable(Uuid),
    customerId: Nullable(Type.String()),
    idempotencyKey: Nullable(Type.String()),
    metadata: Metadata,
    legCount: Type.Integer({ minimum: 1 }),
    totalAmount: Type.String({ pattern: DecimalString.pattern, description: 'Exact sum of the legs’ amounts.' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { description: 'A batch: one sender, its legs, their shared terms and its status derived from the legs.' },
);
export type Batch = Static<typeof Batch>;

/** A leg: its transaction, its place in the batch and the escrow id the signer uses for it. */
export const BatchLeg = Type.Object(
  {
    ...PaymentsTransaction.properties,
    status: TransactionStatusSchema,
    legIndex: Type.Integer({ minimum: 0 }),
    onchainId: Type.String({
      pattern: '^0x0{32}[0-9a-f]{32}$',
      description: 'The leg’s escrow id: its UUID’s 16 bytes left-padded to bytes32 (pass it to `createBatch`).',
    }),
  },
  { description: 'A leg of a batch: a transaction with its place and on-chain id.' },
);
export type BatchLeg = Static<typeof BatchLeg>;

export const BatchWithLegs = Type.Object({ ...Batch.properties, legs: Type.Array(BatchLeg) }, { $id: 'BatchWithLegs' });
export type BatchWithLegs = Static<typeof BatchWithLegs>;

export const BATCH_NEXT_ACTIONS = ['create_batch_escrow', 'send_transfers'] as const;

/** What the client does after creating a batch (docs/batches.md). */
export const BatchNextAction = Type.Object({
  type: StringEnum(BATCH_NEXT_ACTIONS, {
    description:
      '`create_batch_escrow` (platform): approve the token for `totalAmount` to the escrow contract, then call `createBatch(ids, receivers, amounts, token, attester, holdDeadline)`. `send_transfers` (raw): send each leg and submit its hash.',
  }),
  description: Type.String(),
  totalAmount: DecimalString,
  ids: Type.Array(Type.String(), { description: 'The legs’ on-chain ids, in leg order.' }),
  receivers: Type.Array(Type.String(), { description: 'The legs’ receivers, in leg order.' }),
  amounts: Type.Array(DecimalString, { description: 'The legs’ amounts in currency units (convert to token units), in leg order.' }),
  escrow: Type.Optional(
    Type.Object(
      {
        ...EscrowTerms.properties,
        amountsBaseUnits: Type.Array(Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Null()]), {
          description: 'The legs’ amounts in the token’s units (6 decimals), in leg order.',
        }),
        totalBaseUnits: Type.Union([Type.String({ pattern: '^[0-9]+$' }), Type.Null()], { description: 'What to approve.' }),
        holdDeadline: Type.Integer({ minimum: 0, description: 'Unix seconds: the sender may rescind each leg until then.' }),
      },
      { description: 'The arguments of `createBatch` besides ids and receivers (platform orchestration only).' },
    ),
  ),
});
export type BatchNextAction = Static<typeof BatchNextAction>;

export const BatchCreated = Type.Object({ ...BatchWithLegs.properties, nextAction: BatchNextAction }, { $id: 'BatchCreated' });
export type BatchCreated = Static<typeof BatchCreated>;
/** The answer (200) to a create repeated with its idempotency key. */
export const BatchReplayed: typeof BatchCreated = {
  ...BatchCreated,
  description: 'The batch an earlier request with this idempotency key created.',
};

export const BatchListQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, default: 1, description: '1-indexed page number.' }),
    limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
    status: Type.Optional(BatchStatusSchema),
    fromAddress: Type.Optional(Type.String({ ...ChainAddress, description: 'Sender (compared case-insensitively).' })),
    dateFrom: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after (inclusive).' })),
    dateTo: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or before (inclusive).' })),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);
export type BatchListQuery = Static<typeof BatchListQuery>;

export const BatchList = Type.Object(
  { data: Type.Array(Batch), pagination: PaginationMeta },
  { $id: 'BatchList', description: 'Newest first; legs are not embedded (read one batch for its legs).' },
);
export type BatchList = Static<typeof BatchList>;

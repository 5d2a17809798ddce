import { type Static, Type } from '@sinclair/typebox';
import { defineCommand } from '../commands/define.js';
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
  TRANSACTION_STATUSES,
  type TransactionStatus,
  TransactionStatusSchema,
  Uuid,
} from '../common/domain.js';
import { Nullable, TransferFields } from '../common/fragments.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../common/pagination.js';
import { V1ScopeSchema } from '../payments/access.js';
import { ChainFinalityFields, PaymentsTransaction } from '../payments/transactions.js';

/*
 * Workspace API transactions (spec "Workspace API: workspace transactions" and "global
 * transactions"): the upper-case statuses, the answers, and the commands payments serves for them.
 * Design notes: docs/workspace-transactions.md.
 */

/** The six statuses the Workspace API shows (spec "Transaction"). */
/** Longest `X-API-Key` the Workspace API forwards for verification; a longer one is no key (401). */
export const WORKSPACE_KEY_MAX_LENGTH = 256;

export const WORKSPACE_TRANSACTION_STATUSES = ['PENDING', 'ESCROWED', 'IN_REVIEW', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type WorkspaceTransactionStatus = (typeof WORKSPACE_TRANSACTION_STATUSES)[number];
export const WorkspaceTransactionStatusSchema = StringEnum(WORKSPACE_TRANSACTION_STATUSES, {
  description:
    'PENDING (pending, risk_review, pending_user_action), ESCROWED, IN_REVIEW (in_review, disputed), COMPLETED, FAILED, CANCELLED (refunded, rescinded).',
});

/** Each of payments' ten statuses as the Workspace API shows it. */
export const WORKSPACE_STATUS_OF: Record<TransactionStatus, WorkspaceTransactionStatus> = {
  pending: 'PENDING',
  risk_review: 'PENDING',
  pending_user_action: 'PENDING',
  escrowed: 'ESCROWED',
  in_review: 'IN_REVIEW',
  disputed: 'IN_REVIEW',
  completed: 'COMPLETED',
  failed: 'FAILED',
  refunded: 'CANCELLED',
  rescinded: 'CANCELLED',
};

/** The payments statuses an upper-case filter value stands for (`CANCELLED` -> refunded, rescinded). */
export function paymentsStatusesOf(status: WorkspaceTransactionStatus): TransactionStatus[] {
  return TRANSACTION_STATUSES.filter((s) => WORKSPACE_STATUS_OF[s] === status);
}

/**
 * Metadata keys whose value, when it is one of the workspace's addresses, puts a transaction in the
 * workspace's list (compared case-insensitively), besides its platforms and its from/to addresses.
 */
export const METADATA_ADDRESS_KEYS = ['walletAddress', 'senderWalletAddress', 'recipientWalletAddress'] as const;

/** How many platforms or addresses one query may search (a workspace has a handful; the operator all). */
export const MAX_SEARCHED_PLATFORMS = 10_000;
export const MAX_SEARCHED_ADDRESSES = 10_000;

/** Addresses a request gives (ChainAddress); the searched scope's own list is the workspace's, stored lower-cased. */
const Address = ChainAddress;
const ScopeAddress = Type.String({ minLength: 1, maxLength: 128 });

// ---------------------------------------------------------------- payments side (commands)

/** A payments transaction with the name of its platform (what the commands answer). */
export const PlatformTransaction = Type.Object(
  { ...PaymentsTransaction.properties, platformName: Type.String() },
  { $id: 'PlatformTransaction' },
);
export type PlatformTransaction = Static<typeof PlatformTransaction>;

/** Where a workspace's transactions are: its platforms, and its addresses (lower-cased). */
const Scope = {
  /**
   * The workspaces the request is for (`all`: the SUPER_ADMIN's global routes): payments keeps only
   * the platformIds that are theirs, so a platform named for the wrong workspace reads nothing.
   */
  workspaceIds: Type.Union([Type.Array(Uuid, { minItems: 1, maxItems: 1 }), Type.Literal('all')]),
  platformIds: Type.Array(Uuid, { maxItems: MAX_SEARCHED_PLATFORMS }),
  addresses: Type.Array(ScopeAddress, {
    maxItems: MAX_SEARCHED_ADDRESSES,
    description: 'Lower-cased addresses: from, to or a metadata address.',
  }),
};

export const TransactionFilters = Type.Object(
  {
    statuses: Type.Optional(Type.Array(TransactionStatusSchema, { minItems: 1, uniqueItems: true })),
    dateFrom: Type.Optional(DateTime),
    dateTo: Type.Optional(DateTime),
    fromAddress: Type.Optional(Address),
    toAddress: Type.Optional(Address),
    /** From or to. */
    walletAddress: Type.Optional(Address),
  },
  { additionalProperties: false },
);
export type TransactionFilters = Static<typeof TransactionFilters>;

/** The stats of one upper-case status: count and exact total (spec "Transaction statistics"). */
export const StatusStats = Type.Object({ count: Type.Integer({ minimum: 0 }), total_amount: DecimalString });
export const WorkspaceTransactionStats = Type.Object(
  {
    PENDING: StatusStats,
    ESCROWED: StatusStats,
    IN_REVIEW: StatusStats,
    COMPLETED: StatusStats,
    FAILED: StatusStats,
    CANCELLED: StatusStats,
  },
  { description: 'Keyed by upper-case status (all six present); `total_amount` is the exact sum, a decimal string.' },
);
export type WorkspaceTransactionStats = Static<typeof WorkspaceTransactionStats>;

/** A verified workspace key (X-API-Key on the Workspace API): the platform it belongs to. */
export const WorkspaceKeyPrincipal = Type.Object({
  platformId: Uuid,
  platformName: Type.String(),
  workspaceId: Nullable(Uuid),
  sandbox: Type.Boolean(),
  scopes: Type.Array(V1ScopeSchema),
});
export type WorkspaceKeyPrincipal = Static<typeof WorkspaceKeyPrincipal>;

/** What the Workspace API's create forwards (amount an exact decimal string; network resolved by payments). */
export const ForwardedTransactionInput = Type.Object(
  {
    fromAddress: Address,
    toAddress: Address,
    amount: Type.String({ minLength: 1, maxLength: 40 }),
    blockchainNetwork: NetworkSchema,
    currency: CurrencySchema,
    orchestrationType: StringEnum(ORCHESTRATION_TYPES),
    customerId: Type.Optional(Uuid),
    templateId: Type.Optional(Uuid),
    controlConfigs: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 50 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type ForwardedTransactionInput = Static<typeof ForwardedTransactionInput>;

export const WORKSPACE_TRANSACTION_COMMANDS = {
  list: defineCommand(
    'cmd.payments.workspace-transactions.list',
    Type.Object(
      {
        ...Scope,
        filters: TransactionFilters,
        page: Type.Integer({ minimum: 1 }),
        limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX }),
      },
      { additionalProperties: false },
    ),
    Type.Object({ transactions: Type.Array(PlatformTransaction), total: Type.Integer({ minimum: 0 }) }),
    'Transactions on one of platformIds, or from/to one of addresses, or with one of them under a METADATA_ADDRESS_KEYS key; newest first; one page and the total.',
  ),
  get: defineCommand(
    'cmd.payments.workspace-transactions.get',
    Type.Object({ ...Scope, transactionId: Uuid }, { additionalProperties: false }),
    PlatformTransaction,
    'One transaction within the scope (as list); NOT_FOUND outside it.',
  ),
  stats: defineCommand(
    'cmd.payments.workspace-transactions.stats',
    Type.Object({ ...Scope }, { additionalProperties: false }),
    Type.Object({ stats: WorkspaceTransactionStats }),
    'Count and exact total amount per upper-case status within the scope, summed in SQL as numeric.',
  ),
  verifyKey: defineCommand(
    'cmd.payments.workspace-keys.verify',
    Type.Object({ apiKey: Type.String({ minLength: 1, maxLength: WORKSPACE_KEY_MAX_LENGTH }) }, { additionalProperties: false }),
    WorkspaceKeyPrincipal,
    'Verifies a Payments API key presented to the Workspace API (X-API-Key); UNAUTHORIZED when it is unknown, revoked or its platform is deactivated.',
  ),
  create: defineCommand(
    'cmd.payments.workspace-transactions.create',
    Type.Object({ workspaceId: Uuid, platformId: Uuid, transaction: ForwardedTransactionInput }, { additionalProperties: false }),
    PlatformTransaction,
    "Creates a transaction on platformId (an active platform of workspaceId, else NOT_FOUND) with payments' own rules (amount 0.01..1,000,000, network per APP_ENV).",
  ),
  submitEscrowHash: defineCommand(
    'cmd.payments.workspace-transactions.submit-escrow-hash',
    Type.Object(
      { workspaceId: Uuid, platformId: Uuid, transactionId: Uuid, transactionHash: Type.String({ minLength: 1, maxLength: 128 }) },
      { additionalProperties: false },
    ),
    PlatformTransaction,
    "Submits the escrow call's hash of a transaction of platformId, an active platform of workspaceId (NOT_FOUND for another workspace's platform or another platform's transaction).",
  ),
} as const;

// ---------------------------------------------------------------- Workspace API (HTTP)

/** A transaction as the Workspace API shows it (spec "Transaction"). */
export const WorkspaceTransaction = Type.Object(
  {
    id: Uuid,
    status: WorkspaceTransactionStatusSchema,
    ...TransferFields,
    txHash: Nullable(Type.String()),
    orchestrationType: StringEnum(ORCHESTRATION_TYPES),
    customerId: Nullable(Type.String()),
    templateId: Nullable(Uuid),
    batchId: Nullable(Uuid),
    escrowAddress: Nullable(Type.String()),
    ...ChainFinalityFields,
    failureReason: Nullable(Type.String()),
    metadata: Metadata,
    createdAt: DateTime,
    updatedAt: DateTime,
    _platformName: Type.String(),
    _platformId: Uuid,
  },
  { $id: 'WorkspaceTransaction' },
);
export type WorkspaceTransaction = Static<typeof WorkspaceTransaction>;

export function toWorkspaceTransaction(t: PlatformTransaction): WorkspaceTransaction {
  return {
    id: t.id,
    status: WORKSPACE_STATUS_OF[t.status],
    amount: t.amount,
    currency: t.currency,
    fromAddress: t.fromAddress,
    toAddress: t.toAddress,
    blockchainNetwork: t.blockchainNetwork,
    chainId: t.chainId,
    txHash: t.txHash,
    orchestrationType: t.orchestrationType,
    customerId: t.customerId,
    templateId: t.templateId,
    batchId: t.batchId,
    escrowAddress: t.escrowAddress,
    finality: t.finality ?? null,
    confirmations: t.confirmations ?? null,
    blockNumber: t.blockNumber ?? null,
    blockHash: t.blockHash ?? null,
    requiredFinality: t.requiredFinality ?? null,
    failureReason: t.failureReason,
    metadata: t.metadata,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    _platformName: t.platformName,
    _platformId: t.platformId,
  };
}

const Page = {
  page: Type.Integer({ minimum: 1, default: 1, description: '1-indexed page number.' }),
  limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
};

export const WorkspaceTransactionsQuery = Type.Object(
  {
    ...Page,
    status: Type.Optional(WorkspaceTransactionStatusSchema),
    dateFrom: Type.Optional(DateTime),
    dateTo: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);
export type WorkspaceTransactionsQuery = Static<typeof WorkspaceTransactionsQuery>;

export const GlobalTransactionsQuery = Type.Object(
  {
    ...Page,
    status: Type.Optional(WorkspaceTransactionStatusSchema),
    dateFrom: Type.Optional(DateTime),
    dateTo: Type.Optional(DateTime),
    fromAddress: Type.Optional(Address),
    toAddress: Type.Optional(Address),
    walletAddress: Type.Optional(Type.String({ ...ChainAddress, description: 'Matches the sender or the receiver.' })),
  },
  { additionalProperties: false },
);
export type GlobalTransactionsQuery = Static<typeof GlobalTransactionsQuery>;

/** Where a page of a Workspace API transaction list stands. */
const TransactionPageFields = {
  total: Type.Integer({ minimum: 0 }),
  page: Type.Integer({ minimum: 1 }),
  limit: Type.Integer({ minimum: 1 }),
  totalPages: Type.Integer({ minimum: 0 }),
};

export const WorkspaceTransactionList = Type.Object({
  transactions: Type.Array(WorkspaceTransaction),
  pagination: Type.Object(TransactionPageFields),
});
export type WorkspaceTransactionList = Static<typeof WorkspaceTransactionList>;

export const GlobalTransactionList = Type.Object({
  data: Type.Array(WorkspaceTransaction),
  meta: Type.Object({
    ...TransactionPageFields,
    platformCount: Type.Integer({ minimum: 0, description: 'How many connected platforms were searched.' }),
  }),
});
export type GlobalTransactionList = Static<typeof GlobalTransactionList>;

/** POST /workspaces/{id}/transactions (spec). */
export const CreateWorkspaceTransactionBody = Type.Object(
  {
    fromAddress: Address,
    toAddress: Address,
    amount: Type.String({
      pattern: '^\\d{1,7}(\\.\\d{1,18})?$',
      description: 'Exact decimal string, 0.01 to 1,000,000 (at most 18 decimals).',
    }),
    network: StringEnum(NETWORKS, { description: 'Network name; outside production a mainnet is coerced to its testnet.' }),
    currency: StringEnum(CURRENCIES, { default: 'USDC' }),
    customerId: Type.Optional(Uuid),
    orchestrationType: StringEnum(ORCHESTRATION_TYPES, { default: 'raw' }),
    templateId: Type.Optional(Uuid),
    controlConfigs: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()), { maxItems: 50 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateWorkspaceTransactionBody = Static<typeof CreateWorkspaceTransactionBody>;

export const WorkspaceSubmitEscrowHashBody = Type.Object(
  {
    transactionHash: Type.String({
      pattern: '^(0x[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{64,90})$',
      description: 'The escrow call: an EVM transaction hash (0x + 64 hex) or a Solana signature (base58).',
    }),
  },
  { additionalProperties: false },
);
export type WorkspaceSubmitEscrowHashBody = Static<typeof WorkspaceSubmitEscrowHashBody>;

export const SubmitEscrowHashResult = Type.Object({ success: Type.Boolean(), message: Type.String(), transaction: WorkspaceTransaction });
export type SubmitEscrowHashResult = Static<typeof SubmitEscrowHashResult>;

export const WorkspaceTransactionParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Workspace id.' }),
  txId: Type.String({ format: 'uuid', description: 'Transaction id.' }),
});

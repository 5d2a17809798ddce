import { type Static, Type } from '@sinclair/typebox';
import { DateTime, FinalityLevelSchema, StringEnum, Uuid } from '../common/domain.js';
import { Nullable } from '../common/fragments.js';
import { PageQuery, PaginationMeta } from '../common/pagination.js';
import { SETTLEMENT_KINDS } from './settlement.js';

/*
 * Payments API, operator routes (admin scope, `admin:platform`): the settlement items that need a
 * person, and the reconciliation of the books against the escrow contract (docs/settlement.md,
 * "Operator runbook" and "Reconciliation").
 */

const strict = { additionalProperties: false } as const;

/** What needs a person: a settlement instruction `failed` or `superseded`, a CHAIN message `conflict`, `rejected` or `correction_unapplied`. */
export const SETTLEMENT_ITEM_STATUSES = ['failed', 'superseded', 'conflict', 'rejected', 'correction_unapplied'] as const;
export type SettlementItemStatus = (typeof SETTLEMENT_ITEM_STATUSES)[number];
export const SETTLEMENT_ITEM_KINDS = ['settlement', 'chain_message'] as const;
export const OPERATOR_ACTIONS = ['retry', 'resolve'] as const;

export const OperatorAction = Type.Object(
  {
    action: StringEnum(OPERATOR_ACTIONS),
    actor: Type.String({ description: 'Who acted: `api_key:<keyId>` or `oauth_client:<clientId>`, of the platform `actorPlatformId`.' }),
    actorPlatformId: Uuid,
    reason: Type.String(),
    fromStatus: Type.String({ description: 'The status of the item when the action was taken.' }),
    createdAt: DateTime,
  },
  strict,
);
export type OperatorAction = Static<typeof OperatorAction>;

export const SettlementItem = Type.Object(
  {
    kind: StringEnum(SETTLEMENT_ITEM_KINDS, {
      description: '`settlement`: an on-chain instruction of the attester key; `chain_message`: a CHAIN event payments could not apply.',
    }),
    id: Type.String({ description: 'The settlement id (uuid) or the CHAIN message id.' }),
    transactionId: Type.Union([Uuid, Type.Null()]),
    status: Type.String({
      description:
        'failed, superseded (settlement), conflict, rejected, correction_unapplied (chain_message); pending again after a retry.',
    }),
    detail: Type.Union([Type.String(), Type.Null()], { description: 'The last error, or why the event was not applied.' }),
    settlementKind: Type.Union([StringEnum(SETTLEMENT_KINDS), Type.Null()]),
    eventKind: Type.Union([Type.String(), Type.Null()]),
    attempts: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    createdAt: DateTime,
    resolvedAt: Type.Union([DateTime, Type.Null()]),
    actions: Type.Array(OperatorAction, { description: 'Every operator action on the item, oldest first.' }),
  },
  strict,
);
export type SettlementItem = Static<typeof SettlementItem>;

export const SettlementItemQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(StringEnum(SETTLEMENT_ITEM_STATUSES)),
    includeResolved: Type.Optional(Type.Boolean({ default: false, description: 'Also list the items an operator resolved.' })),
  }),
]);
export type SettlementItemQuery = Static<typeof SettlementItemQuery>;

export const SettlementItemList = Type.Object({ data: Type.Array(SettlementItem), pagination: PaginationMeta }, strict);
export type SettlementItemList = Static<typeof SettlementItemList>;

/** Why an operator retries or resolves an item (kept with who did it). */
export const OperatorActionBody = Type.Object(
  { reason: Type.String({ minLength: 3, maxLength: 500, description: 'Why: kept in the item’s audit trail with who acted.' }) },
  strict,
);
export type OperatorActionBody = Static<typeof OperatorActionBody>;

export const SettlementIdParams = Type.Object({ id: Uuid }, strict);
export const ChainMessageIdParams = Type.Object({ messageId: Type.String({ minLength: 1, maxLength: 200 }) }, strict);

// ---------------------------------------------------------------- disputed claims

/**
 * A plain ERC-20 transfer log claimed by raw transactions of more than one platform (docs/settlement.md,
 * "Disputed claims"): each claimant completed; an operator names the transaction the transfer paid and
 * the others fail (`transaction.failed`). A `pay` (tagged) transfer names its transaction and is never disputed.
 */
export const DISPUTED_CLAIM_STATUSES = ['open', 'resolved'] as const;
export type DisputedClaimStatus = (typeof DISPUTED_CLAIM_STATUSES)[number];

export const TransferClaim = Type.Object(
  {
    transactionId: Uuid,
    platformId: Uuid,
    transactionStatus: Type.String({ description: 'The claiming transaction’s status now.' }),
    claimedAt: DateTime,
  },
  strict,
);
export type TransferClaim = Static<typeof TransferClaim>;

export const DisputedClaim = Type.Object(
  {
    id: Uuid,
    network: Type.String(),
    chainId: Type.Integer(),
    txHash: Type.String(),
    logIndex: Type.Integer({ minimum: 0, description: 'The `Transfer` log claimed, in the receipt of `txHash`.' }),
    status: StringEnum(DISPUTED_CLAIM_STATUSES),
    claims: Type.Array(TransferClaim, { description: 'Every transaction that claimed the log, oldest first.' }),
    rightfulTransactionId: Type.Union([Uuid, Type.Null()], { description: 'The transaction the operator found the transfer paid.' }),
    resolution: Nullable(Type.String({ description: 'The operator’s reason.' })),
    resolvedBy: Nullable(Type.String({ description: '`api_key:<keyId>` or `oauth_client:<clientId>`.' })),
    resolvedAt: Type.Union([DateTime, Type.Null()]),
    createdAt: DateTime,
  },
  strict,
);
export type DisputedClaim = Static<typeof DisputedClaim>;

export const DisputedClaimQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(StringEnum(DISPUTED_CLAIM_STATUSES, { default: 'open', description: 'Open ones by default.' })),
  }),
]);
export type DisputedClaimQuery = Static<typeof DisputedClaimQuery>;

export const DisputedClaimList = Type.Object({ data: Type.Array(DisputedClaim), pagination: PaginationMeta }, strict);
export type DisputedClaimList = Static<typeof DisputedClaimList>;

export const ResolveDisputedClaimBody = Type.Object(
  {
    rightfulTransactionId: Type.String({ format: 'uuid', description: 'The claiming transaction the transfer paid; the others fail.' }),
    reason: Type.String({ minLength: 3, maxLength: 500, description: 'Why: kept with who acted and in each failed transaction’s reason.' }),
  },
  strict,
);
export type ResolveDisputedClaimBody = Static<typeof ResolveDisputedClaimBody>;

export const DisputedClaimIdParams = Type.Object({ id: Uuid }, strict);

// ---------------------------------------------------------------- reconciliation

/**
 * A difference between the books and the escrow contract (docs/settlement.md, "Reconciliation"):
 * `released_on_chain`, `rescinded_on_chain`, `refunded_on_chain` (the chain settled an escrow the
 * database still holds: a missed event), `settled_during_dispute`, `escrow_missing` (the database
 * holds an escrow the chain does not know), `terminal_but_held` (the database says settled, the
 * chain still holds the funds and no instruction is owed), `settled_otherwise` (both settled, differently).
 */
export const MISMATCH_KINDS = [
  'released_on_chain',
  'rescinded_on_chain',
  'refunded_on_chain',
  'settled_during_dispute',
  'escrow_missing',
  'terminal_but_held',
  'settled_otherwise',
  /** A lock announced at a level (`announcedFinality`) whose block the chain no longer holds (a reorg no correction undid yet). */
  'announced_block_gone',
] as const;
export type MismatchKind = (typeof MISMATCH_KINDS)[number];

export const ReconciliationMismatch = Type.Object(
  {
    id: Uuid,
    kind: StringEnum(MISMATCH_KINDS),
    transactionId: Uuid,
    batchId: Type.Union([Uuid, Type.Null()]),
    network: Type.String(),
    escrowAddress: Type.String(),
    databaseStatus: Type.String({ description: 'The transaction status in the books when last seen.' }),
    announcedFinality: Type.Optional(
      Type.Union([FinalityLevelSchema, Type.Null()], {
        description: '`announced_block_gone`: the level the lock had been announced at (docs/chain.md, levels).',
      }),
    ),
    announcedBlockNumber: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    announcedBlockHash: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    chainStatus: StringEnum(['none', 'held', 'released', 'rescinded', 'refunded'] as const, {
      description: 'The escrow status the contract answered.',
    }),
    firstSeenAt: DateTime,
    lastSeenAt: DateTime,
    resolvedAt: Type.Union([DateTime, Type.Null()]),
    resolution: Type.Union([StringEnum(['repaired', 'cleared'] as const), Type.Null()], {
      description: '`repaired`: the reconciler moved the transaction to what the chain says; `cleared`: the difference went away.',
    }),
    repairedBy: Nullable(Type.String({ description: 'The move the reconciler applied (`release`, `rescind`, `refund`).' })),
  },
  strict,
);
export type ReconciliationMismatch = Static<typeof ReconciliationMismatch>;

export const MismatchQuery = Type.Composite([
  PageQuery,
  Type.Object({
    open: Type.Optional(Type.Boolean({ default: true, description: 'Only the mismatches not resolved (default); false: all.' })),
    kind: Type.Optional(StringEnum(MISMATCH_KINDS)),
    transactionId: Type.Optional(Uuid),
  }),
]);
export type MismatchQuery = Static<typeof MismatchQuery>;

export const MismatchList = Type.Object({ data: Type.Array(ReconciliationMismatch), pagination: PaginationMeta }, strict);
export type MismatchList = Static<typeof MismatchList>;

/** What one reconciliation pass found (POST /admin/reconciliation/run). */
export const ReconciliationPass = Type.Object(
  {
    checked: Type.Integer({ minimum: 0 }),
    mismatches: Type.Integer({ minimum: 0, description: 'Differences seen in this pass (before repairs).' }),
    repaired: Type.Integer({ minimum: 0 }),
    open: Type.Integer({ minimum: 0, description: 'Mismatches still open after the pass.' }),
  },
  strict,
);
export type ReconciliationPass = Static<typeof ReconciliationPass>;

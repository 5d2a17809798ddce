import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Metadata, StringEnum, Uuid } from '../common/domain.js';
import { Nullable } from '../common/fragments.js';

/*
 * Payments API: disputes and their evidence (spec "Dispute", "Evidence", "Payments API: disputes").
 * The tiers, statuses and the refund percentage rule are explained in docs/disputes.md.
 */

export const DISPUTE_STATUSES = ['open', 'under_review', 'pending_votes', 'in_arbitration', 'resolved'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];
export const DisputeStatusSchema = StringEnum(DISPUTE_STATUSES);

/** The escalation ladder, lowest first (the spec names the first; docs/disputes.md the others). */
export const DISPUTE_TIERS = ['tier_1_smart_contract', 'tier_2_platform_mediation', 'tier_3_arbitration'] as const;
export type DisputeTier = (typeof DISPUTE_TIERS)[number];
export const DisputeTierSchema = StringEnum(DISPUTE_TIERS);

export const DISPUTE_PARTIES = ['sender', 'receiver'] as const;
export type DisputeParty = (typeof DISPUTE_PARTIES)[number];
export const DisputePartySchema = StringEnum(DISPUTE_PARTIES);

export const DISPUTE_OUTCOMES = ['favor_sender', 'favor_receiver', 'partial_refund'] as const;
export type DisputeOutcome = (typeof DISPUTE_OUTCOMES)[number];
export const DisputeOutcomeSchema = StringEnum(DISPUTE_OUTCOMES, {
  description:
    '`favor_sender`: everything back to the sender. `favor_receiver`: the receiver is paid. `partial_refund`: split by `refundPercentage`.',
});

export const EVIDENCE_TYPES = ['text', 'image', 'document', 'screenshot', 'communication_log', 'other'] as const;
export type EvidenceType = (typeof EVIDENCE_TYPES)[number];
export const EvidenceTypeSchema = StringEnum(EVIDENCE_TYPES);

export const RefundPercentage = Type.Number({
  minimum: 0,
  maximum: 100,
  description:
    'Share of the escrowed amount returned to the sender, 0-100 in steps of 0.01 (one basis point). favor_sender: 100; favor_receiver: 0; partial_refund: more than 0 and less than 100 (required).',
});

export const Evidence = Type.Object(
  {
    id: Uuid,
    disputeId: Uuid,
    submittedBy: DisputePartySchema,
    type: EvidenceTypeSchema,
    title: Type.String(),
    description: Nullable(Type.String()),
    content: Nullable(Type.String()),
    fileUrl: Nullable(Type.String()),
    fileHash: Nullable(Type.String()),
    isEncrypted: Type.Boolean(),
    metadata: Metadata,
    createdAt: DateTime,
  },
  { $id: 'DisputeEvidence' },
);
export type Evidence = Static<typeof Evidence>;

export const Dispute = Type.Object(
  {
    id: Uuid,
    transactionId: Uuid,
    initiatedBy: DisputePartySchema,
    currentTier: DisputeTierSchema,
    status: DisputeStatusSchema,
    reason: Type.String(),
    tier1CompletedAt: Nullable(DateTime),
    tier2CompletedAt: Nullable(DateTime),
    resolvedAt: Nullable(DateTime),
    outcome: Nullable(DisputeOutcomeSchema),
    resolutionReason: Nullable(Type.String()),
    refundPercentage: Nullable(Type.Number({ minimum: 0, maximum: 100 })),
    metadata: Metadata,
    createdAt: DateTime,
    updatedAt: DateTime,
    evidence: Type.Array(Evidence, { description: 'Evidence submitted so far, oldest first.' }),
  },
  { $id: 'Dispute' },
);
export type Dispute = Static<typeof Dispute>;

export const DisputeList = Type.Array(Dispute, { description: 'Newest first.' });

export const ListDisputesQuery = Type.Object(
  {
    status: Type.Optional(DisputeStatusSchema),
    transactionId: Type.Optional(Uuid),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100, description: 'At most this many, newest first.' })),
  },
  { additionalProperties: false },
);
export type ListDisputesQuery = Static<typeof ListDisputesQuery>;

export const CreateDisputeBody = Type.Object(
  {
    transactionId: Uuid,
    initiatedBy: DisputePartySchema,
    reason: Type.String({ minLength: 1, maxLength: 5000 }),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateDisputeBody = Static<typeof CreateDisputeBody>;

export const SubmitEvidenceBody = Type.Object(
  {
    submittedBy: DisputePartySchema,
    type: EvidenceTypeSchema,
    title: Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    content: Type.Optional(Type.String({ maxLength: 65536 })),
    fileUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
    fileHash: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    isEncrypted: Type.Optional(Type.Boolean({ default: false })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type SubmitEvidenceBody = Static<typeof SubmitEvidenceBody>;

export const ResolveDisputeBody = Type.Object(
  {
    outcome: DisputeOutcomeSchema,
    resolutionReason: Type.String({ minLength: 1, maxLength: 5000 }),
    refundPercentage: Type.Optional(RefundPercentage),
  },
  { additionalProperties: false },
);
export type ResolveDisputeBody = Static<typeof ResolveDisputeBody>;

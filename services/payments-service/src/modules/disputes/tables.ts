import type { DisputeOutcome, DisputeParty, DisputeStatus, DisputeTier, EvidenceType } from '@holdfast/contracts';
import { createdAtString, metadataColumn, reference, timestamptzString, updatedAtString } from '@holdfast/db';
import { boolean, index, numeric, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { platformIdColumn } from '../platforms/tables.js';
import { transactionIdColumn } from '../transactions/tables.js';

/**
 * A dispute over one transaction (at most one per transaction, ever: the unique index makes two
 * concurrent opens end in one dispute and one 409). `refund_percentage` is exact (`numeric(5,2)`,
 * whole basis points): the settlement worker turns it into the escrow's `refund(id, bps)`.
 */
export const disputes = paymentsSchema.table(
  'disputes',
  {
    id: uuid('id').primaryKey(),
    platformId: platformIdColumn(),
    /** The transaction's workspace, copied so events route without a join. */
    workspaceId: uuid('workspace_id'),
    transactionId: transactionIdColumn(),
    initiatedBy: text('initiated_by').$type<DisputeParty>().notNull(),
    currentTier: text('current_tier').$type<DisputeTier>().notNull(),
    status: text('status').$type<DisputeStatus>().notNull(),
    reason: text('reason').notNull(),
    tier1CompletedAt: timestamptzString('tier1_completed_at'),
    tier2CompletedAt: timestamptzString('tier2_completed_at'),
    resolvedAt: timestamptzString('resolved_at'),
    outcome: text('outcome').$type<DisputeOutcome>(),
    resolutionReason: text('resolution_reason'),
    refundPercentage: numeric('refund_percentage', { precision: 5, scale: 2 }),
    /** Who resolved it: `platform:<id>`. */
    resolvedBy: text('resolved_by'),
    metadata: metadataColumn(),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [
    uniqueIndex('disputes_transaction_unique').on(t.transactionId),
    index('disputes_platform_created_idx').on(t.platformId, t.createdAt, t.id),
    index('disputes_platform_status_idx').on(t.platformId, t.status, t.createdAt),
  ],
);

/** Evidence submitted on a dispute; append-only. */
export const disputeEvidence = paymentsSchema.table(
  'dispute_evidence',
  {
    id: uuid('id').primaryKey(),
    disputeId: reference('dispute_id', () => disputes.id),
    submittedBy: text('submitted_by').$type<DisputeParty>().notNull(),
    type: text('type').$type<EvidenceType>().notNull(),
    title: text('title').notNull(),
    description: text('description'),
    content: text('content'),
    fileUrl: text('file_url'),
    fileHash: text('file_hash'),
    isEncrypted: boolean('is_encrypted').notNull().default(false),
    metadata: metadataColumn(),
    createdAt: createdAtString(),
  },
  (t) => [index('dispute_evidence_dispute_idx').on(t.disputeId, t.createdAt, t.id)],
);

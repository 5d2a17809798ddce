import type { Verification, VerificationStatus, VerificationType } from '@holdfast/contracts';
import { createdAtString, metadataColumn, reference, timestamptzString, updatedAtString } from '@holdfast/db';
import { index, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { paymentsSchema } from '../../db/pg-schema.js';
import { platformIdColumn } from '../platforms/tables.js';

/**
 * Compliance verifications (docs/api/compliance.md): one inquiry at the identity provider about
 * one user of a platform. `status` moves only by the provider's signed callbacks, along
 * `state-machine.ts`.
 */
export const verifications = paymentsSchema.table(
  'verifications',
  {
    id: uuid('id').primaryKey(),
    platformId: platformIdColumn(),
    userId: text('user_id').notNull(),
    type: text('type').$type<VerificationType>().notNull(),
    status: text('status').$type<VerificationStatus>().notNull(),
    level: text('level'),
    riskRating: text('risk_rating').$type<NonNullable<Verification['riskRating']>>(),
    provider: text('provider').notNull(),
    externalInquiryId: text('external_inquiry_id'),
    externalSessionToken: text('external_session_token'),
    metadata: metadataColumn(),
    rejectionReason: text('rejection_reason'),
    verifiedAt: timestamptzString('verified_at'),
    expiresAt: timestamptzString('expires_at'),
    createdAt: createdAtString(),
    updatedAt: updatedAtString(),
  },
  (t) => [
    // `check`: the latest verification of (platform, user, type).
    index('verifications_check_idx').on(t.platformId, t.userId, t.type, t.createdAt, t.id),
    uniqueIndex('verifications_inquiry_unique').on(t.provider, t.externalInquiryId),
  ],
);

/**
 * The provider's callback events already processed, so that a replayed or redelivered event
 * changes nothing (its first outcome is answered again).
 */
export const identityProviderEvents = paymentsSchema.table(
  'identity_provider_events',
  {
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    verificationId: reference('verification_id', () => verifications.id),
    outcome: text('outcome').notNull(),
    receivedAt: timestamptzString('received_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.eventId] })],
);

import type { Verification, VerificationStatus, VerificationType } from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import { rowMapper } from '@holdfast/db';
import { identityProviderEvents, verifications } from './tables.js';

export interface NewVerification {
  id: string;
  platformId: string;
  userId: string;
  type: VerificationType;
  status: VerificationStatus;
  provider: string;
  externalInquiryId: string;
  externalSessionToken: string;
  metadata: Record<string, unknown>;
}

/** What a provider report writes; absent fields keep their stored value. */
export interface VerificationChanges {
  status: VerificationStatus;
  level?: string;
  riskRating?: string;
  rejectionReason?: string | null;
  verifiedAt?: string | null;
  expiresAt?: string | null;
}

/** A verification as stored is its API record (the table's row type is `Verification`). */
const toVerification: (row: Record<string, unknown>) => Verification = rowMapper(verifications);
const toEventOutcome = rowMapper(identityProviderEvents, { only: ['verificationId', 'outcome'] });

export interface ComplianceRepository {
  transaction: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T>;
  insert: (v: NewVerification) => Promise<Verification>;
  /** The platform's verification; another platform's is not found. */
  get: (platformId: string, id: string) => Promise<Verification | undefined>;
  /** The platform's latest verification of the user and type. */
  latest: (platformId: string, userId: string, type: VerificationType) => Promise<Verification | undefined>;
  /** The verification of a provider inquiry, locked until the transaction ends. */
  lockByInquiry: (tx: Queryable, provider: string, inquiryId: string) => Promise<Verification | undefined>;
  /** The outcome a processed provider event had, if it was processed. */
  findEvent: (tx: Queryable, provider: string, eventId: string) => Promise<{ verificationId: string; outcome: string } | undefined>;
  /** Records a processed event; false when it was already recorded. */
  recordEvent: (tx: Queryable, e: { provider: string; eventId: string; verificationId: string; outcome: string }) => Promise<boolean>;
  applyChanges: (tx: Queryable, id: string, changes: VerificationChanges) => Promise<Verification>;
}

export function createComplianceRepository(sql: Sql): ComplianceRepository {
  return {
    transaction: (fn) => sql.begin((tx) => fn(tx)) as never,

    insert: async (v) => {
      const [row] = await sql`
        insert into verifications (id, platform_id, user_id, type, status, provider, external_inquiry_id, external_session_token, metadata)
        values (${v.id}, ${v.platformId}, ${v.userId}, ${v.type}, ${v.status}, ${v.provider}, ${v.externalInquiryId},
                ${v.externalSessionToken}, ${JSON.stringify(v.metadata)}::jsonb)
        returning *`;
      return toVerification(row!);
    },

    get: async (platformId, id) => {
      const [row] = await sql`select * from verifications where id = ${id} and platform_id = ${platformId}`;
      return row ? toVerification(row) : undefined;
    },

    latest: async (platformId, userId, type) => {
      const [row] = await sql`
        select * from verifications
        where platform_id = ${platformId} and user_id = ${userId} and type = ${type}
        order by created_at desc, id desc
        limit 1`;
      return row ? toVerification(row) : undefined;
    },

    lockByInquiry: async (tx, provider, inquiryId) => {
      const [row] = await tx`
        select * from verifications where provider = ${provider} and external_inquiry_id = ${inquiryId} for update`;
      return row ? toVerification(row) : undefined;
    },

    findEvent: async (tx, provider, eventId) => {
      const [row] = await tx`
        select verification_id, outcome from identity_provider_events where provider = ${provider} and event_id = ${eventId}`;
      return row ? toEventOutcome(row) : undefined;
    },

    recordEvent: async (tx, e) => {
      const rows = await tx`
        insert into identity_provider_events (provider, event_id, verification_id, outcome)
        values (${e.provider}, ${e.eventId}, ${e.verificationId}, ${e.outcome})
        on conflict do nothing
        returning event_id`;
      return rows.length === 1;
    },

    applyChanges: async (tx, id, c) => {
      const [row] = await tx`
        update verifications set
          status = ${c.status},
          level = coalesce(${c.level ?? null}::text, level),
          risk_rating = coalesce(${c.riskRating ?? null}::text, risk_rating),
          rejection_reason = case when ${c.rejectionReason !== undefined}::boolean then ${c.rejectionReason ?? null}::text else rejection_reason end,
          verified_at = case when ${c.verifiedAt !== undefined}::boolean then ${c.verifiedAt ?? null}::timestamptz else verified_at end,
          expires_at = case when ${c.expiresAt !== undefined}::boolean then ${c.expiresAt ?? null}::timestamptz else expires_at end,
          updated_at = now()
        where id = ${id}
        returning *`;
      return toVerification(row!);
    },
  };
}

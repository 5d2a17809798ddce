import { type Control, type ControlPhase, type ControlTemplate, type ControlType, uuidv7 } from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import { isoOf } from '@holdfast/db';
import type { ChallengeStatus, ControlOutcomeKind } from './tables.js';

export interface ChallengeRow {
  id: string;
  platformId: string;
  transactionId: string;
  controlId: string;
  controlType: 'two_factor' | 'vendor_sms';
  isRequired: boolean;
  recipient: string;
  provider: string;
  codeHash: string;
  salt: string;
  attempts: number;
  maxAttempts: number;
  status: ChallengeStatus;
  expiresAt: string;
  expired: boolean;
  verifiedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface ChallengeDbRow {
  id: string;
  platform_id: string;
  transaction_id: string;
  control_id: string;
  control_type: 'two_factor' | 'vendor_sms';
  is_required: boolean;
  recipient: string;
  provider: string;
  code_hash: string;
  salt: string;
  attempts: number;
  max_attempts: number;
  status: ChallengeStatus;
  expires_at: string | Date;
  expired: boolean;
  verified_at: string | Date | null;
  created_at: string | Date;
  updated_at: string | Date;
}

function toChallenge(r: ChallengeDbRow): ChallengeRow {
  return {
    id: r.id,
    platformId: r.platform_id,
    transactionId: r.transaction_id,
    controlId: r.control_id,
    controlType: r.control_type,
    isRequired: r.is_required,
    recipient: r.recipient,
    provider: r.provider,
    codeHash: r.code_hash,
    salt: r.salt,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    status: r.status,
    expiresAt: isoOf(r.expires_at),
    expired: r.expired,
    verifiedAt: r.verified_at === null ? null : isoOf(r.verified_at),
    createdAt: isoOf(r.created_at),
    updatedAt: isoOf(r.updated_at),
  };
}

interface TemplateDbRow {
  id: string;
  platform_id: string;
  name: string;
  description: string | null;
  version: number;
  controls: Control[];
  created_at: string | Date;
  updated_at: string | Date;
}

function toTemplate(r: TemplateDbRow): ControlTemplate {
  return {
    id: r.id,
    platformId: r.platform_id,
    name: r.name,
    description: r.description,
    version: r.version,
    controls: r.controls,
    createdAt: isoOf(r.created_at),
    updatedAt: isoOf(r.updated_at),
  };
}

export interface NewResult {
  transactionId: string;
  control: Pick<Control, 'id' | 'type' | 'executionPhase' | 'executionOrder'> & { isRequired: boolean };
  outcome: ControlOutcomeKind;
  reason: string | null;
}

export interface ResultRow {
  controlId: string;
  controlType: ControlType;
  executionPhase: ControlPhase;
  executionOrder: number;
  isRequired: boolean;
  outcome: ControlOutcomeKind;
  reason: string | null;
}

/** All SQL of controls: the template library, challenges and the results of control runs. */
type UserActionPurpose = 'two_factor' | 'vendor_sms';

/** A claimed code delivery: the sealed message and whether its challenge still waits for the code. */
export interface DueDelivery {
  challengeId: string;
  transactionId: string;
  purpose: UserActionPurpose;
  sealed: string | null;
  attempts: number;
  challengeOpen: boolean;
}

export function createControlsRepository(sql: Sql) {
  return {
    transaction: <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => sql.begin((tx) => fn(tx)) as Promise<T>,

    async insertTemplate(input: {
      platformId: string;
      name: string;
      description: string | null;
      version: number;
      controls: Control[];
    }): Promise<ControlTemplate> {
      const [row] = await sql<TemplateDbRow[]>`
        insert into control_templates (id, platform_id, name, description, version, controls)
        values (${uuidv7()}, ${input.platformId}, ${input.name}, ${input.description}, ${input.version},
                ${JSON.stringify(input.controls)}::text::jsonb)
        returning *`;
      return toTemplate(row as TemplateDbRow);
    },

    async findTemplate(q: Queryable, platformId: string, id: string): Promise<ControlTemplate | null> {
      const [row] = await q<TemplateDbRow[]>`select * from control_templates where id = ${id} and platform_id = ${platformId}`;
      return row ? toTemplate(row) : null;
    },

    async listTemplates(platformId: string): Promise<ControlTemplate[]> {
      const rows = await sql<TemplateDbRow[]>`
        select * from control_templates where platform_id = ${platformId} order by created_at desc, id desc limit 500`;
      return rows.map(toTemplate);
    },

    /** The code to send once the creating transaction commits (the codes outbox). */
    async insertDelivery(tx: Queryable, d: { challengeId: string; transactionId: string; purpose: UserActionPurpose; sealed: string }) {
      await tx`
        insert into code_deliveries (challenge_id, transaction_id, purpose, sealed)
        values (${d.challengeId}, ${d.transactionId}, ${d.purpose}, ${d.sealed})`;
    },

    /** Up to `limit` due deliveries, leased for `leaseSeconds` (a crashed claimer's are taken over), with their challenge's state. */
    async claimDueDeliveries(tx: Queryable, limit: number, leaseSeconds: number): Promise<DueDelivery[]> {
      const rows = await tx<
        {
          challenge_id: string;
          transaction_id: string;
          purpose: UserActionPurpose;
          sealed: string | null;
          attempts: number;
          challenge_status: ChallengeStatus;
          expired: boolean;
        }[]
      >`
        with due as (
          select challenge_id from code_deliveries
          where (status = 'pending' and next_attempt_at <= now()) or (status = 'sending' and lease_until < now())
          order by next_attempt_at
          limit ${limit}
          for update skip locked
        )
        update code_deliveries d
        set status = 'sending', attempts = d.attempts + 1, lease_until = now() + ${leaseSeconds} * interval '1 second'
        from due, control_challenges c
        where d.challenge_id = due.challenge_id and c.id = d.challenge_id
        returning d.challenge_id, d.transaction_id, d.purpose, d.sealed, d.attempts, c.status as challenge_status,
          c.expires_at <= now() as expired`;
      return rows.map((r) => ({
        challengeId: r.challenge_id,
        transactionId: r.transaction_id,
        purpose: r.purpose,
        sealed: r.sealed,
        attempts: r.attempts,
        challengeOpen: r.challenge_status === 'open' && !r.expired,
      }));
    },

    /** A delivery's end: `sent` (with the gateway's message id), `failed` or `dropped`; the sealed code is wiped. */
    async finishDelivery(
      q: Queryable,
      challengeId: string,
      status: 'sent' | 'failed' | 'dropped',
      messageId: string | null,
      error: string | null,
    ) {
      await q`
        update code_deliveries
        set status = ${status}, sealed = null, message_id = ${messageId}, last_error = ${error}, lease_until = null,
            sent_at = case when ${status} = 'sent' then now() else sent_at end
        where challenge_id = ${challengeId}`;
    },

    async retryDelivery(q: Queryable, challengeId: string, delayMs: number, error: string) {
      await q`
        update code_deliveries
        set status = 'pending', lease_until = null, last_error = ${error}, next_attempt_at = now() + ${delayMs} * interval '1 millisecond'
        where challenge_id = ${challengeId}`;
    },

    async insertChallenge(
      tx: Queryable,
      c: Pick<
        ChallengeRow,
        | 'platformId'
        | 'transactionId'
        | 'controlId'
        | 'controlType'
        | 'isRequired'
        | 'recipient'
        | 'provider'
        | 'codeHash'
        | 'salt'
        | 'maxAttempts'
      > & { ttlMs: number },
    ): Promise<ChallengeRow> {
      const [row] = await tx<ChallengeDbRow[]>`
        insert into control_challenges (id, platform_id, transaction_id, control_id, control_type, is_required, recipient, provider,
                                        code_hash, salt, max_attempts, expires_at)
        values (${uuidv7()}, ${c.platformId}, ${c.transactionId}, ${c.controlId}, ${c.controlType}, ${c.isRequired}, ${c.recipient},
                ${c.provider}, ${c.codeHash}, ${c.salt}, ${c.maxAttempts}, now() + ${c.ttlMs} * interval '1 millisecond')
        returning *, false as expired`;
      return toChallenge(row as ChallengeDbRow);
    },

    /** The open challenge of a transaction for one control type, locked; `expired` is computed by the database clock. */
    async lockOpenChallenge(tx: Queryable, transactionId: string, type: 'two_factor' | 'vendor_sms'): Promise<ChallengeRow | null> {
      const [row] = await tx<ChallengeDbRow[]>`
        select *, expires_at <= now() as expired from control_challenges
        where transaction_id = ${transactionId} and control_type = ${type} and status = 'open'
        for update`;
      return row ? toChallenge(row) : null;
    },

    async updateChallenge(
      tx: Queryable,
      id: string,
      change: { status: ChallengeStatus; attempts: number; verified?: boolean },
    ): Promise<ChallengeRow> {
      const [row] = await tx<ChallengeDbRow[]>`
        update control_challenges set status = ${change.status}, attempts = ${change.attempts},
          verified_at = case when ${change.verified ?? false}::boolean then now() else verified_at end, updated_at = now()
        where id = ${id}
        returning *, expires_at <= now() as expired`;
      return toChallenge(row as ChallengeDbRow);
    },

    async insertResult(tx: Queryable, r: NewResult): Promise<void> {
      await tx`
        insert into control_results (transaction_id, control_id, control_type, execution_phase, execution_order, is_required, outcome, reason)
        values (${r.transactionId}, ${r.control.id}, ${r.control.type}, ${r.control.executionPhase}, ${r.control.executionOrder},
                ${r.control.isRequired}, ${r.outcome}, ${r.reason})`;
    },

    /** The last control that stopped the run (a challenge or a review flag): the run resumes after it. */
    async lastStop(tx: Queryable, transactionId: string): Promise<ResultRow | null> {
      const [row] = await tx<
        {
          control_id: string;
          control_type: ControlType;
          execution_phase: ControlPhase;
          execution_order: number;
          is_required: boolean;
          outcome: ControlOutcomeKind;
          reason: string | null;
        }[]
      >`
        select control_id, control_type, execution_phase, execution_order, is_required, outcome, reason from control_results
        where transaction_id = ${transactionId} and outcome in ('challenged', 'flagged')
        order by seq desc limit 1`;
      return row
        ? {
            controlId: row.control_id,
            controlType: row.control_type,
            executionPhase: row.execution_phase,
            executionOrder: row.execution_order,
            isRequired: row.is_required,
            outcome: row.outcome,
            reason: row.reason,
          }
        : null;
    },
  };
}
export type ControlsRepository = ReturnType<typeof createControlsRepository>;

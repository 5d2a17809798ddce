import { type Control, type ControlPhase, type ControlTemplate, type ControlType, uuidv7 } from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import { isoOf } from '../auth/repository.js';
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

import { type Control, type ControlTemplate, uuidv7 } from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import { rowMapper } from '@holdfast/db';
import {
  type ChallengeStatus,
  type ControlOutcomeKind,
  codeDeliveries,
  controlChallenges,
  controlResults,
  controlTemplates,
} from './tables.js';

/** A challenge as stored (the table's row type), and whether it had expired by the database's clock when read. */
export type ChallengeRow = typeof controlChallenges.$inferSelect & { expired: boolean };

/** A statement's rows: the table's columns and the `expired` it computes. */
type ChallengeDbRow = Record<string, unknown> & { expired: boolean };

const toChallengeColumns = rowMapper(controlChallenges);
const toChallenge = (r: ChallengeDbRow): ChallengeRow => ({ ...toChallengeColumns(r), expired: r.expired });

/** A template as stored is its API record. */
const toTemplate: (row: Record<string, unknown>) => ControlTemplate = rowMapper(controlTemplates);

export interface NewResult {
  transactionId: string;
  control: Pick<Control, 'id' | 'type' | 'executionPhase' | 'executionOrder'> & { isRequired: boolean };
  outcome: ControlOutcomeKind;
  reason: string | null;
}

const RESULT_COLUMNS = ['controlId', 'controlType', 'executionPhase', 'executionOrder', 'isRequired', 'outcome', 'reason'] as const;
/** What a later run reads of a control's result: which control it was and how it ended. */
export type ResultRow = Pick<typeof controlResults.$inferSelect, (typeof RESULT_COLUMNS)[number]>;
const toResult = rowMapper(controlResults, { only: RESULT_COLUMNS });

/** All SQL of controls: the template library, challenges and the results of control runs. */
type UserActionPurpose = 'two_factor' | 'vendor_sms';

const DUE_DELIVERY_COLUMNS = ['challengeId', 'transactionId', 'purpose', 'sealed', 'attempts'] as const;
/** A claimed code delivery: the sealed message and whether its challenge still waits for the code. */
export type DueDelivery = Pick<typeof codeDeliveries.$inferSelect, (typeof DUE_DELIVERY_COLUMNS)[number]> & { challengeOpen: boolean };
const toDueDelivery = rowMapper(codeDeliveries, { only: DUE_DELIVERY_COLUMNS });

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
      const [row] = await sql`
        insert into control_templates (id, platform_id, name, description, version, controls)
        values (${uuidv7()}, ${input.platformId}, ${input.name}, ${input.description}, ${input.version},
                ${JSON.stringify(input.controls)}::text::jsonb)
        returning *`;
      return toTemplate(row!);
    },

    async findTemplate(q: Queryable, platformId: string, id: string): Promise<ControlTemplate | null> {
      const [row] = await q`select * from control_templates where id = ${id} and platform_id = ${platformId}`;
      return row ? toTemplate(row) : null;
    },

    async listTemplates(platformId: string): Promise<ControlTemplate[]> {
      const rows = await sql`
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
      const rows = await tx<(Record<string, unknown> & { challenge_status: ChallengeStatus; expired: boolean })[]>`
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
      return rows.map((r) => ({ ...toDueDelivery(r), challengeOpen: r.challenge_status === 'open' && !r.expired }));
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
      return toChallenge(row!);
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
      return toChallenge(row!);
    },

    async insertResult(tx: Queryable, r: NewResult): Promise<void> {
      await tx`
        insert into control_results (transaction_id, control_id, control_type, execution_phase, execution_order, is_required, outcome, reason)
        values (${r.transactionId}, ${r.control.id}, ${r.control.type}, ${r.control.executionPhase}, ${r.control.executionOrder},
                ${r.control.isRequired}, ${r.outcome}, ${r.reason})`;
    },

    /** The last control that stopped the run (a challenge or a review flag): the run resumes after it. */
    async lastStop(tx: Queryable, transactionId: string): Promise<ResultRow | null> {
      const [row] = await tx`
        select control_id, control_type, execution_phase, execution_order, is_required, outcome, reason from control_results
        where transaction_id = ${transactionId} and outcome in ('challenged', 'flagged')
        order by seq desc limit 1`;
      return row ? toResult(row) : null;
    },
  };
}
export type ControlsRepository = ReturnType<typeof createControlsRepository>;

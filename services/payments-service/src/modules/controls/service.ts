import { randomInt } from 'node:crypto';
import {
  AppError,
  type Control,
  type ControlTemplate,
  type ControlVerification,
  type CreateControlTemplateBody,
  type EmbeddedTemplate,
  notFound,
  type PaymentsTransaction,
  type RiskReviewDecisionBody,
  type VerifyControlCodeBody,
  validationError,
} from '@holdfast/contracts';
import type { Queryable } from '@holdfast/db';
import { hmacSha256, type SecretBox, safeEqual } from '@holdfast/secrets';
import type { Principal } from '../auth/index.js';
import {
  type ControlsGate,
  type ControlsOutcome,
  type PreparedTemplate,
  type TransactionMoves,
  type TransactionRow,
  type TransactionsRepository,
  toPaymentsTransaction,
} from '../transactions/index.js';
import { deliveryContext } from './delivery.js';
import type { ChallengeRow, ControlsRepository } from './repository.js';
import { controlProblems, controlsOfPhase, embeddedTemplateProblems, evaluate } from './rules.js';
import { maskPhone, type SmsGateway } from './sms.js';

export type UserActionType = 'two_factor' | 'vendor_sms';

export interface ControlsDeps {
  repository: ControlsRepository;
  transactions: TransactionsRepository;
  moves: TransactionMoves;
  /** Delivers two_factor codes. */
  sms: SmsGateway;
  /** Delivers vendor_sms codes (the SMS vendor's own verification product). */
  vendorSms: SmsGateway;
  /** Lifetime of a code (CONTROLS_CODE_TTL). */
  codeTtlMs: number;
  /** Wrong codes allowed per challenge before the control fails (CONTROLS_CODE_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** Seals codes in the outbox until the delivery worker sends them; null: no key, no codes. */
  box: SecretBox | null;
}

const LABEL: Record<UserActionType, string> = { two_factor: 'two-factor', vendor_sms: 'vendor SMS' };

/** A control as stored in a snapshot: `isRequired` and `isActive` filled in. */
type StoredControl = Control & { isRequired: boolean; isActive: boolean };

const stored = (c: Control): StoredControl => ({ ...c, isRequired: c.isRequired ?? true, isActive: c.isActive ?? true });

function controlsOf(snapshot: Record<string, unknown> | null): StoredControl[] {
  const controls = snapshot?.controls;
  return Array.isArray(controls) ? (controls as Control[]).map(stored) : [];
}

/**
 * One-time codes are stored as MACs under a key derived from DATA_ENCRYPTION_KEY (never with a
 * salt stored beside them: six digits and their salt are a million tries away), bound to the
 * transaction and control they were sent for (docs/controls.md).
 */
const CODE_PURPOSE = 'control-codes';
const codeOwner = (transactionId: string, controlId: string, code: string) => `${transactionId}:${controlId}:${code}`;

function codeMatches(box: SecretBox | null, code: string, challenge: ChallengeRow): boolean {
  // A challenge opened before codes were keyed (salt kept, minutes old at most) checks the old way.
  if (challenge.salt !== '') return safeEqual(challenge.codeHash, hmacSha256(challenge.salt, code));
  return box?.macMatches(CODE_PURPOSE, codeOwner(challenge.transactionId, challenge.controlId, code), challenge.codeHash) ?? false;
}

/**
 * Runs templates' controls and owns their one-time codes and reviews. The `gate` is what
 * transaction creation calls; the other functions serve the controls routes.
 */
export function createControlsService(deps: ControlsDeps) {
  const { repository, transactions, moves } = deps;

  /**
   * Records the challenge of a user-action control and puts its code in the codes outbox, in the
   * caller's transaction: the delivery worker sends it once that transaction committed, so a
   * rollback sends nothing (docs/controls.md, "Codes after commit").
   */
  async function challenge(tx: Queryable, row: TransactionRow, control: StoredControl, phone: string): Promise<void> {
    const type = control.type as UserActionType;
    const gateway = type === 'two_factor' ? deps.sms : deps.vendorSms;
    if (gateway.configured === false || !deps.box) {
      // Refused before anything is written: a code nobody can send would leave the transaction waiting forever.
      throw new AppError(
        'UPSTREAM_UNAVAILABLE',
        `No ${LABEL[type]} code can be sent: no SMS gateway (or DATA_ENCRYPTION_KEY) is configured`,
        {
          provider: gateway.provider,
          configured: false,
        },
      );
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const created = await repository.insertChallenge(tx, {
      platformId: row.platformId,
      transactionId: row.id,
      controlId: control.id,
      controlType: type,
      isRequired: control.isRequired,
      recipient: maskPhone(phone),
      provider: gateway.provider,
      codeHash: deps.box.mac(CODE_PURPOSE, codeOwner(row.id, control.id, code)),
      salt: '',
      maxAttempts: deps.maxAttempts,
      ttlMs: deps.codeTtlMs,
    });
    const minutes = Math.max(1, Math.round(deps.codeTtlMs / 60_000));
    const message = { to: phone, code, text: `Your Holdfast verification code is ${code}. It expires in ${minutes} minutes.` };
    await repository.insertDelivery(tx, {
      challengeId: created.id,
      transactionId: row.id,
      purpose: type,
      sealed: deps.box.seal(JSON.stringify(message), deliveryContext(created.id)),
    });
  }

  /**
   * Runs the `pre_escrow` controls of a transaction in execution order, starting after the control
   * `afterId` (a resumed run) or at the first. Stops at the first control that calls for a move.
   */
  async function runFrom(tx: Queryable, row: TransactionRow, controls: StoredControl[], afterId: string | null): Promise<ControlsOutcome> {
    let ordered = controlsOfPhase(controls) as StoredControl[];
    if (afterId !== null) ordered = ordered.slice(ordered.findIndex((c) => c.id === afterId) + 1);
    for (const control of ordered) {
      const record = (outcome: 'passed' | 'failed' | 'skipped' | 'challenged' | 'flagged', reason: string | null = null) =>
        repository.insertResult(tx, { transactionId: row.id, control, outcome, reason });
      if (!control.isActive) {
        await record('skipped', 'inactive');
        continue;
      }
      const verdict = evaluate(control, row);
      switch (verdict.kind) {
        case 'passed':
          await record('passed');
          break;
        case 'skipped':
          await record('skipped', verdict.reason);
          break;
        case 'failed': {
          await record('failed', verdict.reason);
          if (control.isRequired)
            return { action: 'fail_control', reason: `control ${control.id} (${control.type}) failed: ${verdict.reason}` };
          break;
        }
        case 'flag':
          await record('flagged', verdict.reason);
          return { action: 'flag_for_review', reason: `control ${control.id} (risk_review): ${verdict.reason}` };
        case 'challenge':
          await challenge(tx, row, control, verdict.phone);
          await record('challenged', `code sent to ${maskPhone(verdict.phone)}`);
          return { action: 'require_user_action', reason: `control ${control.id} (${control.type}) waits for the SMS code` };
      }
    }
    return { action: null };
  }

  /**
   * The `pre_release` controls of an escrowed transaction, in execution order, when its release is
   * attested: each result is recorded (in the caller's transaction); the first required control
   * that fails refuses the release. Answers the refusal's reason, or null to go ahead.
   */
  async function checkRelease(tx: Queryable, row: TransactionRow): Promise<string | null> {
    for (const control of controlsOfPhase(controlsOf(row.template), 'pre_release') as StoredControl[]) {
      const record = (outcome: 'passed' | 'failed' | 'skipped', reason: string | null = null) =>
        repository.insertResult(tx, { transactionId: row.id, control, outcome, reason });
      if (!control.isActive) {
        await record('skipped', 'inactive');
        continue;
      }
      const verdict = evaluate(control, row);
      if (verdict.kind === 'failed') {
        await record('failed', verdict.reason);
        if (control.isRequired) return `control ${control.id} (${control.type}) refused the release: ${verdict.reason}`;
      } else if (verdict.kind === 'passed') {
        await record('passed');
      } else {
        // Templates cannot put a waiting control in this phase (rules.ts); one stored before that rule is skipped.
        await record('skipped', `a ${control.type} control does not run before a release`);
      }
    }
    return null;
  }

  /** Applies a run's outcome as a move (outside creation, which applies its own). */
  async function apply(tx: Queryable, row: TransactionRow, outcome: ControlsOutcome, actor: string): Promise<void> {
    if (!outcome.action) return;
    await moves.move(tx, {
      transactionId: row.id,
      action: outcome.action,
      actor,
      reason: outcome.reason ?? null,
      patch: outcome.action === 'fail_control' && outcome.reason ? { failureReason: outcome.reason } : undefined,
    });
  }

  /** After a user-action control ended: back to `pending`, then the controls after it. */
  async function continueAfter(tx: Queryable, row: TransactionRow, controlId: string, actor: string): Promise<void> {
    const { after } = await moves.move(tx, { transactionId: row.id, action: 'complete_user_action', actor });
    await apply(tx, after, await runFrom(tx, after, controlsOf(after.template), controlId), actor);
  }

  function controlIn(row: TransactionRow, challengeRow: ChallengeRow): StoredControl {
    return (
      controlsOf(row.template).find((c) => c.id === challengeRow.controlId) ??
      stored({
        id: challengeRow.controlId,
        type: challengeRow.controlType,
        name: challengeRow.controlId,
        executionPhase: 'pre_escrow',
        executionOrder: 0,
        config: {},
        isRequired: challengeRow.isRequired,
      })
    );
  }

  /** A user-action control failed for good (expired, attempts used up): fail the transaction, or move on when optional. */
  async function closeFailed(tx: Queryable, row: TransactionRow, challengeRow: ChallengeRow, why: string, actor: string): Promise<void> {
    const control = controlIn(row, challengeRow);
    await repository.insertResult(tx, {
      transactionId: row.id,
      control: { ...control, isRequired: challengeRow.isRequired },
      outcome: 'failed',
      reason: why,
    });
    if (challengeRow.isRequired) {
      const reason = `control ${control.id} (${control.type}) failed: ${why}`;
      await moves.move(tx, { transactionId: row.id, action: 'fail_control', actor, reason, patch: { failureReason: reason } });
    } else {
      await continueAfter(tx, row, control.id, actor);
    }
  }

  function verificationOf(row: TransactionRow, c: ChallengeRow, transactionStatus: string): ControlVerification {
    return {
      id: c.id,
      platformId: c.platformId,
      userId: row.customerId ?? row.fromAddress,
      type: 'phone',
      status: c.status === 'open' ? 'pending' : c.status,
      level: null,
      riskRating: null,
      provider: c.provider,
      externalInquiryId: null,
      externalSessionToken: null,
      metadata: {
        transactionId: row.id,
        transactionStatus,
        controlId: c.controlId,
        controlType: c.controlType,
        recipient: c.recipient,
        attempts: c.attempts,
      },
      rejectionReason: null,
      verifiedAt: c.verifiedAt,
      expiresAt: c.expiresAt,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
    };
  }

  type VerifyResult =
    | { kind: 'approved'; verification: ControlVerification }
    | { kind: 'wrong'; attemptsRemaining: number; transactionStatus: string }
    | { kind: 'expired'; transactionStatus: string };

  /**
   * Checks a code. A right code marks the challenge used and moves the transaction back to
   * `pending` (then runs the controls after it) in one database transaction. A wrong or expired
   * code is committed (attempt counted, transaction failed when it was the last) before the 400.
   */
  async function verifyCode(principal: Principal, type: UserActionType, body: VerifyControlCodeBody): Promise<ControlVerification> {
    const actor = `platform:${principal.platformId}`;
    const result = await repository.transaction<VerifyResult>(async (tx) => {
      const row = await transactions.lock(tx, body.transactionId, principal.platformId);
      if (!row) throw notFound('Transaction');
      const open = row.status === 'pending_user_action' ? await repository.lockOpenChallenge(tx, row.id, type) : null;
      if (!open) {
        throw new AppError('CONFLICT', `The transaction has no open ${LABEL[type]} code to verify`, { transactionStatus: row.status });
      }
      const statusNow = async () => (await transactions.find(tx, row.id))?.status ?? row.status;
      if (open.expired) {
        await repository.updateChallenge(tx, open.id, { status: 'expired', attempts: open.attempts });
        await closeFailed(tx, row, open, 'the code expired', actor);
        return { kind: 'expired', transactionStatus: await statusNow() };
      }
      if (!codeMatches(deps.box, body.code, open)) {
        const attempts = open.attempts + 1;
        const attemptsRemaining = Math.max(0, open.maxAttempts - attempts);
        await repository.updateChallenge(tx, open.id, { status: attemptsRemaining > 0 ? 'open' : 'rejected', attempts });
        if (attemptsRemaining === 0) await closeFailed(tx, row, open, 'too many wrong codes', actor);
        return { kind: 'wrong', attemptsRemaining, transactionStatus: await statusNow() };
      }
      const approved = await repository.updateChallenge(tx, open.id, { status: 'approved', attempts: open.attempts, verified: true });
      const control = controlIn(row, open);
      await repository.insertResult(tx, { transactionId: row.id, control, outcome: 'approved', reason: 'code verified' });
      await continueAfter(tx, row, control.id, actor);
      return { kind: 'approved', verification: verificationOf(row, approved, await statusNow()) };
    });
    if (result.kind === 'approved') return result.verification;
    if (result.kind === 'expired') {
      throw new AppError('INVALID_CODE', `The ${LABEL[type]} code expired`, {
        reason: 'expired',
        attemptsRemaining: 0,
        transactionStatus: result.transactionStatus,
      });
    }
    throw new AppError('INVALID_CODE', `The ${LABEL[type]} code is wrong`, {
      reason: 'wrong_code',
      attemptsRemaining: result.attemptsRemaining,
      transactionStatus: result.transactionStatus,
    });
  }

  /** An operator's decision on a transaction in `risk_review` (any platform's: `admin:platform`). */
  async function decideReview(principal: Principal, transactionId: string, body: RiskReviewDecisionBody): Promise<PaymentsTransaction> {
    const actor = `platform:${principal.platformId}`;
    return repository.transaction(async (tx) => {
      const row = await transactions.lock(tx, transactionId);
      if (!row) throw notFound('Transaction');
      const stop = row.status === 'risk_review' ? await repository.lastStop(tx, row.id) : null;
      const flagged = stop?.outcome === 'flagged' ? stop : null;
      const reason = body.reason ?? (body.decision === 'approve' ? 'risk review approved' : 'risk review rejected');
      if (body.decision === 'approve') {
        const { after } = await moves.move(tx, { transactionId: row.id, action: 'approve_review', actor, reason });
        if (flagged) {
          await recordDecision(tx, row.id, flagged, 'approved', reason);
          await apply(tx, after, await runFrom(tx, after, controlsOf(after.template), flagged.controlId), actor);
        }
      } else {
        await moves.move(tx, { transactionId: row.id, action: 'reject_review', actor, reason, patch: { failureReason: reason } });
        if (flagged) await recordDecision(tx, row.id, flagged, 'rejected', reason);
      }
      const final = await transactions.find(tx, row.id);
      return toPaymentsTransaction(final as TransactionRow);
    });
  }

  function recordDecision(
    tx: Queryable,
    transactionId: string,
    stop: NonNullable<Awaited<ReturnType<ControlsRepository['lastStop']>>>,
    outcome: 'approved' | 'rejected',
    reason: string,
  ) {
    return repository.insertResult(tx, {
      transactionId,
      control: {
        id: stop.controlId,
        type: stop.controlType,
        executionPhase: stop.executionPhase,
        executionOrder: stop.executionOrder,
        isRequired: stop.isRequired,
      },
      outcome,
      reason,
    });
  }

  // ------------------------------------------------------------------ template library

  async function createTemplate(principal: Principal, body: CreateControlTemplateBody): Promise<ControlTemplate> {
    const problems = controlProblems(body.controls, 'controls');
    if (problems.length > 0) throw validationError(problems);
    return repository.insertTemplate({
      platformId: principal.platformId,
      name: body.name,
      description: body.description ?? null,
      version: body.version ?? 1,
      controls: body.controls.map(stored),
    });
  }

  async function getTemplate(principal: Principal, id: string): Promise<ControlTemplate> {
    const template = await repository.transaction((tx) => repository.findTemplate(tx, principal.platformId, id));
    if (!template) throw notFound('Control template');
    return template;
  }

  const listTemplates = (principal: Principal) => repository.listTemplates(principal.platformId);

  // ------------------------------------------------------------------ the gate creation calls

  const gate: ControlsGate = {
    async prepare(platformId, input) {
      if (input.templateId) {
        const template = await repository.transaction((tx) => repository.findTemplate(tx, platformId, input.templateId as string));
        if (!template) throw notFound('Control template', { field: 'templateId' });
        return {
          templateId: template.id,
          snapshot: {
            templateId: template.id,
            templateName: template.name,
            templateVersion: template.version,
            controls: template.controls.map(stored),
          },
        };
      }
      if (input.template) {
        const problems = embeddedTemplateProblems(input.template);
        if (problems.length > 0) throw validationError(problems);
        const t = input.template as unknown as EmbeddedTemplate;
        return {
          templateId: null,
          snapshot: {
            templateId: t.templateId ?? null,
            templateName: t.templateName,
            templateVersion: t.templateVersion ?? null,
            controls: t.controls.map(stored),
            // The template's hold period and rescind rules are creation's (docs/transactions.md).
            ...(t.holdPeriodSeconds !== undefined ? { holdPeriodSeconds: t.holdPeriodSeconds } : {}),
            ...(t.rescind ? { rescind: t.rescind } : {}),
          },
        };
      }
      return { templateId: null, snapshot: null };
    },

    async afterCreate(tx, transaction, template: PreparedTemplate) {
      if (!template.snapshot) return { action: null };
      return runFrom(tx, transaction, controlsOf(template.snapshot), null);
    },
  };

  return { gate, checkRelease, verifyCode, decideReview, createTemplate, getTemplate, listTemplates };
}
export type ControlsService = ReturnType<typeof createControlsService>;

/** The gate transaction creation takes (`controls: ControlsGate`). */
export function createControlsGate(deps: ControlsDeps): ControlsGate {
  return createControlsService(deps).gate;
}

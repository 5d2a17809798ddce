import {
  AppError,
  type CreateDisputeBody,
  DISPUTE_TIERS,
  type Dispute,
  type DomainEvent,
  type EventPayload,
  type Evidence,
  type ListDisputesQuery,
  notFound,
  type ResolveDisputeBody,
  type SettlementKind,
  type SubmitEvidenceBody,
  uuidv7,
  validationError,
} from '@holdfast/contracts';
import { appendToOutboxSql, type Queryable, type Sql } from '@holdfast/db';
import { SCHEMA_NAME } from '../../db/pg-schema.js';
import type { Principal } from '../auth/index.js';
import type { AnswerInTransaction } from '../idempotency/index.js';
import type { TransactionsRepository } from '../transactions/index.js';
import { DISPUTABLE_STATUSES, type TransactionMoves, transactionEvent } from '../transactions/index.js';
import { bpsOfDecimal, type DisputeResolution, type DisputeRow, type DisputesRepository, decimalOfBps } from './repository.js';
import { acceptsEvidence, DISPUTE_TIER_TABLE, escalation, resolution } from './state-machine.js';

/** The API record of a dispute row and its evidence. */
export function toDispute(row: DisputeRow, evidence: Evidence[]): Dispute {
  return {
    id: row.id,
    transactionId: row.transactionId,
    initiatedBy: row.initiatedBy,
    currentTier: row.currentTier,
    status: row.status,
    reason: row.reason,
    tier1CompletedAt: row.tier1CompletedAt,
    tier2CompletedAt: row.tier2CompletedAt,
    resolvedAt: row.resolvedAt,
    outcome: row.outcome,
    resolutionReason: row.resolutionReason,
    refundPercentage: row.refundPercentage === null ? null : bpsOfDecimal(row.refundPercentage) / 100,
    metadata: row.metadata,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    evidence,
  };
}

/** The `dispute` of every dispute event. */
function disputeRef(row: DisputeRow) {
  return {
    id: row.id,
    transactionId: row.transactionId,
    status: row.status,
    currentTier: row.currentTier,
    initiatedBy: row.initiatedBy,
    outcome: row.outcome,
    refundPercentage: row.refundPercentage === null ? null : bpsOfDecimal(row.refundPercentage) / 100,
  };
}

/** A dispute event, owned by the dispute's platform and routed to its transaction's workspace. */
const disputeEvent = <T extends 'dispute.created' | 'dispute.escalated' | 'dispute.resolved' | 'evidence.submitted'>(
  type: T,
  row: DisputeRow,
  data: EventPayload<T>,
): DomainEvent => transactionEvent(type, row, data);

const actorOf = (principal: Principal) => `platform:${principal.platformId}`;

export interface DisputesService {
  list: (principal: Principal, query: ListDisputesQuery) => Promise<Dispute[]>;
  create: (principal: Principal, body: CreateDisputeBody) => Promise<Dispute>;
  get: (principal: Principal, id: string) => Promise<Dispute>;
  /** `answer`: the Idempotency-Key's answer stored with the escalation (a retry after the commit is answered, not run). */
  escalate: (principal: Principal, id: string, answer?: AnswerInTransaction) => Promise<Dispute>;
  /** `answer`: as escalate's; without it a retry after the commit would store the evidence twice. */
  submitEvidence: (principal: Principal, id: string, body: SubmitEvidenceBody, answer?: AnswerInTransaction) => Promise<Evidence>;
  resolve: (principal: Principal, id: string, body: ResolveDisputeBody) => Promise<Dispute>;
  /** The outcome and refund share of a transaction's resolved dispute (on-chain settlement), or null. */
  resolutionFor: (q: Queryable, transactionId: string) => Promise<DisputeResolution | null>;
}

export function createDisputesService(deps: {
  sql: Sql;
  repository: DisputesRepository;
  transactions: TransactionsRepository;
  moves: TransactionMoves;
  /**
   * Writes the on-chain instruction of an outcome (the settlement worker's `release` or
   * `refund(id, bps)` with the attester key) in the resolution's transaction. Escrowed
   * (`platform`) transactions only: a raw transfer has nothing on chain to move.
   */
  settle?: (tx: Queryable, input: { transactionId: string; kind: SettlementKind; refundBps?: number }) => Promise<void>;
}): DisputesService {
  const { sql, repository, transactions, moves } = deps;

  async function withEvidence(q: Queryable, row: DisputeRow): Promise<Dispute> {
    const evidence = await repository.evidenceOf(q, [row.id]);
    return toDispute(row, evidence.get(row.id) ?? []);
  }

  return {
    async list(principal, query) {
      const rows = await repository.list(sql, principal.platformId, {
        status: query.status,
        transactionId: query.transactionId,
        limit: query.limit ?? 100,
      });
      const evidence = await repository.evidenceOf(
        sql,
        rows.map((r) => r.id),
      );
      return rows.map((r) => toDispute(r, evidence.get(r.id) ?? []));
    },

    async get(principal, id) {
      const row = await repository.find(sql, id, principal.platformId);
      if (!row) throw notFound('Dispute');
      return withEvidence(sql, row);
    },

    async create(principal, body) {
      const row = await sql.begin(async (tx) => {
        // The transaction's row lock serializes concurrent opens; the unique index is the backstop.
        const transaction = await transactions.lock(tx, body.transactionId, principal.platformId);
        if (!transaction) throw notFound('Transaction');
        if (await repository.existsForTransaction(tx, transaction.id)) {
          throw new AppError('CONFLICT', 'A dispute already exists for this transaction', { transactionId: transaction.id });
        }
        if (!DISPUTABLE_STATUSES.includes(transaction.status)) {
          throw new AppError('NOT_DISPUTABLE', `A transaction that is ${transaction.status} cannot be disputed`, {
            status: transaction.status,
            disputableStatuses: DISPUTABLE_STATUSES,
          });
        }
        const tier = DISPUTE_TIERS[0];
        const inserted = await repository.insert(tx, {
          id: uuidv7(),
          platformId: principal.platformId,
          workspaceId: transaction.workspaceId,
          transactionId: transaction.id,
          initiatedBy: body.initiatedBy,
          currentTier: tier,
          status: DISPUTE_TIER_TABLE[tier].status,
          reason: body.reason,
          metadata: body.metadata ?? {},
        });
        if (!inserted) throw new AppError('CONFLICT', 'A dispute already exists for this transaction', { transactionId: transaction.id });
        await moves.move(tx, {
          transactionId: transaction.id,
          action: 'open_dispute',
          actor: actorOf(principal),
          platformId: principal.platformId,
          reason: body.reason,
        });
        // An escrowed transaction's escrow is frozen while the dispute is decided: otherwise its
        // expiry escape (`claimExpired`, anyone, once it expires) could pay the receiver meanwhile.
        if (deps.settle && transaction.orchestrationType === 'platform' && transaction.escrowAddress) {
          await deps.settle(tx, { transactionId: transaction.id, kind: 'freeze' });
        }
        await appendToOutboxSql(tx, SCHEMA_NAME, [disputeEvent('dispute.created', inserted, { dispute: disputeRef(inserted) })]);
        return inserted;
      });
      return toDispute(row, []);
    },

    async escalate(principal, id, answer) {
      return sql.begin(async (tx) => {
        const before = await repository.lock(tx, id, principal.platformId);
        if (!before) throw notFound('Dispute');
        const next = escalation(before);
        if (!next.ok) throw new AppError(next.code, next.message, { status: before.status, currentTier: before.currentTier });
        const after = await repository.escalate(tx, id, next);
        await appendToOutboxSql(tx, SCHEMA_NAME, [
          disputeEvent('dispute.escalated', after, { dispute: disputeRef(after), previousTier: before.currentTier }),
        ]);
        const escalated = await withEvidence(tx, after);
        await answer?.(tx, 200, escalated);
        return escalated;
      });
    },

    async submitEvidence(principal, id, body, answer) {
      return sql.begin(async (tx) => {
        // Locked like a resolve: evidence and a concurrent resolution cannot interleave.
        const dispute = await repository.lock(tx, id, principal.platformId);
        if (!dispute) throw notFound('Dispute');
        const allowed = acceptsEvidence(dispute.status);
        if (!allowed.ok) throw new AppError(allowed.code, allowed.message, { status: dispute.status });
        const evidence = await repository.insertEvidence(tx, {
          id: uuidv7(),
          disputeId: dispute.id,
          submittedBy: body.submittedBy,
          type: body.type,
          title: body.title,
          description: body.description ?? null,
          content: body.content ?? null,
          fileUrl: body.fileUrl ?? null,
          fileHash: body.fileHash ?? null,
          isEncrypted: body.isEncrypted ?? false,
          metadata: body.metadata ?? {},
        });
        await repository.touch(tx, dispute.id);
        await appendToOutboxSql(tx, SCHEMA_NAME, [
          disputeEvent('evidence.submitted', dispute, {
            dispute: disputeRef(dispute),
            evidence: { id: evidence.id, type: evidence.type, title: evidence.title, submittedBy: evidence.submittedBy },
          }),
        ]);
        await answer?.(tx, 201, evidence);
        return evidence;
      });
    },

    async resolve(principal, id, body) {
      const decided = resolution(body.outcome, body.refundPercentage);
      if (!decided.ok) throw validationError([{ field: 'refundPercentage', reason: decided.message }]);
      return sql.begin(async (tx) => {
        // The dispute's row lock: of two concurrent resolutions, the second sees `resolved`.
        const before = await repository.lock(tx, id, principal.platformId);
        if (!before) throw notFound('Dispute');
        if (before.status === 'resolved') {
          throw new AppError('DISPUTE_RESOLVED', 'The dispute is already resolved', { outcome: before.outcome });
        }
        const after = await repository.resolve(tx, id, {
          outcome: decided.outcome,
          resolutionReason: body.resolutionReason,
          refundPercentage: decimalOfBps(decided.refundBps),
          resolvedBy: actorOf(principal),
        });
        await appendToOutboxSql(tx, SCHEMA_NAME, [disputeEvent('dispute.resolved', after, { dispute: disputeRef(after) })]);
        const moved = await moves.move(tx, {
          transactionId: before.transactionId,
          action: decided.action,
          actor: actorOf(principal),
          platformId: principal.platformId,
          reason:
            decided.outcome === 'partial_refund'
              ? `dispute resolved: partial_refund, ${decided.refundPercentage}% to the sender`
              : `dispute resolved: ${decided.outcome}`,
        });
        if (deps.settle && moved.after.orchestrationType === 'platform') {
          await deps.settle(
            tx,
            decided.outcome === 'favor_receiver'
              ? { transactionId: before.transactionId, kind: 'release' }
              : { transactionId: before.transactionId, kind: 'refund', refundBps: decided.refundBps },
          );
        }
        return withEvidence(tx, after);
      });
    },

    resolutionFor: (q, transactionId) => repository.resolutionFor(q, transactionId),
  };
}

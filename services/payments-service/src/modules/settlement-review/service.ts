import {
  AppError,
  type DisputedClaim,
  type DisputedClaimList,
  type DisputedClaimQuery,
  type OperatorActionBody,
  paginationMeta,
  type ResolveDisputedClaimBody,
  type SettlementItem,
  type SettlementItemList,
  type SettlementItemQuery,
  validationError,
} from '@holdfast/contracts';
import type { Queryable, Sql } from '@holdfast/db';
import type { Logger } from '@holdfast/logging';
import type { Principal } from '../auth/index.js';
import type { TransactionMoves } from '../transactions/index.js';
import { claimKey, type DisputedClaimRow, type ItemRow, type SettlementReviewRepository } from './repository.js';

/** Who acted, as the audit trail names them. */
const actorOf = (p: Principal) => (p.keyId ? `api_key:${p.keyId}` : `oauth_client:${p.clientId ?? 'unknown'}`);

/**
 * The operator's desk for settlement (docs/settlement.md, "Operator runbook"): the instructions and
 * CHAIN messages that need a person, listed, retried (a failed instruction) and resolved, each
 * action recorded with who and why in the same database transaction as the change.
 */
export function createSettlementReviewService(deps: {
  sql: Sql;
  repository: SettlementReviewRepository;
  /** The transactions' moves: resolving a disputed claim fails the transactions the transfer did not pay. */
  moves: TransactionMoves;
  logger: Logger;
}) {
  const { sql, repository, moves } = deps;
  const log = deps.logger.child({ component: 'settlement-review' });

  async function withActions(rows: ItemRow[]): Promise<SettlementItem[]> {
    const actions = await repository.actionsOf(sql, rows);
    return rows.map((r) => ({ ...r, actions: actions.get(`${r.kind}|${r.id}`) ?? [] }));
  }

  async function act(
    principal: Principal,
    kind: 'settlement' | 'chain_message',
    id: string,
    action: 'retry' | 'resolve',
    body: OperatorActionBody,
  ): Promise<SettlementItem> {
    const row = await sql.begin(async (tx) => {
      const item = kind === 'settlement' ? await repository.lockSettlement(tx, id) : await repository.lockChainMessage(tx, id);
      if (!item) throw new AppError('NOT_FOUND', kind === 'settlement' ? 'Settlement not found' : 'CHAIN message not found');
      const needsPerson =
        kind === 'settlement'
          ? ['failed', 'superseded'].includes(item.status)
          : ['conflict', 'rejected', 'correction_unapplied'].includes(item.status);
      if (!needsPerson || item.resolvedAt !== null) {
        throw new AppError(
          'INVALID_STATE_TRANSITION',
          `This ${kind.replace('_', ' ')} does not need an operator (it is ${item.resolvedAt ? 'resolved' : item.status})`,
          {
            status: item.status,
            resolvedAt: item.resolvedAt,
          },
        );
      }
      if (action === 'retry') {
        if (kind !== 'settlement' || item.status !== 'failed') {
          throw new AppError(
            'INVALID_STATE_TRANSITION',
            item.status === 'superseded'
              ? 'A superseded instruction cannot be retried: the chain settled the escrow otherwise; resolve it'
              : 'Only a failed settlement instruction can be retried; resolve this item once its cause is dealt with',
            { status: item.status, allowedActions: ['resolve'] },
          );
        }
        await repository.retrySettlement(tx, id);
      } else {
        await repository.resolve(tx, kind, id);
      }
      await repository.recordAction(tx, {
        itemKind: kind,
        itemId: id,
        action,
        actor: actorOf(principal),
        actorPlatformId: principal.platformId,
        reason: body.reason,
        fromStatus: item.status,
      });
      return (kind === 'settlement' ? await repository.lockSettlement(tx, id) : await repository.lockChainMessage(tx, id)) as ItemRow;
    });
    log.info({ kind, id, action, actor: actorOf(principal), transactionId: row.transactionId }, `settlement item ${action} by an operator`);
    const [out] = await withActions([row]);
    return out as SettlementItem;
  }

  async function withClaims(q: Queryable, rows: DisputedClaimRow[]): Promise<DisputedClaim[]> {
    const claims = await repository.claimsOf(q, rows);
    return rows.map((r) => ({ ...r, claims: claims.get(claimKey(r)) ?? [] }));
  }

  /**
   * An operator names the transaction a disputed plain transfer paid (docs/settlement.md, "Disputed
   * claims"): every other claiming transaction still completed moves to failed (`void_transfer`,
   * `transaction.failed` with the reason), in one database transaction with the resolution and the
   * audit row. Validated before any write: an unknown claim is 404, a resolved one 409, a
   * transaction that did not claim the transfer 400.
   */
  async function resolveDisputedClaim(principal: Principal, id: string, body: ResolveDisputedClaimBody): Promise<DisputedClaim> {
    const actor = actorOf(principal);
    const out = await sql.begin(async (tx) => {
      const claim = await repository.lockDisputedClaim(tx, id);
      if (!claim) throw new AppError('NOT_FOUND', 'Disputed claim not found');
      if (claim.status !== 'open') {
        throw new AppError('INVALID_STATE_TRANSITION', 'This disputed claim is already resolved', {
          status: claim.status,
          rightfulTransactionId: claim.rightfulTransactionId,
        });
      }
      const [withAll] = await withClaims(tx, [claim]);
      const claims = withAll?.claims ?? [];
      const rightful = claims.find((c) => c.transactionId === body.rightfulTransactionId);
      if (!rightful) {
        throw validationError([{ field: 'rightfulTransactionId', reason: 'did not claim this transfer' }]);
      }
      if (rightful.transactionStatus !== 'completed') {
        throw new AppError(
          'INVALID_STATE_TRANSITION',
          `The named transaction is ${rightful.transactionStatus}: only a completed claim can be the rightful one`,
          {
            transactionId: rightful.transactionId,
            status: rightful.transactionStatus,
          },
        );
      }
      const reason = `Disputed transfer resolved for transaction ${rightful.transactionId}: ${body.reason}`;
      const voided: string[] = [];
      for (const c of claims) {
        // Already failed (by an earlier resolution of this log): nothing left to undo.
        if (c.transactionId === rightful.transactionId || c.transactionStatus !== 'completed') continue;
        await moves.move(tx, {
          transactionId: c.transactionId,
          action: 'void_transfer',
          actor: `operator:${actor}`,
          reason,
          patch: { failureReason: reason },
        });
        voided.push(c.transactionId);
      }
      await repository.resolveDisputedClaim(tx, id, {
        rightfulTransactionId: rightful.transactionId,
        resolution: body.reason,
        resolvedBy: actor,
      });
      await repository.recordAction(tx, {
        itemKind: 'disputed_claim',
        itemId: id,
        action: 'resolve',
        actor,
        actorPlatformId: principal.platformId,
        reason: body.reason,
        fromStatus: claim.status,
      });
      const fresh = (await repository.lockDisputedClaim(tx, id)) as DisputedClaimRow;
      return { claim: (await withClaims(tx, [fresh]))[0] as DisputedClaim, voided };
    });
    log.info(
      { disputedClaimId: id, rightfulTransactionId: body.rightfulTransactionId, voided: out.voided, actor },
      'disputed claim resolved by an operator',
    );
    return out.claim;
  }

  return {
    async listDisputedClaims(query: DisputedClaimQuery): Promise<DisputedClaimList> {
      const { rows, total } = await repository.listDisputedClaims(sql, {
        status: query.status ?? 'open',
        limit: query.limit,
        offset: (query.page - 1) * query.limit,
      });
      return { data: await withClaims(sql, rows), pagination: paginationMeta(query.page, query.limit, total) };
    },
    resolveDisputedClaim,
    async list(query: SettlementItemQuery): Promise<SettlementItemList> {
      const { rows, total } = await repository.list(sql, {
        ...(query.status ? { status: query.status } : {}),
        includeResolved: query.includeResolved ?? false,
        limit: query.limit,
        offset: (query.page - 1) * query.limit,
      });
      return { data: await withActions(rows), pagination: paginationMeta(query.page, query.limit, total) };
    },
    retrySettlement: (p: Principal, id: string, body: OperatorActionBody) => act(p, 'settlement', id, 'retry', body),
    resolveSettlement: (p: Principal, id: string, body: OperatorActionBody) => act(p, 'settlement', id, 'resolve', body),
    resolveChainMessage: (p: Principal, messageId: string, body: OperatorActionBody) => act(p, 'chain_message', messageId, 'resolve', body),
  };
}
export type SettlementReviewService = ReturnType<typeof createSettlementReviewService>;

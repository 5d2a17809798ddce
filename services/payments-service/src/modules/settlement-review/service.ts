import {
  AppError,
  type OperatorActionBody,
  paginationMeta,
  type SettlementItem,
  type SettlementItemList,
  type SettlementItemQuery,
} from '@holdfast/contracts';
import type { Sql } from '@holdfast/db';
import type { Logger } from '@holdfast/logging';
import type { Principal } from '../auth/index.js';
import type { ItemRow, SettlementReviewRepository } from './repository.js';

/** Who acted, as the audit trail names them. */
const actorOf = (p: Principal) => (p.keyId ? `api_key:${p.keyId}` : `oauth_client:${p.clientId ?? 'unknown'}`);

/**
 * The operator's desk for settlement (docs/settlement.md, "Operator runbook"): the instructions and
 * CHAIN messages that need a person, listed, retried (a failed instruction) and resolved, each
 * action recorded with who and why in the same database transaction as the change.
 */
export function createSettlementReviewService(deps: { sql: Sql; repository: SettlementReviewRepository; logger: Logger }) {
  const { sql, repository } = deps;
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

  return {
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

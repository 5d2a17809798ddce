import { AppError, type DomainEvent, type EventPayload, type EventType, newEventId, notFound } from '@holdfast/contracts';
import { appendToOutboxSql, type Queryable } from '@holdfast/db';
import { SCHEMA_NAME } from '../../db/pg-schema.js';
import type { MovePatch, NewTransaction, TransactionRow, TransactionsRepository } from './repository.js';
import { actionsFrom, batchStatusOf, nextStatus, type TransactionAction } from './state-machine.js';

/** The `transaction` of every transaction event: the spec's `{id, status}` and what a receiver needs to act. */
export function transactionRef(
  row: Pick<
    TransactionRow,
    'id' | 'status' | 'amount' | 'currency' | 'fromAddress' | 'toAddress' | 'blockchainNetwork' | 'batchId' | 'customerId'
  >,
) {
  return {
    id: row.id,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    fromAddress: row.fromAddress,
    toAddress: row.toAddress,
    blockchainNetwork: row.blockchainNetwork,
    batchId: row.batchId,
    customerId: row.customerId,
  };
}

/** The `transaction` of the creation event, from the row about to be inserted (stored exactly so). */
export const newTransactionRef = (t: NewTransaction) => transactionRef({ ...t, batchId: null });

/** A domain event of a transaction's platform (and workspace, for the Workspace API's subscriptions). */
export function transactionEvent<T extends EventType>(
  type: T,
  row: Pick<TransactionRow, 'platformId' | 'workspaceId'>,
  data: EventPayload<T>,
  now = Date.now(),
): DomainEvent {
  return {
    id: newEventId(now),
    type,
    createdAt: new Date(now).toISOString(),
    platformId: row.platformId,
    workspaceId: row.workspaceId,
    data,
  } as DomainEvent;
}

/** What the event of a move carries besides `{transaction}` (the spec's payloads). */
function payloadOf(type: EventType, row: TransactionRow, reason: string | null): EventPayload<EventType> {
  const transaction = transactionRef(row);
  switch (type) {
    case 'transaction.escrowed':
      return { transaction, escrowAddress: row.escrowAddress ?? '', txHash: row.txHash ?? '' };
    case 'transaction.completed':
      return { transaction, txHash: row.txHash };
    case 'transaction.failed':
      return reason === null ? { transaction } : { transaction, reason };
    case 'transaction.refunded':
      return { transaction, reason, txHash: row.txHash };
    case 'transaction.rescinded':
      return { transaction, reason, txHash: row.txHash };
    default:
      return { transaction } as EventPayload<EventType>;
  }
}

export interface MoveInput {
  transactionId: string;
  action: TransactionAction;
  /** `platform:<id>`, `chain:<eventId>`, `system:<worker>`: recorded in transaction_transitions. */
  actor: string;
  /** Only this platform's transaction may move (a caller's request); omitted for chain events. */
  platformId?: string;
  reason?: string | null;
  patch?: MovePatch;
  /** Fields of the move's event beyond what the row says (`transaction.reorged`: the withdrawn block). */
  eventData?: Record<string, unknown>;
}

export interface MoveOutcome {
  before: TransactionRow;
  after: TransactionRow;
  event: DomainEvent | null;
}

/**
 * What another module does in the same database transaction as a move, once it is written (the
 * checkout module completes a session whose transaction became `escrowed`). A hook that throws
 * undoes the move with it, so a hook only writes what must commit with the move (its own rows and
 * outbox events) and never calls out of the process.
 */
export type MoveHook = (tx: Queryable, outcome: MoveOutcome) => Promise<void>;

/**
 * The one way a transaction changes status: lock the row, ask the state machine, write the new
 * status, the transition row, the event (outbox) and the batch's derived status, all in the
 * caller's database transaction, then run the `onMoved` hooks given at wiring in that transaction.
 * Two concurrent moves serialize on the row lock; the second sees the first's status and is
 * refused if the machine does not allow it from there.
 */
export function createTransactionMoves(deps: { repository: TransactionsRepository; onMoved?: readonly MoveHook[] }) {
  const { repository } = deps;
  const hooks = deps.onMoved ?? [];

  async function move(tx: Queryable, input: MoveInput): Promise<MoveOutcome> {
    const before = await repository.lock(tx, input.transactionId, input.platformId);
    if (!before) throw notFound('Transaction');
    const decision = nextStatus(before.status, input.action);
    if (!decision.ok) {
      throw new AppError('INVALID_STATE_TRANSITION', `Cannot ${input.action.replaceAll('_', ' ')} a transaction that is ${before.status}`, {
        status: before.status,
        action: input.action,
        allowedFrom: decision.allowedFrom,
        allowedActions: actionsFrom(before.status),
      });
    }
    const reason = input.reason ?? null;
    const eventId = decision.event ? newEventId() : null;
    const after = await repository.applyMove(tx, {
      id: before.id,
      from: before.status,
      to: decision.to,
      action: input.action,
      actor: input.actor,
      reason,
      eventId,
      patch: input.patch ?? {},
    });
    let event: DomainEvent | null = null;
    if (decision.event && eventId) {
      const data = { ...payloadOf(decision.event, after, reason), ...input.eventData } as EventPayload<EventType>;
      event = { ...transactionEvent(decision.event, after, data), id: eventId };
      await appendToOutboxSql(tx, SCHEMA_NAME, [event]);
    }
    if (after.batchId) await repository.setBatchStatus(tx, after.batchId, batchStatusOf(await repository.legStatuses(tx, after.batchId)));
    const outcome = { before, after, event };
    for (const hook of hooks) await hook(tx, outcome);
    return outcome;
  }

  return { move };
}
export type TransactionMoves = ReturnType<typeof createTransactionMoves>;

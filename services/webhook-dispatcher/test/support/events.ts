import { randomUUID } from 'node:crypto';
import { type DomainEvent, type EventType, newEventId } from '@holdfast/contracts';

/** A domain event as payments would publish it, owned by a platform (and its workspace, if given). */
export function transactionEvent(
  owner: { platformId: string | null; workspaceId?: string | null },
  type: Extract<EventType, 'transaction.created' | 'transaction.completed'> = 'transaction.created',
): DomainEvent {
  return {
    id: newEventId(),
    type,
    createdAt: new Date().toISOString(),
    platformId: owner.platformId,
    ...(owner.workspaceId === undefined ? {} : { workspaceId: owner.workspaceId }),
    data: { transaction: { id: randomUUID(), status: type === 'transaction.created' ? 'pending' : 'completed', amount: '12.50' } },
  } as DomainEvent;
}

export function disputeEvent(platformId: string): DomainEvent {
  return {
    id: newEventId(),
    type: 'dispute.created',
    createdAt: new Date().toISOString(),
    platformId,
    data: { dispute: { id: randomUUID(), transactionId: randomUUID(), status: 'open', currentTier: 'tier_1_smart_contract' } },
  };
}

import { randomUUID } from 'node:crypto';
import type { DomainEvent, EventType } from '@holdfast/contracts';
import { domainEvent } from '@holdfast/test-fixtures';

/** A domain event as payments would publish it, owned by a platform (and its workspace, if given). */
export const transactionEvent = (
  owner: { platformId: string | null; workspaceId?: string | null },
  type: Extract<EventType, 'transaction.created' | 'transaction.completed'> = 'transaction.created',
): DomainEvent =>
  domainEvent(type, owner, {
    transaction: { id: randomUUID(), status: type === 'transaction.created' ? 'pending' : 'completed', amount: '12.50' },
  });

export const disputeEvent = (platformId: string): DomainEvent =>
  domainEvent(
    'dispute.created',
    { platformId },
    { dispute: { id: randomUUID(), transactionId: randomUUID(), status: 'open', currentTier: 'tier_1_smart_contract' } },
  );

import { type DomainEventOf, type EventPayload, type EventType, newEventId } from '@holdfast/contracts';

/**
 * A domain event as its producer publishes it: a fresh event id, created now, owned by the given
 * platform (none unless given) and workspace (the field left out unless given).
 */
export function domainEvent<T extends EventType>(
  type: T,
  owner: { platformId?: string | null; workspaceId?: string | null },
  data: EventPayload<T>,
): DomainEventOf<T> {
  return {
    id: newEventId(),
    type,
    createdAt: new Date().toISOString(),
    platformId: owner.platformId ?? null,
    ...(owner.workspaceId === undefined ? {} : { workspaceId: owner.workspaceId }),
    data,
  } as DomainEventOf<T>;
}

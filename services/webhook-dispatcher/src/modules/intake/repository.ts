import type { DomainEvent } from '@holdfast/contracts';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { receivedEvents } from './tables.js';

export interface IntakeRepository {
  /** Stores the event unless already stored; true when it was new. */
  record: (event: DomainEvent) => Promise<boolean>;
}

export function createIntakeRepository(db: PostgresJsDatabase<Record<string, unknown>>): IntakeRepository {
  return {
    record: async (event) => {
      const inserted = await db
        .insert(receivedEvents)
        .values({ id: event.id, type: event.type, platformId: event.platformId, payload: event, occurredAt: new Date(event.createdAt) })
        .onConflictDoNothing()
        .returning({ id: receivedEvents.id });
      return inserted.length > 0;
    },
  };
}

import { type DomainEvent, uuidv7 } from '@holdfast/contracts';
import type { Sql } from '@holdfast/db';
import { wakeDeliveryWorkers } from '../../db/channels.js';

export interface IntakeRepository {
  /**
   * Stores the event unless already stored and, in the same transaction, one pending delivery per
   * active subscription that names the event's type and owns the event (its platform, or its
   * platform's workspace). `isNew` is false for an event seen before (its deliveries exist already).
   */
  record: (event: DomainEvent) => Promise<{ isNew: boolean; deliveries: number }>;
}

export function createIntakeRepository(sql: Sql): IntakeRepository {
  return {
    record: async (event) =>
      sql.begin(async (tx) => {
        const workspaceId = event.workspaceId ?? null;
        const inserted = await tx`
          insert into received_events (id, type, platform_id, workspace_id, payload, occurred_at)
          values (${event.id}, ${event.type}, ${event.platformId}, ${workspaceId}, ${JSON.stringify(event)}::jsonb, ${event.createdAt})
          on conflict (id) do nothing
          returning id`;
        if (inserted.length === 0) return { isNew: false, deliveries: 0 };
        if (event.platformId === null && workspaceId === null) return { isNew: true, deliveries: 0 };
        const matching = await tx<{ id: string }[]>`
          select id from subscriptions
          where is_active and ${event.type} = any(event_types)
            and (platform_id = ${event.platformId} or workspace_id = ${workspaceId})`;
        if (matching.length === 0) return { isNew: true, deliveries: 0 };
        await tx`
          insert into deliveries ${tx(
            matching.map((s) => ({ id: uuidv7(), subscription_id: s.id, event_id: event.id, event_type: event.type })),
            'id',
            'subscription_id',
            'event_id',
            'event_type',
          )}`;
        await wakeDeliveryWorkers(tx);
        return { isNew: true, deliveries: matching.length };
      }),
  };
}

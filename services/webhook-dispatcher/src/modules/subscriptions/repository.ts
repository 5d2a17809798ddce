import type { WebhookOwner } from '@holdfast/contracts';
import { rowMapper, type Sql } from '@holdfast/db';
import { textArray } from '../../db/arrays.js';
import { wakeDeliveryWorkers } from '../../db/channels.js';
import type { CircuitMove } from './state-machine.js';
import { subscriptions } from './tables.js';

/**
 * A subscription as stored (sealed secrets included; never leaves the process as is): the table's
 * row type, read through the row mapper of `@holdfast/db`.
 */
export type SubscriptionRow = typeof subscriptions.$inferSelect;
const toSubscriptionRow = rowMapper(subscriptions);

export interface NewSubscription {
  id: string;
  owner: WebhookOwner;
  url: string;
  eventTypes: string[];
  ipWhitelist: string[];
  metadata: Record<string, unknown>;
  secretSealed: string;
}

export interface SubscriptionChanges {
  url?: string;
  eventTypes?: string[];
  isActive?: boolean;
  ipWhitelist?: string[];
  metadata?: Record<string, unknown>;
}

export type SubscriptionsRepository = ReturnType<typeof createSubscriptionsRepository>;

export function createSubscriptionsRepository(sql: Sql) {
  const ownedBy = (owner: WebhookOwner) =>
    'platformId' in owner ? sql`platform_id = ${owner.platformId}` : sql`workspace_id = ${owner.workspaceId}`;
  const ownerKey = (owner: WebhookOwner) => ('platformId' in owner ? `platform:${owner.platformId}` : `workspace:${owner.workspaceId}`);

  return {
    /**
     * Active subscriptions by circuit state, every state present (a scrape shows 0 rather than no
     * series); a deactivated one keeps its last state and must not keep an alert firing.
     */
    circuitCounts: async (): Promise<Record<string, number>> => {
      const rows = await sql<{ state: string; n: number }[]>`
        select circuit_state as state, count(*)::int as n from subscriptions where is_active group by circuit_state`;
      const counts: Record<string, number> = { CLOSED: 0, OPEN: 0, HALF_OPEN: 0 };
      for (const row of rows) counts[row.state] = row.n;
      return counts;
    },

    /**
     * Inserts unless the owner already has `limit` subscriptions (serialised per owner by an
     * advisory lock, so two concurrent creations cannot both pass the count). Undefined when full.
     */
    insertWithinLimit: async (row: NewSubscription, limit: number): Promise<SubscriptionRow | undefined> =>
      sql.begin(async (tx) => {
        await tx`select pg_advisory_xact_lock(hashtextextended(${`webhooks:owner:${ownerKey(row.owner)}`}, 0))`;
        const [count] = await tx<{ n: number }[]>`select count(*)::int as n from subscriptions where ${ownedBy(row.owner)}`;
        if ((count?.n ?? 0) >= limit) return undefined;
        const [inserted] = await tx`
          insert into subscriptions (id, platform_id, workspace_id, url, event_types, ip_whitelist, metadata, secret_sealed)
          values (${row.id}, ${'platformId' in row.owner ? row.owner.platformId : null}, ${'workspaceId' in row.owner ? row.owner.workspaceId : null},
                  ${row.url}, ${textArray(tx, row.eventTypes)}, ${textArray(tx, row.ipWhitelist)}, ${JSON.stringify(row.metadata)}::text::jsonb,
                  ${row.secretSealed})
          returning *`;
        return inserted && toSubscriptionRow(inserted);
      }),

    list: async (owner: WebhookOwner, filter: { isActive?: boolean; eventType?: string }): Promise<SubscriptionRow[]> =>
      (
        await sql`
        select * from subscriptions
        where ${ownedBy(owner)}
          ${filter.isActive === undefined ? sql`` : sql`and is_active = ${filter.isActive}`}
          ${filter.eventType === undefined ? sql`` : sql`and ${filter.eventType} = any(event_types)`}
        order by created_at desc, id desc`
      ).map(toSubscriptionRow),

    get: async (owner: WebhookOwner, id: string): Promise<SubscriptionRow | undefined> => {
      const [row] = await sql`select * from subscriptions where id = ${id} and ${ownedBy(owner)}`;
      return row && toSubscriptionRow(row);
    },

    update: async (owner: WebhookOwner, id: string, changes: SubscriptionChanges): Promise<SubscriptionRow | undefined> => {
      const sets = [
        changes.url === undefined ? undefined : sql`url = ${changes.url}`,
        changes.eventTypes === undefined ? undefined : sql`event_types = ${textArray(sql, changes.eventTypes)}`,
        changes.ipWhitelist === undefined ? undefined : sql`ip_whitelist = ${textArray(sql, changes.ipWhitelist)}`,
        changes.metadata === undefined ? undefined : sql`metadata = ${JSON.stringify(changes.metadata)}::text::jsonb`,
        changes.isActive === undefined ? undefined : sql`is_active = ${changes.isActive}`,
        // Reactivating clears why the dispatcher had deactivated it (a receiver's 410).
        changes.isActive === true ? sql`disabled_reason = null` : undefined,
      ].filter((s) => s !== undefined);
      const assignments = sets.reduce((all, s) => sql`${all}, ${s}`, sql`updated_at = now()`);
      const [row] = await sql`
        update subscriptions set ${assignments} where id = ${id} and ${ownedBy(owner)} returning *`;
      if (row && changes.isActive === true) await wakeDeliveryWorkers(sql);
      return row && toSubscriptionRow(row);
    },

    /** Deletes the subscription; its deliveries and logs go with it (foreign keys cascade). */
    delete: async (owner: WebhookOwner, id: string): Promise<boolean> => {
      const rows = await sql`delete from subscriptions where id = ${id} and ${ownedBy(owner)} returning id`;
      return rows.length > 0;
    },

    /** The newest secret becomes the previous one (an older previous one is retired); `sealed` signs first. */
    rotate: async (owner: WebhookOwner, id: string, sealed: string): Promise<SubscriptionRow | undefined> => {
      const [row] = await sql`
        update subscriptions
        set previous_secret_sealed = secret_sealed, secret_sealed = ${sealed}, rotation_started_at = now(), updated_at = now()
        where id = ${id} and ${ownedBy(owner)}
        returning *`;
      return row && toSubscriptionRow(row);
    },

    /** Undefined when not found; `noRotation` when found with no rotation in progress (nothing changed). */
    completeRotation: async (owner: WebhookOwner, id: string): Promise<SubscriptionRow | 'noRotation' | undefined> =>
      sql.begin(async (tx) => {
        const [current] = await tx<{ rotating: boolean }[]>`
          select previous_secret_sealed is not null as rotating from subscriptions where id = ${id} and ${ownedBy(owner)} for update`;
        if (!current) return undefined;
        if (!current.rotating) return 'noRotation' as const;
        const [row] = await tx`
          update subscriptions set previous_secret_sealed = null, rotation_started_at = null, updated_at = now()
          where id = ${id} returning *`;
        return row && toSubscriptionRow(row);
      }),

    /** Forces CLOSED and lifts a Retry-After pause. */
    resetCircuit: async (owner: WebhookOwner, id: string, closed: CircuitMove): Promise<SubscriptionRow | undefined> => {
      const [row] = await sql`
        update subscriptions
        set circuit_state = ${closed.state}, consecutive_failures = ${closed.consecutiveFailures}, circuit_opened_at = null,
            circuit_half_open_at = null, probe_until = null, paused_until = null, updated_at = now()
        where id = ${id} and ${ownedBy(owner)}
        returning *`;
      if (row) await wakeDeliveryWorkers(sql);
      return row && toSubscriptionRow(row);
    },

    deactivateOwner: async (owner: WebhookOwner, reason: string | null): Promise<number> => {
      const rows = await sql`
        update subscriptions set is_active = false, disabled_reason = coalesce(${reason}, disabled_reason), updated_at = now()
        where ${ownedBy(owner)} and is_active returning id`;
      return rows.length;
    },
  };
}

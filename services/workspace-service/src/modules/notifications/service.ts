import {
  type DomainEvent,
  EVENT_TYPES,
  type EventType,
  type Notification,
  type NotificationCountResult,
  type NotificationList,
  type NotificationListQuery,
  type NotificationPreferences,
  notFound,
  paginationMeta,
  type UpdateNotificationPreferencesBody,
  uuidv7,
} from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import type { Store } from '../../db/store.js';
import { type Actor, type Caller, requireActor } from '../access/index.js';
import { AUDIT, type AuditRepository, type AuditService, diffChanges } from '../audit/index.js';
import { contentOf, DEFAULT_EVENT_SWITCHES, effectiveSwitches, wants } from './content.js';
import type { NotificationRow, NotificationsRepository, PreferencesRow } from './repository.js';

export interface NotificationsRepos {
  notifications: NotificationsRepository;
  audit: AuditRepository;
}

export function toNotification(row: NotificationRow): Notification {
  return {
    id: row.id,
    userId: row.userId,
    type: row.type,
    priority: row.priority,
    title: row.title,
    message: row.message,
    isRead: row.isRead,
    readAt: row.readAt?.toISOString() ?? null,
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toPreferences(userId: string, row: PreferencesRow | undefined): NotificationPreferences {
  return {
    userId,
    events: effectiveSwitches(row?.events),
    defaults: { ...DEFAULT_EVENT_SWITCHES },
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}

const plural = (n: number) => `${n} notification${n === 1 ? '' : 's'}`;

/**
 * Notifications (docs/workspace-notifications.md): each payment or dispute event of a workspace
 * becomes one notification for each of its active ADMINs and CLIENTs whose preferences let the
 * event's type through; at most one per (event, user). A user reads and changes only their own.
 */
export function createNotificationsService(deps: { store: Store<NotificationsRepos>; audit: AuditService; logger: Logger }) {
  const { store, audit } = deps;
  const log = deps.logger.child({ component: 'notifications' });

  return {
    /** Turns one event into notifications; safe to call again with the same event (creates nothing twice). */
    handleEvent: async (event: DomainEvent): Promise<{ workspaceId: string | null; created: number }> => {
      const repos = store.repos;
      const workspaceId =
        event.workspaceId ?? (event.platformId ? ((await repos.notifications.workspaceOfPlatform(event.platformId)) ?? null) : null);
      if (!workspaceId) {
        log.debug({ eventId: event.id, type: event.type }, 'event of no known workspace: nobody to notify');
        return { workspaceId: null, created: 0 };
      }
      const recipients = (await repos.notifications.members(workspaceId)).filter((m) => wants(m.overrides, event.type));
      const content = contentOf(event, workspaceId);
      const created = await repos.notifications.insertMany(
        recipients.map((r) => ({ id: uuidv7(), userId: r.userId, workspaceId, eventId: event.id, eventType: event.type, ...content })),
      );
      log.debug({ eventId: event.id, type: event.type, workspaceId, recipients: recipients.length, created }, 'event notified');
      return { workspaceId, created };
    },

    list: async (actor: Actor, query: NotificationListQuery) => {
      const { rows, total, unreadCount } = await store.repos.notifications.list(actor.id, query.unread, query.page, query.limit);
      const list: NotificationList = { notifications: rows.map(toNotification), unreadCount };
      return { list, pagination: paginationMeta(query.page, query.limit, total) };
    },

    get: async (actor: Actor, id: string): Promise<Notification> => {
      const row = await store.repos.notifications.findOwn(actor.id, id);
      if (!row) throw notFound('Notification');
      return toNotification(row);
    },

    /** Marks one of the caller's notifications read; reading it again changes nothing. */
    markRead: async (caller: Caller, id: string): Promise<Notification> => {
      const actor = requireActor(caller);
      return toNotification(
        await store.transaction(async (repos) => {
          const updated = await repos.notifications.markRead(actor.id, id);
          const row = updated ?? (await repos.notifications.findOwn(actor.id, id));
          if (!row) throw notFound('Notification');
          await audit.record(repos, caller, AUDIT.notificationRead, {
            resourceId: id,
            details: updated ? 'Marked a notification read' : 'The notification was already read',
          });
          return row;
        }),
      );
    },

    markAllRead: async (caller: Caller): Promise<NotificationCountResult> => {
      const actor = requireActor(caller);
      const count = await store.transaction(async (repos) => {
        const n = await repos.notifications.markAllRead(actor.id);
        await audit.record(repos, caller, AUDIT.notificationsReadAll, { resourceId: actor.id, details: `Marked ${plural(n)} read` });
        return n;
      });
      return { message: `Marked ${plural(count)} read`, count };
    },

    deleteAll: async (caller: Caller): Promise<NotificationCountResult> => {
      const actor = requireActor(caller);
      const count = await store.transaction(async (repos) => {
        const n = await repos.notifications.deleteAll(actor.id);
        await audit.record(repos, caller, AUDIT.notificationsDeleteAll, { resourceId: actor.id, details: `Deleted ${plural(n)}` });
        return n;
      });
      return { message: `Deleted ${plural(count)}`, count };
    },

    preferences: async (actor: Actor): Promise<NotificationPreferences> =>
      toPreferences(actor.id, await store.repos.notifications.preferences(actor.id)),

    updatePreferences: async (caller: Caller, body: UpdateNotificationPreferencesBody): Promise<NotificationPreferences> => {
      const actor = requireActor(caller);
      const change = Object.fromEntries(
        EVENT_TYPES.filter((t) => body.events[t] !== undefined).map((t) => [t, body.events[t] as boolean | null]),
      ) as Partial<Record<EventType, boolean | null>>;
      return store.transaction(async (repos) => {
        const before = effectiveSwitches((await repos.notifications.preferencesForUpdate(actor.id))?.events);
        const saved = await repos.notifications.mergePreferences(actor.id, change);
        const after = toPreferences(actor.id, saved);
        const prefixed = (switches: Record<string, boolean>) =>
          Object.fromEntries(Object.entries(switches).map(([t, on]) => [`events.${t}`, on]));
        const changes = diffChanges(prefixed(before), prefixed(after.events));
        await audit.record(repos, caller, AUDIT.notificationPreferencesUpdate, {
          resourceId: actor.id,
          details: `Changed notification preferences: ${Object.keys(changes).join(', ') || 'no change'}`,
          changes,
        });
        return after;
      });
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;

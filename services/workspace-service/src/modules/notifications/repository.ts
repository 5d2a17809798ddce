import { and, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { findRow, pageOf } from '../../db/queries.js';
import type { Executor } from '../../db/store.js';
import { users } from '../users/index.js';
import { platformMappings } from '../workspaces/index.js';
import { notificationPreferences, notifications } from './tables.js';

export type NotificationRow = typeof notifications.$inferSelect;
export type NewNotificationRow = typeof notifications.$inferInsert;
export type PreferencesRow = typeof notificationPreferences.$inferSelect;

export interface Recipient {
  userId: string;
  overrides: PreferencesRow['events'] | null;
}

export function createNotificationsRepository(db: Executor) {
  const own = (userId: string, unread?: boolean): SQL | undefined =>
    and(eq(notifications.userId, userId), unread === undefined ? undefined : eq(notifications.isRead, !unread));

  return {
    /** The workspace a payments platform serves (revoked mappings too: their events still belong to it). */
    workspaceOfPlatform: async (platformId: string): Promise<string | undefined> => {
      const [row] = await db
        .select({ workspaceId: platformMappings.workspaceId })
        .from(platformMappings)
        .where(eq(platformMappings.platformId, platformId));
      return row?.workspaceId;
    },

    /**
     * Who may be notified of a workspace's events: its active ADMINs and CLIENTs, with their choices.
     * Each member's choices are a subquery on the preferences' primary key: as a join, PostgreSQL
     * hashed every user's preferences, of every workspace, for each event.
     */
    members: async (workspaceId: string): Promise<Recipient[]> =>
      db
        .select({
          userId: users.id,
          overrides: sql<PreferencesRow['events'] | null>`(select ${notificationPreferences.events} from ${notificationPreferences}
            where ${notificationPreferences.userId} = ${users.id})`,
        })
        .from(users)
        .where(and(eq(users.workspaceId, workspaceId), eq(users.status, 'active'), inArray(users.role, ['ADMIN', 'CLIENT']))),

    /** Inserts the rows that do not exist yet (one per event and user); returns how many were new. */
    insertMany: async (rows: NewNotificationRow[]): Promise<number> => {
      if (rows.length === 0) return 0;
      const inserted = await db
        .insert(notifications)
        .values(rows)
        .onConflictDoNothing({ target: [notifications.eventId, notifications.userId] })
        .returning({ id: notifications.id });
      return inserted.length;
    },

    list: async (userId: string, unread: boolean | undefined, page: number, limit: number) => {
      const [{ rows, total }, [unreadTotals]] = await Promise.all([
        pageOf(db, notifications, own(userId, unread), [desc(notifications.createdAt), desc(notifications.id)], page, limit),
        db.select({ total: count() }).from(notifications).where(own(userId, true)),
      ]);
      return { rows, total, unreadCount: unreadTotals?.total ?? 0 };
    },

    findOwn: async (userId: string, id: string): Promise<NotificationRow | undefined> => {
      return findRow(db, notifications, and(eq(notifications.id, id), eq(notifications.userId, userId)));
    },

    /** Marks one of the user's notifications read (keeps the first `readAt`); undefined when it is not theirs. */
    markRead: async (userId: string, id: string): Promise<NotificationRow | undefined> => {
      const now = new Date();
      const [updated] = await db
        .update(notifications)
        .set({ isRead: true, readAt: now, updatedAt: now })
        .where(and(eq(notifications.id, id), eq(notifications.userId, userId), eq(notifications.isRead, false)))
        .returning();
      return updated;
    },

    markAllRead: async (userId: string): Promise<number> => {
      const now = new Date();
      const updated = await db
        .update(notifications)
        .set({ isRead: true, readAt: now, updatedAt: now })
        .where(own(userId, true))
        .returning({ id: notifications.id });
      return updated.length;
    },

    deleteAll: async (userId: string): Promise<number> => {
      const deleted = await db.delete(notifications).where(eq(notifications.userId, userId)).returning({ id: notifications.id });
      return deleted.length;
    },

    preferences: async (userId: string): Promise<PreferencesRow | undefined> => {
      return findRow(db, notificationPreferences, eq(notificationPreferences.userId, userId));
    },

    preferencesForUpdate: async (userId: string): Promise<PreferencesRow | undefined> => {
      return findRow(db, notificationPreferences, eq(notificationPreferences.userId, userId), 'update');
    },

    /**
     * Applies a change to the user's choices in one statement (concurrent changes of other types
     * both survive): `true`/`false` are kept, `null` removes the choice (back to the default).
     */
    mergePreferences: async (userId: string, change: Record<string, boolean | null>): Promise<PreferencesRow> => {
      const patch = JSON.stringify(change);
      const [saved] = await db
        .insert(notificationPreferences)
        .values({ userId, events: sql`jsonb_strip_nulls(${patch}::jsonb)` })
        .onConflictDoUpdate({
          target: notificationPreferences.userId,
          set: { events: sql`jsonb_strip_nulls(${notificationPreferences.events} || ${patch}::jsonb)`, updatedAt: new Date() },
        })
        .returning();
      return saved!;
    },
  };
}

export type NotificationsRepository = ReturnType<typeof createNotificationsRepository>;

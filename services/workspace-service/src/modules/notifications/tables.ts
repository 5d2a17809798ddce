import type { EventType, NotificationPriority, NotificationType } from '@holdfast/contracts';
import { cascadingReference, createdAt, metadataColumn, timestamptz, updatedAt } from '@holdfast/db';
import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { workspaceSchema } from '../../db/pg-schema.js';
import { users } from '../users/tables.js';
import { workspaceIdColumn } from '../workspaces/tables.js';

/**
 * Notifications of users about their workspace's events. One row per (event, user): a redelivered
 * event finds its rows and adds nothing. They go with their user and with their workspace.
 */
export const notifications = workspaceSchema.table(
  'notifications',
  {
    id: uuid('id').primaryKey(),
    userId: cascadingReference('user_id', () => users.id),
    workspaceId: workspaceIdColumn(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').$type<EventType>().notNull(),
    type: text('type').$type<NotificationType>().notNull(),
    priority: text('priority').$type<NotificationPriority>().notNull(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    metadata: metadataColumn(),
    isRead: boolean('is_read').notNull().default(false),
    readAt: timestamptz('read_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('notifications_event_user_unique').on(t.eventId, t.userId),
    index('notifications_user_created_idx').on(t.userId, t.createdAt, t.id),
    index('notifications_workspace_idx').on(t.workspaceId),
    index('notifications_user_unread_idx').on(t.userId).where(sql`${t.isRead} = false`),
    check('notifications_priority_check', sql`${t.priority} in ('low', 'normal', 'high')`),
  ],
);

/** A user's choices of which event types reach them: only what differs from the defaults is kept. */
export const notificationPreferences = workspaceSchema.table('notification_preferences', {
  userId: cascadingReference('user_id', () => users.id).primaryKey(),
  /** `{eventType: boolean}` overrides of the defaults. */
  events: jsonb('events').$type<Partial<Record<EventType, boolean>>>().notNull().default({}),
  updatedAt: updatedAt(),
});

import { SuccessEnvelope as ok } from '../../common/envelope.js';
import { WORKSPACE_AUDIT } from '../audit-actions.js';
import { IdParams } from '../common.js';
import {
  Notification,
  NotificationCountResult,
  NotificationList,
  NotificationListQuery,
  NotificationPreferences,
  UpdateNotificationPreferencesBody,
} from '../notifications.js';
import { resource } from './define.js';

// notifications: the signed-in user's own notifications and notification preferences.

const OWN_NOTIFICATIONS = 'Any signed-in user, on their own notifications only (another user’s answers 404).';

const endpoint = resource({ tags: ['notifications'] });

export const listNotifications = endpoint('GET /notifications', {
  operationId: 'listNotifications',
  summary: 'Your notifications',
  description:
    'Newest first. `unread=true` lists only unread ones, `unread=false` only read ones. `unreadCount` counts all your unread ' +
    `notifications whatever the filter. ${OWN_NOTIFICATIONS}`,
  tier: 'high',
  querystring: NotificationListQuery,
  response: { 200: ok(NotificationList) },
});

export const deleteAllNotifications = endpoint('DELETE /notifications', {
  operationId: 'deleteAllNotifications',
  summary: 'Delete all your notifications',
  description: `\`count\` is how many were deleted. ${OWN_NOTIFICATIONS}`,
  audit: WORKSPACE_AUDIT.notificationsDeleteAll,
  response: { 200: ok(NotificationCountResult) },
});

export const markAllNotificationsRead = endpoint('POST /notifications/mark-all-read', {
  operationId: 'markAllNotificationsRead',
  summary: 'Mark all your notifications read',
  description: `\`count\` is how many were unread. ${OWN_NOTIFICATIONS}`,
  audit: WORKSPACE_AUDIT.notificationsReadAll,
  response: { 200: ok(NotificationCountResult) },
});

export const getNotificationPreferences = endpoint('GET /notifications/preferences', {
  operationId: 'getNotificationPreferences',
  summary: 'Your notification preferences',
  description: 'For each event type, whether it reaches you (`events`), and the defaults. Any signed-in user.',
  response: { 200: ok(NotificationPreferences) },
});

export const updateNotificationPreferences = endpoint('PATCH /notifications/preferences', {
  operationId: 'updateNotificationPreferences',
  summary: 'Change your notification preferences',
  description:
    '`events` names the event types to change: `true` on, `false` off, `null` back to the default; the others keep their ' +
    'value. Applies to events handled from then on. Any signed-in user.',
  audit: WORKSPACE_AUDIT.notificationPreferencesUpdate,
  body: UpdateNotificationPreferencesBody,
  response: { 200: ok(NotificationPreferences) },
});

export const getNotification = endpoint('GET /notifications/:id', {
  operationId: 'getNotification',
  summary: 'Get a notification',
  description: OWN_NOTIFICATIONS,
  params: IdParams,
  response: { 200: ok(Notification) },
  errors: [404],
});

export const markNotificationRead = endpoint('PATCH /notifications/:id/read', {
  operationId: 'markNotificationRead',
  summary: 'Mark a notification read',
  description: `Idempotent: \`readAt\` keeps the first time. ${OWN_NOTIFICATIONS}`,
  audit: WORKSPACE_AUDIT.notificationRead,
  params: IdParams,
  response: { 200: ok(Notification) },
  errors: [404],
});

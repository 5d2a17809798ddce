import {
  IdParams,
  Notification,
  NotificationCountResult,
  NotificationList,
  NotificationListQuery,
  NotificationPreferences,
  UpdateNotificationPreferencesBody,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { BEARER, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { AUDIT } from '../audit/actions.js';
import type { NotificationsService } from './service.js';

const TAG = 'notifications';
const OWN = 'Any signed-in user, on their own notifications only (another user’s answers 404).';

export function notificationsRoutes(notifications: NotificationsService) {
  return async (app: HttpApp) => {
    app.get(
      '/notifications',
      {
        config: { tier: 'high' },
        schema: {
          tags: [TAG],
          summary: 'Your notifications',
          description:
            'Newest first. `unread=true` lists only unread ones, `unread=false` only read ones. `unreadCount` counts all your unread ' +
            `notifications whatever the filter. ${OWN}`,
          operationId: 'listNotifications',
          security: BEARER,
          querystring: NotificationListQuery,
          response: { 200: ok(NotificationList), ...errorResponses(401) },
        },
      },
      async (request) => {
        const { list, pagination } = await notifications.list(requireActor(request.caller), request.query);
        return envelope(request, list, pagination);
      },
    );

    app.delete(
      '/notifications',
      {
        config: { tier: 'standard', audit: AUDIT.notificationsDeleteAll },
        schema: {
          tags: [TAG],
          summary: 'Delete all your notifications',
          description: `\`count\` is how many were deleted. ${OWN}`,
          operationId: 'deleteAllNotifications',
          security: BEARER,
          response: { 200: ok(NotificationCountResult), ...errorResponses(401) },
        },
      },
      async (request) => envelope(request, await notifications.deleteAll(request.caller)),
    );

    app.post(
      '/notifications/mark-all-read',
      {
        config: { tier: 'standard', audit: AUDIT.notificationsReadAll },
        schema: {
          tags: [TAG],
          summary: 'Mark all your notifications read',
          description: `\`count\` is how many were unread. ${OWN}`,
          operationId: 'markAllNotificationsRead',
          security: BEARER,
          response: { 200: ok(NotificationCountResult), ...errorResponses(401) },
        },
      },
      async (request) => envelope(request, await notifications.markAllRead(request.caller)),
    );

    app.get(
      '/notifications/preferences',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: 'Your notification preferences',
          description: 'For each event type, whether it reaches you (`events`), and the defaults. Any signed-in user.',
          operationId: 'getNotificationPreferences',
          security: BEARER,
          response: { 200: ok(NotificationPreferences), ...errorResponses(401) },
        },
      },
      async (request) => envelope(request, await notifications.preferences(requireActor(request.caller))),
    );

    app.patch(
      '/notifications/preferences',
      {
        config: { tier: 'standard', audit: AUDIT.notificationPreferencesUpdate },
        schema: {
          tags: [TAG],
          summary: 'Change your notification preferences',
          description:
            '`events` names the event types to change: `true` on, `false` off, `null` back to the default; the others keep their ' +
            'value. Applies to events handled from then on. Any signed-in user.',
          operationId: 'updateNotificationPreferences',
          security: BEARER,
          body: UpdateNotificationPreferencesBody,
          response: { 200: ok(NotificationPreferences), ...errorResponses(401) },
        },
      },
      async (request) => envelope(request, await notifications.updatePreferences(request.caller, request.body)),
    );

    app.get(
      '/notifications/:id',
      {
        config: { tier: 'standard' },
        schema: {
          tags: [TAG],
          summary: 'Get a notification',
          description: OWN,
          operationId: 'getNotification',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(Notification), ...errorResponses(401, 404) },
        },
      },
      async (request) => envelope(request, await notifications.get(requireActor(request.caller), request.params.id)),
    );

    app.patch(
      '/notifications/:id/read',
      {
        config: { tier: 'standard', audit: AUDIT.notificationRead },
        schema: {
          tags: [TAG],
          summary: 'Mark a notification read',
          description: `Idempotent: \`readAt\` keeps the first time. ${OWN}`,
          operationId: 'markNotificationRead',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(Notification), ...errorResponses(401, 404) },
        },
      },
      async (request) => envelope(request, await notifications.markRead(request.caller, request.params.id)),
    );
  };
}

import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { requireActor } from '../access/index.js';
import { AUDIT } from '../audit/index.js';
import type { NotificationsService } from './service.js';

export function notificationsRoutes(notifications: NotificationsService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listNotifications, { config: { tier: 'high' } }, async (request) => {
      const { list, pagination } = await notifications.list(requireActor(request.caller), request.query);
      return envelope(request, list, pagination);
    });

    serveEndpoint(app, api.deleteAllNotifications, { config: { tier: 'standard', audit: AUDIT.notificationsDeleteAll } }, async (request) =>
      envelope(request, await notifications.deleteAll(request.caller)),
    );

    serveEndpoint(app, api.markAllNotificationsRead, { config: { tier: 'standard', audit: AUDIT.notificationsReadAll } }, async (request) =>
      envelope(request, await notifications.markAllRead(request.caller)),
    );

    serveEndpoint(app, api.getNotificationPreferences, { config: { tier: 'standard' } }, async (request) =>
      envelope(request, await notifications.preferences(requireActor(request.caller))),
    );

    serveEndpoint(
      app,
      api.updateNotificationPreferences,
      { config: { tier: 'standard', audit: AUDIT.notificationPreferencesUpdate } },
      async (request) => envelope(request, await notifications.updatePreferences(request.caller, request.body)),
    );

    serveEndpoint(app, api.getNotification, { config: { tier: 'standard' } }, async (request) =>
      envelope(request, await notifications.get(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(app, api.markNotificationRead, { config: { tier: 'standard', audit: AUDIT.notificationRead } }, async (request) =>
      envelope(request, await notifications.markRead(request.caller, request.params.id)),
    );
  };
}

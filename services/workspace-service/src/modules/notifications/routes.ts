import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, paged, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { NotificationsService } from './service.js';

export function notificationsRoutes(notifications: NotificationsService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listNotifications, async (request) => {
        const { list, pagination } = await notifications.list(requireActor(request.caller), request.query);
        return paged(list, pagination);
      }),
      route(api.deleteAllNotifications, async (request) => notifications.deleteAll(request.caller)),
      route(api.markAllNotificationsRead, async (request) => notifications.markAllRead(request.caller)),
      route(api.getNotificationPreferences, async (request) => notifications.preferences(requireActor(request.caller))),
      route(api.updateNotificationPreferences, async (request) => notifications.updatePreferences(request.caller, request.body)),
      route(api.getNotification, async (request) => notifications.get(requireActor(request.caller), request.params.id)),
      route(api.markNotificationRead, async (request) => notifications.markRead(request.caller, request.params.id)),
    ]);
  };
}

import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, paged, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { SettingsService } from './service.js';

export function settingsRoutes(settings: SettingsService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listSettings, async (request) => {
        const { list, pagination } = await settings.list(requireActor(request.caller), request.query);
        return paged(list, pagination);
      }),
      route(api.upsertSetting, async (request) => settings.upsert(request.caller, request.body, request.query.workspaceId)),
      route(api.getSetting, async (request) => settings.get(requireActor(request.caller), request.params.key, request.query.workspaceId)),
      route(api.updateSetting, async (request) =>
        settings.update(request.caller, request.params.key, request.body, request.query.workspaceId),
      ),
      route(api.listGlobalSettings, async (request) => {
        const { list, pagination } = await settings.listGlobal(request.query);
        return paged(list, pagination);
      }),
      route(api.bulkUpsertGlobalSettings, async (request) => settings.bulkGlobal(request.caller, request.body)),
    ]);
  };
}

import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { ADMIN_ROLES, requireActor } from '../access/index.js';
import { AUDIT } from '../audit/index.js';
import type { SettingsService } from './service.js';

export function settingsRoutes(settings: SettingsService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listSettings, { config: { tier: 'standard', roles: ADMIN_ROLES } }, async (request) => {
      const { list, pagination } = await settings.list(requireActor(request.caller), request.query);
      return envelope(request, list, pagination);
    });

    serveEndpoint(
      app,
      api.upsertSetting,
      { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.settingUpsert } },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await settings.upsert(request.caller, request.body, request.query.workspaceId))),
    );

    serveEndpoint(app, api.getSetting, { config: { tier: 'standard', roles: ADMIN_ROLES } }, async (request) =>
      envelope(request, await settings.get(requireActor(request.caller), request.params.key, request.query.workspaceId)),
    );

    serveEndpoint(app, api.updateSetting, { config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.settingUpdate } }, async (request) =>
      envelope(request, await settings.update(request.caller, request.params.key, request.body, request.query.workspaceId)),
    );

    serveEndpoint(app, api.listGlobalSettings, { config: { tier: 'standard', roles: ADMIN_ROLES } }, async (request) => {
      const { list, pagination } = await settings.listGlobal(request.query);
      return envelope(request, list, pagination);
    });

    serveEndpoint(
      app,
      api.bulkUpsertGlobalSettings,
      { config: { tier: 'admin', roles: ['SUPER_ADMIN'], audit: AUDIT.globalSettingsBulk } },
      async (request) => envelope(request, await settings.bulkGlobal(request.caller, request.body)),
    );
  };
}

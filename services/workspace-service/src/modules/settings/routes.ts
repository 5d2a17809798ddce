import {
  BulkGlobalSettingsBody,
  BulkGlobalSettingsResult,
  GlobalSettingListQuery,
  Setting,
  SettingKeyParams,
  SettingList,
  SettingListQuery,
  SettingScopeQuery,
  UpdateSettingBody,
  UpsertSettingBody,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { BEARER, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { ADMIN_ROLES } from '../access/policy.js';
import { AUDIT } from '../audit/actions.js';
import type { SettingsService } from './service.js';

const TAG = 'settings';
const SCOPE =
  "The settings of one workspace: an ADMIN's own (a `workspaceId` of another answers 403); a SUPER_ADMIN names the workspace " +
  'with `workspaceId` (required for one). CLIENTs get 403.';
const ENCRYPTED = 'Encrypted values are write-only: answers show an empty string.';

export function settingsRoutes(settings: SettingsService) {
  return async (app: HttpApp) => {
    app.get(
      '/settings',
      {
        config: { tier: 'standard', roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: "List the workspace's settings",
          description: `Ordered by category, then key; \`category\` filters. ${SCOPE} ${ENCRYPTED}`,
          operationId: 'listSettings',
          security: BEARER,
          querystring: SettingListQuery,
          response: { 200: ok(SettingList), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => {
        const { list, pagination } = await settings.list(requireActor(request.caller), request.query);
        return envelope(request, list, pagination);
      },
    );

    app.post(
      '/settings',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.settingUpsert },
        schema: {
          tags: [TAG],
          summary: 'Create or update a setting',
          description:
            'Creates `key` in the workspace, or updates it when it exists (201 either way): `value` is replaced; `category`, ' +
            '`description` and `isEncrypted` keep their stored values when left out (a new setting: `general`, null, false). ' +
            `${SCOPE} ${ENCRYPTED}`,
          operationId: 'upsertSetting',
          security: BEARER,
          querystring: SettingScopeQuery,
          body: UpsertSettingBody,
          response: { 201: ok(Setting), ...errorResponses(401, 403, 404) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await settings.upsert(request.caller, request.body, request.query.workspaceId))),
    );

    app.get(
      '/settings/:key',
      {
        config: { tier: 'standard', roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'Get a setting',
          description: `${SCOPE} ${ENCRYPTED}`,
          operationId: 'getSetting',
          security: BEARER,
          params: SettingKeyParams,
          querystring: SettingScopeQuery,
          response: { 200: ok(Setting), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await settings.get(requireActor(request.caller), request.params.key, request.query.workspaceId)),
    );

    app.put(
      '/settings/:key',
      {
        config: { tier: 'admin', roles: ADMIN_ROLES, audit: AUDIT.settingUpdate },
        schema: {
          tags: [TAG],
          summary: 'Update a setting',
          description:
            '`value` is required and replaces the stored one; `category`, `description` and `isEncrypted` keep their stored values ' +
            `when left out. An unknown key answers 404 (POST /settings creates). ${SCOPE} ${ENCRYPTED}`,
          operationId: 'updateSetting',
          security: BEARER,
          params: SettingKeyParams,
          querystring: SettingScopeQuery,
          body: UpdateSettingBody,
          response: { 200: ok(Setting), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) =>
        envelope(request, await settings.update(request.caller, request.params.key, request.body, request.query.workspaceId)),
    );

    app.get(
      '/global-settings',
      {
        config: { tier: 'standard', roles: ADMIN_ROLES },
        schema: {
          tags: [TAG],
          summary: 'List the global settings',
          description: `Platform-wide settings, the same for every workspace, in the shape of GET /settings. ADMINs and SUPER_ADMINs read them. ${ENCRYPTED}`,
          operationId: 'listGlobalSettings',
          security: BEARER,
          querystring: GlobalSettingListQuery,
          response: { 200: ok(SettingList), ...errorResponses(401, 403) },
        },
      },
      async (request) => {
        const { list, pagination } = await settings.listGlobal(request.query);
        return envelope(request, list, pagination);
      },
    );

    app.post(
      '/global-settings/bulk',
      {
        config: { tier: 'admin', roles: ['SUPER_ADMIN'], audit: AUDIT.globalSettingsBulk },
        schema: {
          tags: [TAG],
          summary: 'Create or update global settings in bulk',
          description:
            'Up to 100 settings, each created or updated like POST /settings, all in one transaction (one bad item saves none; a key ' +
            `may appear once). SUPER_ADMIN only. ${ENCRYPTED}`,
          operationId: 'bulkUpsertGlobalSettings',
          security: BEARER,
          body: BulkGlobalSettingsBody,
          response: { 200: ok(BulkGlobalSettingsResult), ...errorResponses(401, 403) },
        },
      },
      async (request) => envelope(request, await settings.bulkGlobal(request.caller, request.body)),
    );
  };
}

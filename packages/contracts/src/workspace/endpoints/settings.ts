import { SuccessEnvelope as ok } from '../../common/envelope.js';
import { WORKSPACE_AUDIT } from '../audit-actions.js';
import { ADMIN_ROLES } from '../identity.js';
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
} from '../settings.js';
import { ADMIN_CHANGE, resource } from './define.js';

// settings

const SETTINGS_SCOPE =
  "The settings of one workspace: an ADMIN's own (a `workspaceId` of another answers 403); a SUPER_ADMIN names the workspace " +
  'with `workspaceId` (required for one). CLIENTs get 403.';
const ENCRYPTED_SETTINGS = 'Encrypted values are write-only: answers show an empty string.';

const endpoint = resource({ tags: ['settings'] });

export const listSettings = endpoint('GET /settings', {
  operationId: 'listSettings',
  summary: "List the workspace's settings",
  description: `Ordered by category, then key; \`category\` filters. ${SETTINGS_SCOPE} ${ENCRYPTED_SETTINGS}`,
  roles: ADMIN_ROLES,
  querystring: SettingListQuery,
  response: { 200: ok(SettingList) },
  errors: [404],
});

export const upsertSetting = endpoint('POST /settings', {
  operationId: 'upsertSetting',
  summary: 'Create or update a setting',
  description:
    'Creates `key` in the workspace, or updates it when it exists (201 either way): `value` is replaced; `category`, ' +
    '`description` and `isEncrypted` keep their stored values when left out (a new setting: `general`, null, false). ' +
    `${SETTINGS_SCOPE} ${ENCRYPTED_SETTINGS}`,
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.settingUpsert,
  querystring: SettingScopeQuery,
  body: UpsertSettingBody,
  response: { 201: ok(Setting) },
  errors: [404],
});

export const getSetting = endpoint('GET /settings/:key', {
  operationId: 'getSetting',
  summary: 'Get a setting',
  description: `${SETTINGS_SCOPE} ${ENCRYPTED_SETTINGS}`,
  roles: ADMIN_ROLES,
  params: SettingKeyParams,
  querystring: SettingScopeQuery,
  response: { 200: ok(Setting) },
  errors: [404],
});

export const updateSetting = endpoint('PUT /settings/:key', {
  operationId: 'updateSetting',
  summary: 'Update a setting',
  description:
    '`value` is required and replaces the stored one; `category`, `description` and `isEncrypted` keep their stored values ' +
    `when left out. An unknown key answers 404 (POST /settings creates). ${SETTINGS_SCOPE} ${ENCRYPTED_SETTINGS}`,
  ...ADMIN_CHANGE,
  audit: WORKSPACE_AUDIT.settingUpdate,
  params: SettingKeyParams,
  querystring: SettingScopeQuery,
  body: UpdateSettingBody,
  response: { 200: ok(Setting) },
  errors: [404],
});

export const listGlobalSettings = endpoint('GET /global-settings', {
  operationId: 'listGlobalSettings',
  summary: 'List the global settings',
  description: `Platform-wide settings, the same for every workspace, in the shape of GET /settings. ADMINs and SUPER_ADMINs read them. ${ENCRYPTED_SETTINGS}`,
  roles: ADMIN_ROLES,
  querystring: GlobalSettingListQuery,
  response: { 200: ok(SettingList) },
});

export const bulkUpsertGlobalSettings = endpoint('POST /global-settings/bulk', {
  operationId: 'bulkUpsertGlobalSettings',
  summary: 'Create or update global settings in bulk',
  description:
    'Up to 100 settings, each created or updated like POST /settings, all in one transaction (one bad item saves none; a key ' +
    `may appear once). SUPER_ADMIN only. ${ENCRYPTED_SETTINGS}`,
  roles: ['SUPER_ADMIN'],
  tier: 'admin',
  audit: WORKSPACE_AUDIT.globalSettingsBulk,
  body: BulkGlobalSettingsBody,
  response: { 200: ok(BulkGlobalSettingsResult) },
});

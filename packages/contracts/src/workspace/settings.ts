import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Uuid } from '../common/domain.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, PaginationMeta } from '../common/pagination.js';

// Workspace API: settings of a workspace (`/settings`) and platform-wide settings
// (`/global-settings`) (issue 9). docs/workspace-settings.md explains the scoping.

export const SETTING_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';
export const SETTING_CATEGORY_PATTERN = '^[a-z0-9][a-z0-9_-]{0,49}$';
export const SETTING_VALUE_MAX = 16_384;
export const DEFAULT_SETTING_CATEGORY = 'general';
export const GLOBAL_SETTINGS_BULK_MAX = 100;

const Key = Type.String({
  pattern: SETTING_KEY_PATTERN,
  description: '1 to 128 of `A-Za-z0-9._:-`, starting with a letter or digit; unique within its scope.',
});
const Value = Type.String({ maxLength: SETTING_VALUE_MAX, description: `Any text up to ${SETTING_VALUE_MAX} characters.` });
const Category = Type.String({
  pattern: SETTING_CATEGORY_PATTERN,
  description: `Lower-case group name (1 to 50 of \`a-z0-9_-\`); \`${DEFAULT_SETTING_CATEGORY}\` when never given.`,
});
const Description = Type.String({ maxLength: 500 });

export const Setting = Type.Object(
  {
    id: Uuid,
    workspaceId: Type.Union([Uuid, Type.Null()], { description: 'The workspace the setting belongs to; null for a global setting.' }),
    key: Type.String(),
    value: Type.String({ description: 'The value; an empty string when `isEncrypted` (encrypted values are write-only).' }),
    category: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    isEncrypted: Type.Boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    examples: [
      {
        id: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b90',
        workspaceId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
        key: 'payouts.reviewThreshold',
        value: '5000.00',
        category: 'payouts',
        description: 'Payouts above this amount wait for a second approval',
        isEncrypted: false,
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type Setting = Static<typeof Setting>;

/** `data {settings[], meta}`: the spec's list shape (the same pagination is also in the envelope's `meta.pagination`). */
export const SettingList = Type.Object({
  settings: Type.Array(Setting),
  // The PaginationMeta shape, without its $id (one schema may not carry the same $id twice).
  meta: Type.Object(PaginationMeta.properties),
});
export type SettingList = Static<typeof SettingList>;

const WorkspaceScope = {
  workspaceId: Type.Optional(
    Type.String({
      format: 'uuid',
      description: 'SUPER_ADMIN only, and required for one: the workspace to act on. An ADMIN always acts on its own workspace.',
    }),
  ),
};

export const SettingScopeQuery = Type.Object(WorkspaceScope, { additionalProperties: false });
export type SettingScopeQuery = Static<typeof SettingScopeQuery>;

const ListQuery = {
  category: Type.Optional(Category),
  page: Type.Integer({ minimum: 1, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
};

export const SettingListQuery = Type.Object({ ...ListQuery, ...WorkspaceScope }, { additionalProperties: false });
export type SettingListQuery = Static<typeof SettingListQuery>;

export const GlobalSettingListQuery = Type.Object(ListQuery, { additionalProperties: false });
export type GlobalSettingListQuery = Static<typeof GlobalSettingListQuery>;

export const UpsertSettingBody = Type.Object(
  {
    key: Key,
    value: Value,
    category: Type.Optional(Category),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    isEncrypted: Type.Optional(
      Type.Boolean({
        description: 'Seal the value at rest and never return it (answers show ""). Kept as stored when left out on an update.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpsertSettingBody = Static<typeof UpsertSettingBody>;

export const UpdateSettingBody = Type.Object(
  {
    value: Value,
    category: Type.Optional(Category),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    isEncrypted: Type.Optional(Type.Boolean({ description: 'Kept as stored when left out.' })),
  },
  { additionalProperties: false },
);
export type UpdateSettingBody = Static<typeof UpdateSettingBody>;

export const SettingKeyParams = Type.Object({ key: Key });
export type SettingKeyParams = Static<typeof SettingKeyParams>;

export const BulkGlobalSettingsBody = Type.Object(
  {
    settings: Type.Array(UpsertSettingBody, {
      minItems: 1,
      maxItems: GLOBAL_SETTINGS_BULK_MAX,
      description: 'Each is created or updated like POST /settings; all or none are saved. A key may appear once.',
    }),
  },
  { additionalProperties: false },
);
export type BulkGlobalSettingsBody = Static<typeof BulkGlobalSettingsBody>;

export const BulkGlobalSettingsResult = Type.Object({
  settings: Type.Array(Setting, { description: 'The saved settings, in the order sent.' }),
  created: Type.Integer({ minimum: 0 }),
  updated: Type.Integer({ minimum: 0 }),
});
export type BulkGlobalSettingsResult = Static<typeof BulkGlobalSettingsResult>;

import { type Static, type TObject, Type } from '@sinclair/typebox';
import { DateTime, Metadata, StringEnum, Uuid } from '../common/domain.js';
import { FieldError } from '../common/errors.js';

// Workspace API: the integration catalog and workspace integrations (issue 9).
// docs/workspace-integrations.md explains the kinds, the statuses and the rules.

/* ----------------------------------------------------------------------------------------------
 * The catalog: the kinds of integration a workspace may set up, fixed in code with stable ids.
 * -------------------------------------------------------------------------------------------- */

export const INTEGRATION_CATEGORIES = ['compliance', 'accounting', 'notifications'] as const;
export type IntegrationCategory = (typeof INTEGRATION_CATEGORIES)[number];

/** Shown in place of a secret field's value that is set: secrets are write-only. */
export const SECRET_MASK = '********';

/** A secret field: accepted on create and update, sealed at rest, never returned (JSON Schema `writeOnly`). */
const Secret = (description: string, options: { minLength?: number; maxLength?: number; pattern?: string } = {}) =>
  Type.String({ minLength: options.minLength ?? 8, maxLength: options.maxLength ?? 512, writeOnly: true, description, ...options });

export const KycProviderConfig = Type.Object(
  {
    apiKey: Secret('The API key of your account at the KYC provider; sent as `Authorization: Bearer <apiKey>`.'),
    environment: StringEnum(['sandbox', 'live'], { description: 'The provider environment the key belongs to.' }),
    levelName: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[A-Za-z0-9._-]+$',
      description: 'The verification level (flow) the provider runs for your customers; must exist in your account.',
    }),
    webhookSecret: Type.Optional(Secret('Signs the callbacks the provider sends about verifications.')),
  },
  { additionalProperties: false },
);
export type KycProviderConfig = Static<typeof KycProviderConfig>;

export const AccountingExportConfig = Type.Object(
  {
    format: StringEnum(['csv', 'json'], { description: 'File format of each export.' }),
    schedule: StringEnum(['daily', 'weekly', 'monthly'], { description: 'How often an export is made.' }),
    recipientEmail: Type.String({ format: 'email', maxLength: 254, description: 'Where each export is sent.' }),
    timezone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'IANA time zone the periods are cut in (`Europe/Berlin`); UTC when absent.',
      }),
    ),
    includeFees: Type.Optional(Type.Boolean({ description: 'Adds a fee column (default false).' })),
  },
  { additionalProperties: false },
);
export type AccountingExportConfig = Static<typeof AccountingExportConfig>;

export const ChatNotifierConfig = Type.Object(
  {
    webhookToken: Secret('The secret part of the incoming-webhook URL your chat workspace gave you (after `/services/`).', {
      minLength: 8,
      maxLength: 256,
      pattern: '^[A-Za-z0-9/_-]+$',
    }),
    channel: Type.Optional(
      Type.String({ pattern: '^#?[a-z0-9._-]{1,80}$', description: 'Channel to post in; the webhook’s own channel when absent.' }),
    ),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 80, description: 'Name the messages are posted under.' })),
  },
  { additionalProperties: false },
);
export type ChatNotifierConfig = Static<typeof ChatNotifierConfig>;

export interface IntegrationKind {
  id: string;
  key: string;
  name: string;
  category: IntegrationCategory;
  description: string;
  /** The config object's schema; secret fields carry `writeOnly: true`. */
  configSchema: TObject;
  /** Whether validation calls the provider (else the schema and local rules are the whole check). */
  callsProvider: boolean;
}

/**
 * Every integration kind, with ids that never change (clients may hard-code them). A new kind is a
 * backward compatible addition; a kind is never removed within a version.
 */
export const INTEGRATION_CATALOG = [
  {
    id: '3f6c1a52-9b7e-4d21-8c4f-1a2b3c4d5e01',
    key: 'kyc-provider',
    name: 'KYC provider',
    category: 'compliance',
    description:
      'Identity verification of your customers at a KYC provider account of your own. Validation asks the provider whether the key ' +
      'is accepted, belongs to `environment` and has the verification level `levelName`.',
    configSchema: KycProviderConfig,
    callsProvider: true,
  },
  {
    id: '3f6c1a52-9b7e-4d21-8c4f-1a2b3c4d5e02',
    key: 'accounting-export',
    name: 'Accounting export',
    category: 'accounting',
    description:
      'Periodic export of your settled payments for your accounting, e-mailed as a file. Validation checks the fields and the time zone.',
    configSchema: AccountingExportConfig,
    callsProvider: false,
  },
  {
    id: '3f6c1a52-9b7e-4d21-8c4f-1a2b3c4d5e03',
    key: 'chat-notifier',
    name: 'Chat notifier',
    category: 'notifications',
    description:
      'Posts messages to a channel of your chat workspace through an incoming webhook (Slack-style). Validation posts one test ' +
      'message and expects the chat provider to accept it.',
    configSchema: ChatNotifierConfig,
    callsProvider: true,
  },
] as const satisfies readonly IntegrationKind[];

export type IntegrationKey = (typeof INTEGRATION_CATALOG)[number]['key'];
export const INTEGRATION_KEYS = INTEGRATION_CATALOG.map((k) => k.key) as IntegrationKey[];

/** The names of the secret (write-only) fields of a kind's config. */
export function secretFieldsOf(kind: IntegrationKind): string[] {
  return Object.entries(kind.configSchema.properties)
    .filter(([, schema]) => (schema as { writeOnly?: boolean }).writeOnly === true)
    .map(([name]) => name);
}

/* ----------------------------------------------------------------------------------------------
 * HTTP shapes
 * -------------------------------------------------------------------------------------------- */

export const IntegrationCatalogEntry = Type.Object(
  {
    id: Uuid,
    key: Type.String({ description: 'Stable name of the kind (`kyc-provider`, `accounting-export`, `chat-notifier`).' }),
    name: Type.String(),
    category: StringEnum(INTEGRATION_CATEGORIES),
    description: Type.String(),
    callsProvider: Type.Boolean({ description: 'Validation calls the provider (else it checks the fields only).' }),
    available: Type.Boolean({ description: 'False when this deployment has no provider endpoint for the kind: it cannot be set up.' }),
    requiredFields: Type.Array(Type.String()),
    secretFields: Type.Array(Type.String(), { description: 'Write-only fields: sealed at rest, shown as `********` when set.' }),
    configSchema: Type.Record(Type.String(), Type.Unknown(), {
      description: 'JSON Schema of `config`; secret fields carry `writeOnly: true`.',
    }),
  },
  {
    examples: [
      {
        id: '3f6c1a52-9b7e-4d21-8c4f-1a2b3c4d5e02',
        key: 'accounting-export',
        name: 'Accounting export',
        category: 'accounting',
        description: 'Periodic export of your settled payments for your accounting, e-mailed as a file.',
        callsProvider: false,
        available: true,
        requiredFields: ['format', 'schedule', 'recipientEmail'],
        secretFields: [],
        configSchema: { type: 'object', properties: { format: { type: 'string', enum: ['csv', 'json'] } } },
      },
    ],
  },
);
export type IntegrationCatalogEntry = Static<typeof IntegrationCatalogEntry>;

export const INTEGRATION_STATUSES = ['pending', 'active', 'error', 'disabled'] as const;
export type IntegrationStatus = (typeof INTEGRATION_STATUSES)[number];

const IntegrationSummary = Type.Object({ key: Type.String(), name: Type.String(), category: StringEnum(INTEGRATION_CATEGORIES) });

const ConfigOut = Type.Record(Type.String(), Type.Unknown(), {
  description: 'The config as stored; each secret field that is set reads `********` (secrets are never returned).',
});

export const WorkspaceIntegration = Type.Object(
  {
    id: Uuid,
    workspaceId: Uuid,
    integrationId: Type.String({ format: 'uuid', description: 'The catalog kind (GET /api/v1/integrations).' }),
    integration: IntegrationSummary,
    status: StringEnum(INTEGRATION_STATUSES, {
      description:
        '`pending`: saved, not yet validated by its provider; `active`: the last validation passed; `error`: it failed ' +
        '(`errorMessage`); `disabled`: switched off by the workspace.',
    }),
    config: ConfigOut,
    errorMessage: Type.Union([Type.String(), Type.Null()]),
    lastValidatedAt: Type.Union([DateTime, Type.Null()], { description: 'When a validation of the current config last passed.' }),
    metadata: Metadata,
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    examples: [
      {
        id: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b80',
        workspaceId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
        integrationId: '3f6c1a52-9b7e-4d21-8c4f-1a2b3c4d5e01',
        integration: { key: 'kyc-provider', name: 'KYC provider', category: 'compliance' },
        status: 'active',
        config: { apiKey: SECRET_MASK, environment: 'sandbox', levelName: 'basic-kyc' },
        errorMessage: null,
        lastValidatedAt: '2026-11-21T10:00:00.000Z',
        metadata: {},
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type WorkspaceIntegration = Static<typeof WorkspaceIntegration>;

const ConfigIn = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'The kind’s config object (shape in the catalog entry’s `configSchema`). Secret fields are sealed at rest and never returned.',
});
const IntegrationMetadata = Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form, returned as sent (16 KiB at most).' });

export const CreateWorkspaceIntegrationBody = Type.Object(
  {
    integrationId: Type.String({ format: 'uuid', description: 'The catalog kind.' }),
    config: ConfigIn,
    metadata: Type.Optional(IntegrationMetadata),
  },
  { additionalProperties: false },
);
export type CreateWorkspaceIntegrationBody = Static<typeof CreateWorkspaceIntegrationBody>;

export const UpdateWorkspaceIntegrationBody = Type.Object(
  {
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Merged over the stored config, field by field: a field you send replaces the stored value, `null` removes an optional ' +
          'field, a field you leave out (or a secret sent back as `********`) keeps its stored value. The result is checked whole.',
      }),
    ),
    metadata: Type.Optional(IntegrationMetadata),
    enabled: Type.Optional(
      Type.Boolean({ description: '`true` switches a disabled integration back on; `false` is the same as disable.' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWorkspaceIntegrationBody = Static<typeof UpdateWorkspaceIntegrationBody>;

export const ValidateIntegrationBody = Type.Object(
  {
    integrationId: Type.String({ format: 'uuid', description: 'The catalog kind.' }),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'The config to check, whole (nothing is saved). Leave it out to re-check the config the workspace saved for this kind: ' +
          'the outcome is then recorded on it (`status`, `errorMessage`, `lastValidatedAt`).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ValidateIntegrationBody = Static<typeof ValidateIntegrationBody>;

export const PROVIDER_CHECK_OUTCOMES = ['passed', 'refused', 'unreachable', 'not_applicable', 'skipped'] as const;
export type ProviderCheckOutcome = (typeof PROVIDER_CHECK_OUTCOMES)[number];

export const IntegrationValidation = Type.Object(
  {
    integrationId: Uuid,
    valid: Type.Boolean(),
    errors: Type.Array(FieldError, { description: 'Each bad field (`config.apiKey`...); empty when valid.' }),
    providerCheck: StringEnum(PROVIDER_CHECK_OUTCOMES, {
      description:
        '`passed` / `refused` by the provider; `unreachable`: no usable answer (time-out, provider error), try again; ' +
        '`not_applicable`: the kind never calls a provider; `skipped`: the fields were already wrong.',
    }),
    saved: Type.Boolean({ description: 'True when the outcome was recorded on the saved integration (re-check without `config`).' }),
    checkedAt: DateTime,
  },
  {
    examples: [
      {
        integrationId: '3f6c1a52-9b7e-4d21-8c4f-1a2b3c4d5e01',
        valid: false,
        errors: [{ field: 'config.apiKey', reason: 'was refused by the provider (HTTP 401)' }],
        providerCheck: 'refused',
        saved: false,
        checkedAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type IntegrationValidation = Static<typeof IntegrationValidation>;

export const WorkspaceIntegrationStatus = Type.Object({
  id: Uuid,
  integrationId: Uuid,
  key: Type.String(),
  status: StringEnum(INTEGRATION_STATUSES),
  errorMessage: Type.Union([Type.String(), Type.Null()]),
  lastValidatedAt: Type.Union([DateTime, Type.Null()]),
  needsValidation: Type.Boolean({ description: 'True while the current config has not passed a provider check (`pending`, `error`).' }),
  updatedAt: DateTime,
});
export type WorkspaceIntegrationStatus = Static<typeof WorkspaceIntegrationStatus>;

export const WorkspaceIntegrationParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The workspace.' }),
  integrationId: Type.String({ format: 'uuid', description: 'The catalog kind (or the workspace integration’s own `id`).' }),
});
export type WorkspaceIntegrationParams = Static<typeof WorkspaceIntegrationParams>;

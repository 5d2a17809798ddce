import { type Static, Type } from '@sinclair/typebox';
import { CurrencySchema, DateTime, Metadata, NetworkSchema, StringEnum, Uuid } from '../common/domain.js';
import { EmailAddress, Nullable } from './common.js';

export const WORKSPACE_STATUSES = ['active', 'inactive', 'suspended', 'pending'] as const;
export type WorkspaceStatus = (typeof WORKSPACE_STATUSES)[number];
export const WALLET_PROVIDERS = ['PLATFORM', 'CUSTODY_A', 'CUSTODY_B', 'CUSTODY_C', 'CUSTODY_D'] as const;
export type WalletProvider = (typeof WALLET_PROVIDERS)[number];

export const SLUG_PATTERN = '^[a-z0-9-]+$';
export const Slug = Type.String({
  pattern: SLUG_PATTERN,
  minLength: 1,
  maxLength: 255,
  description: 'Lower-case letters, digits and dashes.',
});
const WebhookUrl = Type.String({ format: 'uri', maxLength: 2048, description: 'An https URL in production.' });

export const WorkspaceRecord = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    slug: Type.String(),
    email: Type.String({ format: 'email' }),
    status: StringEnum(WORKSPACE_STATUSES),
    avatarPath: Nullable(Type.String()),
    webhookUrl: Nullable(Type.String()),
    walletProvider: Nullable(StringEnum(WALLET_PROVIDERS)),
    walletId: Nullable(Type.String()),
    custodyCOrganizationId: Nullable(Type.String()),
    metadata: Metadata,
    billingEnabled: Type.Boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    examples: [
      {
        id: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
        name: 'Acme Payments',
        slug: 'acme-payments',
        email: 'ops@acme.example',
        status: 'pending',
        avatarPath: null,
        webhookUrl: null,
        walletProvider: null,
        walletId: null,
        custodyCOrganizationId: null,
        metadata: {},
        billingEnabled: false,
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type WorkspaceRecord = Static<typeof WorkspaceRecord>;

export const CreateWorkspaceBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    email: EmailAddress,
    slug: Type.Optional(Slug),
    status: Type.Optional(StringEnum(WORKSPACE_STATUSES, { description: 'SUPER_ADMIN only; a new workspace is `pending` otherwise.' })),
    webhookUrl: Type.Optional(Nullable(WebhookUrl)),
    walletProvider: Type.Optional(Nullable(StringEnum(WALLET_PROVIDERS))),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateWorkspaceBody = Static<typeof CreateWorkspaceBody>;

export const UpdateWorkspaceBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    email: Type.Optional(EmailAddress),
    status: Type.Optional(StringEnum(WORKSPACE_STATUSES, { description: 'SUPER_ADMIN only.' })),
    avatarPath: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 1024 }), {
        description: '`null` clears it; upload with POST /workspaces/{id}/avatar.',
      }),
    ),
    webhookUrl: Type.Optional(Nullable(WebhookUrl)),
    walletProvider: Type.Optional(Nullable(StringEnum(WALLET_PROVIDERS))),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWorkspaceBody = Static<typeof UpdateWorkspaceBody>;

/** Billing of a workspace (the spec leaves the record open; see docs/workspaces.md). */
export const BILLING_PLANS = ['sandbox', 'standard', 'enterprise'] as const;
export type BillingPlan = (typeof BILLING_PLANS)[number];

export const WorkspaceBilling = Type.Object(
  {
    workspaceId: Uuid,
    billingEnabled: Type.Boolean({ description: 'When true, Payments API transactions of the workspace need a fee quote (`quoteId`).' }),
    plan: StringEnum(BILLING_PLANS),
    billingEmail: Nullable(Type.String({ format: 'email' }), { description: 'Where invoices go; the workspace e-mail when null.' }),
    companyName: Nullable(Type.String()),
    taxId: Nullable(Type.String()),
    updatedAt: Nullable(DateTime, { description: 'Null while the defaults were never changed.' }),
  },
  {
    examples: [
      {
        workspaceId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
        billingEnabled: false,
        plan: 'sandbox',
        billingEmail: null,
        companyName: null,
        taxId: null,
        updatedAt: null,
      },
    ],
  },
);
export type WorkspaceBilling = Static<typeof WorkspaceBilling>;

export const UpdateBillingBody = Type.Object(
  {
    billingEnabled: Type.Optional(Type.Boolean({ description: 'SUPER_ADMIN only.' })),
    plan: Type.Optional(StringEnum(BILLING_PLANS, { description: 'SUPER_ADMIN only.' })),
    billingEmail: Type.Optional(Nullable(EmailAddress)),
    companyName: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    taxId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateBillingBody = Static<typeof UpdateBillingBody>;

/** Wallet settings of a workspace (the spec leaves the record open; see docs/workspaces.md). */
export const WalletSettings = Type.Object(
  {
    workspaceId: Uuid,
    walletProvider: Nullable(StringEnum(WALLET_PROVIDERS), { description: 'Same value as the workspace record.' }),
    walletId: Nullable(Type.String({ description: "The provider's wallet (or wallet set) id used for the workspace." })),
    custodyCOrganizationId: Nullable(Type.String({ description: 'Organization id at provider CUSTODY_C.' })),
    defaultNetwork: Nullable(NetworkSchema),
    enabledNetworks: Type.Array(NetworkSchema, { description: 'Networks customer wallets and transactions may use; empty means all.' }),
    defaultCurrency: Nullable(CurrencySchema),
    autoCreateCustomerWallets: Type.Boolean({ description: 'Create a wallet for each new customer with the workspace provider.' }),
    updatedAt: Nullable(DateTime),
  },
  {
    examples: [
      {
        workspaceId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
        walletProvider: 'CUSTODY_A',
        walletId: 'ws_123',
        custodyCOrganizationId: null,
        defaultNetwork: 'base-sepolia',
        enabledNetworks: ['base-sepolia'],
        defaultCurrency: 'USDC',
        autoCreateCustomerWallets: false,
        updatedAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type WalletSettings = Static<typeof WalletSettings>;

export const UpdateWalletSettingsBody = Type.Object(
  {
    walletProvider: Type.Optional(Nullable(StringEnum(WALLET_PROVIDERS))),
    walletId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    custodyCOrganizationId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    defaultNetwork: Type.Optional(Nullable(NetworkSchema)),
    enabledNetworks: Type.Optional(Type.Array(NetworkSchema, { uniqueItems: true, maxItems: 20 })),
    defaultCurrency: Type.Optional(Nullable(CurrencySchema)),
    autoCreateCustomerWallets: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWalletSettingsBody = Static<typeof UpdateWalletSettingsBody>;

/** PUT: the whole record; a field left out takes its default (null, `[]`, false), unlike PATCH, which keeps it. */
export const ReplaceWalletSettingsBody = Type.Object(UpdateWalletSettingsBody.properties, {
  additionalProperties: false,
  description: 'Every wallet setting; a field left out is reset to its default (null, [] or false).',
});
export type ReplaceWalletSettingsBody = Static<typeof ReplaceWalletSettingsBody>;

/** The link between a workspace and one of its payments platforms (an API key holder in payments-service). */
export const PLATFORM_MAPPING_KINDS = ['sandbox', 'production'] as const;
export type PlatformMappingKind = (typeof PLATFORM_MAPPING_KINDS)[number];
export const PLATFORM_MAPPING_STATUSES = ['active', 'revoked'] as const;
export type PlatformMappingStatus = (typeof PLATFORM_MAPPING_STATUSES)[number];

export const PlatformMapping = Type.Object(
  {
    id: Uuid,
    workspaceId: Uuid,
    platformId: Uuid,
    kind: StringEnum(PLATFORM_MAPPING_KINDS),
    name: Type.String(),
    status: StringEnum(PLATFORM_MAPPING_STATUSES),
    createdBy: Nullable(Uuid),
    createdAt: DateTime,
    revokedAt: Nullable(DateTime),
  },
  {
    examples: [
      {
        id: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7c',
        workspaceId: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7b',
        platformId: '6f9619ff-8b86-4d01-b42d-00cf4fc964ff',
        kind: 'sandbox',
        name: 'acme-payments sandbox 1',
        status: 'active',
        createdBy: '0193a1c2-7d4e-7a10-9c1b-2f3e4d5c6b7a',
        createdAt: '2026-11-21T10:00:00.000Z',
        revokedAt: null,
      },
    ],
  },
);
export type PlatformMapping = Static<typeof PlatformMapping>;

export const PlatformMappingQuery = Type.Object(
  {
    kind: Type.Optional(StringEnum(PLATFORM_MAPPING_KINDS)),
    status: Type.Optional(StringEnum(PLATFORM_MAPPING_STATUSES)),
  },
  { additionalProperties: false },
);
export type PlatformMappingQuery = Static<typeof PlatformMappingQuery>;

export const WorkspaceListQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    status: Type.Optional(StringEnum(WORKSPACE_STATUSES)),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Part of the name, slug or e-mail.' })),
  },
  { additionalProperties: false },
);
export type WorkspaceListQuery = Static<typeof WorkspaceListQuery>;

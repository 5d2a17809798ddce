import { type Static, Type } from '@sinclair/typebox';
import { DateTime, DecimalString, Metadata, NetworkSchema, StringEnum, Uuid } from '../common/domain.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../common/pagination.js';

// Workspace API: wallet provider configs, external wallet configs, wallet accounts and balances,
// customer wallet linking (SIWE) and custody wallets, escrow contract deployments.
// Every route body, query and answer of those parts; docs/wallets.md explains the rules.

/* ----------------------------------------------------------------------------------------------
 * Providers
 * -------------------------------------------------------------------------------------------- */

/** A workspace's wallet provider (`Workspace.walletProvider`): the built-in HD wallet or a custody vendor. */
export const WALLET_PROVIDER_KINDS = ['PLATFORM', 'CUSTODY_A', 'CUSTODY_B', 'CUSTODY_C', 'CUSTODY_D'] as const;
export type WalletProviderKind = (typeof WALLET_PROVIDER_KINDS)[number];
export const WalletProviderKindSchema = StringEnum(WALLET_PROVIDER_KINDS);

/** The vendors a wallet provider config holds credentials for (PLATFORM needs none). */
export const CUSTODY_PROVIDER_TYPES = ['CUSTODY_A', 'CUSTODY_B', 'CUSTODY_C', 'CUSTODY_D'] as const;
export type CustodyProviderType = (typeof CUSTODY_PROVIDER_TYPES)[number];
export const CustodyProviderTypeSchema = StringEnum(CUSTODY_PROVIDER_TYPES);

const Https = Type.String({
  format: 'uri',
  maxLength: 2048,
  description: "The vendor's API base URL: https, and a public address outside `local` (docs/wallets.md).",
});
const Credential = (description: string) => Type.String({ minLength: 8, maxLength: 4096, description });

/**
 * The credential object (`config`) of each custody vendor. Accepted on create and update, sealed
 * with AES-256-GCM at rest, never returned, logged or audited. docs/wallets.md describes each API.
 */
export const CustodyAConfig = Type.Object(
  { baseUrl: Https, apiKey: Credential('Sent as `Authorization: Bearer <apiKey>`.') },
  { additionalProperties: false, $id: 'CustodyAConfig' },
);
export const CustodyBConfig = Type.Object(
  {
    baseUrl: Https,
    apiKey: Credential('Sent as `X-API-Key`.'),
    apiSecret: Credential('Signs each request: `X-Signature` = hex HMAC-SHA256 of `timestamp + method + path + body`.'),
  },
  { additionalProperties: false, $id: 'CustodyBConfig' },
);
export const CustodyCConfig = Type.Object(
  {
    baseUrl: Https,
    organizationId: Type.String({ minLength: 1, maxLength: 255 }),
    apiPublicKey: Credential('Named in each request stamp.'),
    apiPrivateKey: Credential('Signs each request stamp (HMAC-SHA256 of the body).'),
  },
  { additionalProperties: false, $id: 'CustodyCConfig' },
);
export const CustodyDConfig = Type.Object(
  {
    baseUrl: Https,
    keyId: Type.String({ minLength: 1, maxLength: 255, description: 'Basic auth user.' }),
    keySecret: Credential('Basic auth password.'),
  },
  { additionalProperties: false, $id: 'CustodyDConfig' },
);
export const CUSTODY_CONFIG_SCHEMAS = {
  CUSTODY_A: CustodyAConfig,
  CUSTODY_B: CustodyBConfig,
  CUSTODY_C: CustodyCConfig,
  CUSTODY_D: CustodyDConfig,
} as const;
export type CustodyAConfig = Static<typeof CustodyAConfig>;
export type CustodyBConfig = Static<typeof CustodyBConfig>;
export type CustodyCConfig = Static<typeof CustodyCConfig>;
export type CustodyDConfig = Static<typeof CustodyDConfig>;
export type CustodyConfig<T extends CustodyProviderType = CustodyProviderType> = Static<(typeof CUSTODY_CONFIG_SCHEMAS)[T]>;

const ConfigObject = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Credentials of the provider (shape per providerType: CustodyAConfig..CustodyDConfig). Encrypted at rest, never returned.',
});

/* ----------------------------------------------------------------------------------------------
 * Wallet provider configs
 * -------------------------------------------------------------------------------------------- */

export const WalletProviderConfig = Type.Object(
  {
    id: Uuid,
    workspaceId: Type.Union([Uuid, Type.Null()], { description: 'null for a global config.' }),
    isGlobal: Type.Boolean(),
    providerType: CustodyProviderTypeSchema,
    providerName: Type.String(),
    walletSetId: Type.Union([Type.String(), Type.Null()]),
    defaultWalletId: Type.Union([Type.String(), Type.Null()]),
    isActive: Type.Boolean(),
    isDefault: Type.Boolean({ description: 'The default of its scope: one per workspace, one among global configs.' }),
    supportedNetworks: Type.Array(NetworkSchema),
    metadata: Metadata,
    version: Type.Integer({ minimum: 1, description: 'Increases on every change of the config.' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  {
    $id: 'WalletProviderConfig',
    description: 'A custody vendor configuration. `config` (the credentials) is write-only.',
    examples: [
      {
        id: '0193a3c2-7f10-7a55-9d1e-4c2b8e0f1a23',
        workspaceId: '6f9619ff-8b86-4d01-b42d-00cf4fc964ff',
        isGlobal: false,
        providerType: 'CUSTODY_A',
        providerName: 'Custody A production',
        walletSetId: 'ws_01',
        defaultWalletId: null,
        isActive: true,
        isDefault: true,
        supportedNetworks: ['base-sepolia'],
        metadata: {},
        version: 1,
        createdAt: '2026-11-21T10:00:00.000Z',
        updatedAt: '2026-11-21T10:00:00.000Z',
      },
    ],
  },
);
export type WalletProviderConfig = Static<typeof WalletProviderConfig>;

export const CreateWalletProviderConfigBody = Type.Object(
  {
    workspaceId: Uuid,
    providerType: CustodyProviderTypeSchema,
    providerName: Type.String({ minLength: 1, maxLength: 255 }),
    config: ConfigObject,
    isGlobal: Type.Optional(Type.Literal(false, { description: 'Global configs cannot be created.' })),
    walletSetId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    defaultWalletId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    isActive: Type.Optional(Type.Boolean({ default: true })),
    isDefault: Type.Optional(Type.Boolean({ default: false })),
    supportedNetworks: Type.Optional(Type.Array(NetworkSchema, { maxItems: 20, uniqueItems: true })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, $id: 'CreateWalletProviderConfigBody' },
);
export type CreateWalletProviderConfigBody = Static<typeof CreateWalletProviderConfigBody>;

export const UpdateWalletProviderConfigBody = Type.Object(
  {
    providerName: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    config: Type.Optional(ConfigObject),
    walletSetId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()])),
    defaultWalletId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()])),
    isActive: Type.Optional(Type.Boolean()),
    isDefault: Type.Optional(Type.Boolean()),
    supportedNetworks: Type.Optional(Type.Array(NetworkSchema, { maxItems: 20, uniqueItems: true })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, minProperties: 1, $id: 'UpdateWalletProviderConfigBody' },
);
export type UpdateWalletProviderConfigBody = Static<typeof UpdateWalletProviderConfigBody>;

export const WalletProviderConfigParams = Type.Object({ id: Uuid });

export const ListWalletProviderConfigsQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
    isGlobal: Type.Optional(Type.Boolean()),
    workspaceId: Type.Optional(Uuid),
    providerType: Type.Optional(CustodyProviderTypeSchema),
    isActive: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ListWalletProviderConfigsQuery = Static<typeof ListWalletProviderConfigsQuery>;

/** The list answer is not enveloped in pages: `{data, total, page, limit, totalPages}` (spec). */
export const WalletProviderConfigList = Type.Object(
  {
    data: Type.Array(WalletProviderConfig),
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX }),
    totalPages: Type.Integer({ minimum: 0 }),
  },
  { $id: 'WalletProviderConfigList' },
);
export type WalletProviderConfigList = Static<typeof WalletProviderConfigList>;

export const DUPLICATE_CHECK_PROVIDER_TYPES = ['CUSTODY_A', 'CUSTODY_C'] as const;
export const CheckDuplicateQuery = Type.Object(
  {
    providerType: StringEnum(DUPLICATE_CHECK_PROVIDER_TYPES),
    workspaceId: Type.Optional(Type.String({ format: 'uuid', description: 'The scope to look in; omitted means the global scope.' })),
    excludeId: Type.Optional(Type.String({ format: 'uuid', description: 'A config to ignore (the one being edited).' })),
  },
  { additionalProperties: false },
);
export type CheckDuplicateQuery = Static<typeof CheckDuplicateQuery>;

export const DuplicateCheckResult = Type.Object(
  { isDuplicate: Type.Boolean(), existingConfig: Type.Union([WalletProviderConfig, Type.Null()]) },
  { $id: 'DuplicateCheckResult' },
);
export type DuplicateCheckResult = Static<typeof DuplicateCheckResult>;

export const WalletProviderStatusItem = Type.Object({
  id: Uuid,
  workspaceId: Type.Union([Uuid, Type.Null()]),
  isGlobal: Type.Boolean(),
  providerType: CustodyProviderTypeSchema,
  providerName: Type.String(),
  version: Type.Integer({ minimum: 1 }),
  isActive: Type.Boolean(),
  isDefault: Type.Boolean(),
  updatedAt: DateTime,
});
export type WalletProviderStatusItem = Static<typeof WalletProviderStatusItem>;

export const WalletProviderStatusQuery = Type.Object({ workspaceId: Type.Optional(Uuid) }, { additionalProperties: false });

/** `GET /wallet-provider-configs/status` (behind `X-Internal-API-Key`): every config with its version. */
export const WalletProviderStatus = Type.Object(
  { configs: Type.Array(WalletProviderStatusItem), total: Type.Integer({ minimum: 0 }), timestamp: DateTime },
  { $id: 'WalletProviderStatus' },
);
export type WalletProviderStatus = Static<typeof WalletProviderStatus>;

export const ConnectionTestResult = Type.Object(
  {
    success: Type.Boolean(),
    message: Type.String(),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description:
        '`providerType`, `baseUrl`; on failure `reason` (unauthorized, timeout, unreachable, address_refused, malformed_response, vendor_error), `vendorStatus`, and `refusal` for address_refused.',
    }),
  },
  { $id: 'ConnectionTestResult' },
);
export type ConnectionTestResult = Static<typeof ConnectionTestResult>;

/* ----------------------------------------------------------------------------------------------
 * External wallet configs
 * -------------------------------------------------------------------------------------------- */

export const EXTERNAL_WALLET_TYPES = ['EXTERNAL_WALLET_1', 'EXTERNAL_WALLET_2', 'EXTERNAL_WALLET_3', 'EXTERNAL_WALLET_4'] as const;
export type ExternalWalletType = (typeof EXTERNAL_WALLET_TYPES)[number];
export const ExternalWalletTypeSchema = StringEnum(EXTERNAL_WALLET_TYPES);

/** Networks as external wallet configs name them (upper snake case of the network names). */
export const EXTERNAL_WALLET_NETWORKS = [
  'ETHEREUM',
  'BASE',
  'SOLANA',
  'OPTIMISM',
  'ARBITRUM',
  'BASE_SEPOLIA',
  'ETHEREUM_SEPOLIA',
  'OPTIMISM_SEPOLIA',
  'ARBITRUM_SEPOLIA',
  'SOLANA_DEVNET',
  'SOLANA_TESTNET',
] as const;

export const ExternalWalletSettings = Type.Object(
  {
    rpcProviderApiKey: Type.Optional(Type.String({ maxLength: 512, description: 'Client-side RPC key; encrypted at rest.' })),
    projectId: Type.Optional(Type.String({ maxLength: 255 })),
    appName: Type.Optional(Type.String({ maxLength: 255 })),
    appLogoUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
  },
  { additionalProperties: false },
);
export type ExternalWalletSettings = Static<typeof ExternalWalletSettings>;

export const ExternalWalletConfig = Type.Object(
  {
    id: Uuid,
    workspaceId: Uuid,
    providerType: ExternalWalletTypeSchema,
    isEnabled: Type.Boolean(),
    allowedNetworks: Type.Array(StringEnum(EXTERNAL_WALLET_NETWORKS)),
    allowedTemplateIds: Type.Array(Type.String()),
    config: ExternalWalletSettings,
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'ExternalWalletConfig' },
);
export type ExternalWalletConfig = Static<typeof ExternalWalletConfig>;

export const ExternalWalletConfigParams = Type.Object({ id: Uuid, type: ExternalWalletTypeSchema });

export const UpsertExternalWalletConfigBody = Type.Object(
  {
    isEnabled: Type.Optional(Type.Boolean({ description: 'false when a new config omits it.' })),
    allowedNetworks: Type.Optional(Type.Array(StringEnum(EXTERNAL_WALLET_NETWORKS), { maxItems: 20, uniqueItems: true })),
    allowedTemplateIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100, uniqueItems: true })),
    config: Type.Optional(ExternalWalletSettings),
  },
  { additionalProperties: false, $id: 'UpsertExternalWalletConfigBody' },
);
export type UpsertExternalWalletConfigBody = Static<typeof UpsertExternalWalletConfigBody>;

export const ExternalWalletConfigList = Type.Object({ configs: Type.Array(ExternalWalletConfig) }, { $id: 'ExternalWalletConfigList' });
export type ExternalWalletConfigList = Static<typeof ExternalWalletConfigList>;

export const ExternalWalletConfigDeleted = Type.Object({ message: Type.String() }, { $id: 'ExternalWalletConfigDeleted' });
export type ExternalWalletConfigDeleted = Static<typeof ExternalWalletConfigDeleted>;

/* ----------------------------------------------------------------------------------------------
 * Wallet accounts and balances
 * -------------------------------------------------------------------------------------------- */

export const ADDRESS_FORMATS = ['ADDRESS_FORMAT_ETHEREUM', 'ADDRESS_FORMAT_SOLANA'] as const;
export type AddressFormat = (typeof ADDRESS_FORMATS)[number];
export const CURVES = ['CURVE_SECP256K1', 'CURVE_ED25519'] as const;
export type Curve = (typeof CURVES)[number];
/** The one curve each address format is derived on. */
export const CURVE_OF_FORMAT: Record<AddressFormat, Curve> = {
  ADDRESS_FORMAT_ETHEREUM: 'CURVE_SECP256K1',
  ADDRESS_FORMAT_SOLANA: 'CURVE_ED25519',
};

export const DERIVATION_PATH_PATTERN = "^m(/[0-9]{1,10}'?){1,10}$";

export const WalletAccountSpec = Type.Object(
  {
    addressFormat: StringEnum(ADDRESS_FORMATS),
    curve: StringEnum(CURVES),
    path: Type.String({
      pattern: DERIVATION_PATH_PATTERN,
      maxLength: 128,
      description: "BIP-32 path, e.g. m/44'/60'/0'/0/0 (Ethereum) or m/44'/501'/0'/0' (Solana: every level hardened).",
    }),
  },
  { additionalProperties: false },
);
export type WalletAccountSpec = Static<typeof WalletAccountSpec>;

export const CreateWalletAccountsBody = Type.Object(
  { accounts: Type.Array(WalletAccountSpec, { minItems: 1, maxItems: 20 }) },
  { additionalProperties: false, $id: 'CreateWalletAccountsBody' },
);
export type CreateWalletAccountsBody = Static<typeof CreateWalletAccountsBody>;

export const WalletAccount = Type.Object(
  {
    address: Type.String(),
    addressFormat: StringEnum(ADDRESS_FORMATS),
    curve: StringEnum(CURVES),
    path: Type.Union([Type.String(), Type.Null()], { description: 'null when the provider does not disclose its derivation.' }),
  },
  { $id: 'WalletAccount' },
);
export type WalletAccount = Static<typeof WalletAccount>;

export const WalletAccounts = Type.Object({ accounts: Type.Array(WalletAccount), message: Type.String() }, { $id: 'WalletAccounts' });
export type WalletAccounts = Static<typeof WalletAccounts>;

export const TokenBalance = Type.Object({
  symbol: Type.String(),
  balance: DecimalString,
  contractAddress: Type.String({ description: 'ERC-20 contract, or SPL mint on Solana.' }),
});
export type TokenBalance = Static<typeof TokenBalance>;

export const BalanceEntry = Type.Object(
  {
    address: Type.String(),
    network: NetworkSchema,
    nativeBalance: DecimalString,
    nativeSymbol: Type.String(),
    tokens: Type.Array(TokenBalance),
  },
  {
    $id: 'BalanceEntry',
    examples: [
      {
        address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        network: 'base-sepolia',
        nativeBalance: '1.5',
        nativeSymbol: 'ETH',
        tokens: [{ symbol: 'MockUSDC', balance: '250.000001', contractAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3' }],
      },
    ],
  },
);
export type BalanceEntry = Static<typeof BalanceEntry>;

export const BALANCE_WARNING_CODES = [
  'RPC_UNAVAILABLE',
  'RPC_TIMEOUT',
  'MALFORMED_RESPONSE',
  'TOKEN_UNAVAILABLE',
  'PROVIDER_ERROR',
] as const;
export type BalanceWarningCode = (typeof BALANCE_WARNING_CODES)[number];

export const BalanceWarning = Type.Object(
  {
    code: StringEnum(BALANCE_WARNING_CODES),
    message: Type.String(),
    network: Type.Optional(Type.String()),
    address: Type.Optional(Type.String()),
    provider: Type.Optional(Type.String()),
    token: Type.Optional(Type.String()),
  },
  { $id: 'BalanceWarning', description: 'A network, token or provider that could not be read; the rest of the answer stands.' },
);
export type BalanceWarning = Static<typeof BalanceWarning>;

export const WalletBalances = Type.Object(
  { balances: Type.Array(BalanceEntry), warnings: Type.Array(BalanceWarning) },
  { $id: 'WalletBalances' },
);
export type WalletBalances = Static<typeof WalletBalances>;

/* ----------------------------------------------------------------------------------------------
 * Customer wallets: linking with Sign-In with Ethereum, custody A wallets
 * -------------------------------------------------------------------------------------------- */

export const EthereumAddress = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'An Ethereum address (any case).' });

export const WalletLinkNonceBody = Type.Object(
  {
    walletAddress: Type.Optional(EthereumAddress),
    chainId: Type.Optional(
      Type.Integer({ minimum: 1, description: 'The chain the wallet signs for; the first configured one when omitted.' }),
    ),
  },
  { additionalProperties: false, $id: 'WalletLinkNonceBody' },
);
export type WalletLinkNonceBody = Static<typeof WalletLinkNonceBody>;

export const WalletLinkNonce = Type.Object(
  {
    nonce: Type.String(),
    domain: Type.String(),
    uri: Type.String(),
    version: Type.Literal('1'),
    chainId: Type.Integer(),
    statement: Type.String(),
    issuedAt: DateTime,
    expirationTime: DateTime,
    message: Type.Optional(Type.String({ description: 'The EIP-4361 message to sign, when walletAddress was given.' })),
  },
  { $id: 'WalletLinkNonce' },
);
export type WalletLinkNonce = Static<typeof WalletLinkNonce>;

export const LinkWalletBody = Type.Object(
  {
    walletAddress: EthereumAddress,
    signature: Type.String({ pattern: '^0x[0-9a-fA-F]+$', maxLength: 20_000 }),
    message: Type.String({ minLength: 1, maxLength: 4096, description: 'The signed EIP-4361 message.' }),
  },
  { additionalProperties: false, $id: 'LinkWalletBody' },
);
export type LinkWalletBody = Static<typeof LinkWalletBody>;

export const CUSTOMER_WALLET_SOURCES = ['siwe', 'custody_a', 'platform'] as const;

export const CustomerWallet = Type.Object(
  {
    customerId: Uuid,
    walletAddress: Type.String(),
    walletLinkedAt: DateTime,
    chainId: Type.Union([Type.Integer(), Type.Null()]),
    source: StringEnum(CUSTOMER_WALLET_SOURCES),
  },
  { $id: 'CustomerWallet' },
);
export type CustomerWallet = Static<typeof CustomerWallet>;

export const CUSTODY_A_NETWORKS = ['BASE_SEPOLIA', 'BASE', 'ETH_SEPOLIA', 'ETH'] as const;
export type CustodyANetwork = (typeof CUSTODY_A_NETWORKS)[number];

export const CreateCustodyAWalletBody = Type.Object(
  {
    network: Type.Optional(
      StringEnum(CUSTODY_A_NETWORKS, { description: 'BASE_SEPOLIA outside production, BASE in production, when omitted.' }),
    ),
  },
  { additionalProperties: false, $id: 'CreateCustodyAWalletBody' },
);
export type CreateCustodyAWalletBody = Static<typeof CreateCustodyAWalletBody>;

export const CustodyAWalletStatus = Type.Object(
  {
    hasWallet: Type.Boolean(),
    walletId: Type.Union([Type.String(), Type.Null()]),
    walletAddress: Type.Union([Type.String(), Type.Null()]),
    walletLinkedAt: Type.Union([DateTime, Type.Null()]),
  },
  { $id: 'CustodyAWalletStatus' },
);
export type CustodyAWalletStatus = Static<typeof CustodyAWalletStatus>;

export const CustodyAWalletCreated = Type.Object(
  {
    success: Type.Literal(true),
    walletId: Type.String(),
    walletAddress: Type.String(),
    blockchain: StringEnum(CUSTODY_A_NETWORKS),
    createdAt: DateTime,
  },
  { $id: 'CustodyAWalletCreated' },
);
export type CustodyAWalletCreated = Static<typeof CustodyAWalletCreated>;

export const CustodyAWalletBalance = Type.Object(
  {
    walletId: Type.String(),
    walletAddress: Type.String(),
    blockchain: StringEnum(CUSTODY_A_NETWORKS),
    network: NetworkSchema,
    nativeBalance: DecimalString,
    nativeSymbol: Type.String(),
    tokens: Type.Array(TokenBalance),
  },
  { $id: 'CustodyAWalletBalance' },
);
export type CustodyAWalletBalance = Static<typeof CustodyAWalletBalance>;

/* ----------------------------------------------------------------------------------------------
 * Contract deployments
 * -------------------------------------------------------------------------------------------- */

export const CONTRACT_NETWORKS = ['base-sepolia', 'base', 'ethereum-sepolia', 'ethereum'] as const;
export type ContractNetwork = (typeof CONTRACT_NETWORKS)[number];
export const ContractNetworkSchema = StringEnum(CONTRACT_NETWORKS);

export const CONTRACT_DEPLOYMENT_STATUSES = ['pending', 'active', 'failed', 'deprecated'] as const;
export type ContractDeploymentStatus = (typeof CONTRACT_DEPLOYMENT_STATUSES)[number];

export const ContractDeployment = Type.Object(
  {
    id: Uuid,
    workspaceId: Type.Union([Uuid, Type.Null()], { description: 'null for a shared deployment.' }),
    globalTemplateId: Type.Union([Type.String(), Type.Null()]),
    network: NetworkSchema,
    contractType: Type.Literal('escrow'),
    contractAddress: Type.Union([Type.String(), Type.Null()], { description: 'null until mined (pending) or when it failed.' }),
    factoryAddress: Type.Union([Type.String(), Type.Null()]),
    deploymentTxHash: Type.Union([Type.String(), Type.Null()]),
    deployedAt: Type.Union([DateTime, Type.Null()]),
    deployedBy: Type.Union([Type.String(), Type.Null()], { description: 'The user who asked for the deployment.' }),
    status: StringEnum(CONTRACT_DEPLOYMENT_STATUSES),
    isShared: Type.Boolean(),
    verified: Type.Boolean(),
    verifiedAt: Type.Union([DateTime, Type.Null()]),
    metadata: Type.Object({
      gasUsed: Type.Optional(Type.Integer()),
      blockNumber: Type.Optional(Type.Integer()),
      deployerAddress: Type.Optional(Type.String()),
      factoryVersion: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      error: Type.Optional(Type.String({ description: 'Why a failed deployment failed.' })),
    }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'ContractDeployment' },
);
export type ContractDeployment = Static<typeof ContractDeployment>;

export const ContractDeploymentList = Type.Array(ContractDeployment, { $id: 'ContractDeploymentList' });

export const ContractNetworkParams = Type.Object({ id: Uuid, network: ContractNetworkSchema });
export const ContractDeploymentParams = Type.Object({ id: Uuid, deploymentId: Uuid });

export const ContractForNetwork = Type.Object(
  {
    address: Type.String(),
    network: ContractNetworkSchema,
    isShared: Type.Boolean(),
    deploymentId: Uuid,
  },
  { $id: 'ContractForNetwork' },
);
export type ContractForNetwork = Static<typeof ContractForNetwork>;

export const ContractDeployed = Type.Object(
  {
    deploymentId: Uuid,
    contractAddress: Type.String(),
    transactionHash: Type.String(),
    status: StringEnum(CONTRACT_DEPLOYMENT_STATUSES),
    network: ContractNetworkSchema,
    gasUsed: Type.Integer(),
    blockNumber: Type.Integer(),
  },
  { $id: 'ContractDeployed' },
);
export type ContractDeployed = Static<typeof ContractDeployed>;

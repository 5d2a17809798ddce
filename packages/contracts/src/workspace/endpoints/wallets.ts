import { NoContent, SuccessEnvelope as ok } from '../../common/envelope.js';
import { WALLET_AUDIT } from '../audit-actions.js';
import { IdParams } from '../common.js';
import { WorkspaceRefParams } from '../customers.js';
import { ADMIN_ROLES } from '../identity.js';
import {
  CheckDuplicateQuery,
  ConnectionTestResult,
  ContractDeployed,
  ContractDeployment,
  ContractDeploymentList,
  ContractDeploymentParams,
  ContractForNetwork,
  ContractNetworkParams,
  CreateCustodyAWalletBody,
  CreateWalletAccountsBody,
  CreateWalletProviderConfigBody,
  CustodyAWalletBalance,
  CustodyAWalletCreated,
  CustodyAWalletStatus,
  CustomerWallet,
  DuplicateCheckResult,
  ExternalWalletConfig,
  ExternalWalletConfigDeleted,
  ExternalWalletConfigList,
  ExternalWalletConfigParams,
  LinkWalletBody,
  ListWalletProviderConfigsQuery,
  UpdateWalletProviderConfigBody,
  UpsertExternalWalletConfigBody,
  WalletAccounts,
  WalletBalances,
  WalletLinkNonce,
  WalletLinkNonceBody,
  WalletProviderConfig,
  WalletProviderConfigList,
  WalletProviderConfigParams,
  WalletProviderStatus,
  WalletProviderStatusQuery,
} from '../wallets.js';
import { ADMIN_CHANGE, CUSTOMER_TOKEN, resource } from './define.js';

// wallets: custody vendor credentials per workspace (`/wallet-provider-configs`), a customer's
// CUSTODY_A wallet and the customer's own wallet linking, the escrow contracts, the external wallet
// connectors and the workspace's own accounts.

const WALLET_CONFIG_SECRECY =
  '`config` (the vendor credentials, one shape per providerType: docs/wallets.md) is accepted on write, sealed with AES-256-GCM and never ' +
  'returned, logged or audited (audit entries show `[redacted]`).';
const EXTERNAL_CONFIG_CALLERS = 'Members of the workspace (any role) and SUPER_ADMINs.';
const BARE_ANSWER = "The answer is the bare object (the spec's shape), not the envelope; errors use the error envelope.";

const providerConfigs = resource({ tags: ['wallet provider configs'] });

export const listWalletProviderConfigs = providerConfigs('GET /wallet-provider-configs', {
  operationId: 'listWalletProviderConfigs',
  summary: 'List wallet provider configs',
  description:
    "An ADMIN sees its workspace's configs and the global ones; a SUPER_ADMIN every config. Newest first. The answer is the spec's " +
    "bare page `{data, total, page, limit, totalPages}`, not the envelope. A `workspaceId` outside the caller's workspaces is 403.",
  roles: ADMIN_ROLES,
  querystring: ListWalletProviderConfigsQuery,
  response: { 200: WalletProviderConfigList },
});

export const createWalletProviderConfig = providerConfigs('POST /wallet-provider-configs', {
  operationId: 'createWalletProviderConfig',
  summary: 'Create a wallet provider config',
  description:
    `${WALLET_CONFIG_SECRECY} Global configs cannot be created (\`isGlobal: true\` is refused). \`isDefault: true\` takes the default flag from the ` +
    "workspace's previous default. A `config` that does not fit its providerType is 400, naming each field (never its value); a " +
    "workspace that does not exist is 400; another tenant's workspace is 403.",
  ...ADMIN_CHANGE,
  audit: WALLET_AUDIT.providerConfigCreate,
  body: CreateWalletProviderConfigBody,
  response: { 201: ok(WalletProviderConfig) },
});

export const walletProviderConfigStatus = providerConfigs('GET /wallet-provider-configs/status', {
  operationId: 'walletProviderConfigStatus',
  summary: 'Every config and its version (service to service)',
  description:
    'For other Holdfast processes: needs `X-Internal-API-Key` (INTERNAL_API_KEY; no bearer token). Each config has an integer ' +
    '`version` that rises on every change, so a cache can refresh what moved. Without INTERNAL_API_KEY configured every call is 401.',
  access: 'internal',
  tier: 'high',
  querystring: WalletProviderStatusQuery,
  response: { 200: ok(WalletProviderStatus) },
});

export const checkDuplicateWalletProviderConfig = providerConfigs('GET /wallet-provider-configs/check-duplicate', {
  operationId: 'checkDuplicateWalletProviderConfig',
  summary: 'Is there already a config of this type in the scope?',
  description:
    'The scope is the workspace (`workspaceId`) or, without it, the global configs; `excludeId` ignores the config being edited. ' +
    'Advisory: creating a second config of a type is allowed.',
  roles: ADMIN_ROLES,
  querystring: CheckDuplicateQuery,
  response: { 200: ok(DuplicateCheckResult) },
});

export const getWalletProviderConfig = providerConfigs('GET /wallet-provider-configs/:id', {
  operationId: 'getWalletProviderConfig',
  summary: 'Get a wallet provider config',
  description: "Without `config`. Another tenant's config is 404.",
  roles: ADMIN_ROLES,
  params: WalletProviderConfigParams,
  response: { 200: ok(WalletProviderConfig) },
  errors: [404],
});

export const updateWalletProviderConfig = providerConfigs('PATCH /wallet-provider-configs/:id', {
  operationId: 'updateWalletProviderConfig',
  summary: 'Update a wallet provider config',
  description:
    `${WALLET_CONFIG_SECRECY} The given \`config\` fields are merged over the stored ones and the whole is checked. Deactivating a config takes its ` +
    'default flag; an inactive config cannot be made default (400). Global configs are changed by SUPER_ADMINs only (403).',
  ...ADMIN_CHANGE,
  audit: WALLET_AUDIT.providerConfigUpdate,
  params: WalletProviderConfigParams,
  body: UpdateWalletProviderConfigBody,
  response: { 200: ok(WalletProviderConfig) },
  errors: [404],
});

export const deleteWalletProviderConfig = providerConfigs('DELETE /wallet-provider-configs/:id', {
  operationId: 'deleteWalletProviderConfig',
  summary: 'Delete a wallet provider config',
  description: 'The sealed credentials go with it. Global configs are deleted by SUPER_ADMINs only (403).',
  ...ADMIN_CHANGE,
  audit: WALLET_AUDIT.providerConfigDelete,
  params: WalletProviderConfigParams,
  response: { 204: NoContent },
  errors: [404],
});

export const testWalletProviderConnection = providerConfigs('POST /wallet-provider-configs/:id/test-connection', {
  operationId: 'testWalletProviderConnection',
  summary: "Test the vendor's answer to the stored credentials",
  description:
    'Calls the vendor with the stored credentials. A vendor that refuses, times out or answers nonsense is `success: false` with ' +
    '`details.reason` (`unauthorized`, `timeout`, `unreachable`, `address_refused`, `malformed_response`, `vendor_error`; `undecryptable` when the ' +
    'credentials no longer open under DATA_ENCRYPTION_KEY), never an error. Nothing is changed.',
  roles: ADMIN_ROLES,
  tier: 'admin',
  params: WalletProviderConfigParams,
  response: { 200: ok(ConnectionTestResult) },
  errors: [404],
});

export const setDefaultWalletProviderConfig = providerConfigs('POST /wallet-provider-configs/:id/set-default', {
  operationId: 'setDefaultWalletProviderConfig',
  summary: 'Make a config the default of its scope',
  description:
    "The default of its workspace (or, for a global config, of the global configs); the scope's previous default loses the flag " +
    '(named in the audit entry). An inactive config is 400. Answers the config.',
  ...ADMIN_CHANGE,
  audit: WALLET_AUDIT.providerConfigSetDefault,
  params: WalletProviderConfigParams,
  response: { 200: ok(WalletProviderConfig) },
  errors: [404],
});

const wallets = resource({ tags: ['wallets'] });

export const getCustodyAWallet = wallets('GET /customers/:id/custody-a-wallet', {
  operationId: 'getCustodyAWallet',
  summary: "A customer's CUSTODY_A wallet",
  description:
    '`{hasWallet, walletId, walletAddress, walletLinkedAt}` (`hasWallet: false` when the customer has none, or linked its own ' +
    "wallet instead). Members of the customer's workspace and SUPER_ADMINs; another tenant's customer is 404.",
  params: IdParams,
  response: { 200: ok(CustodyAWalletStatus) },
  errors: [403, 404],
});

export const createCustodyAWallet = wallets('POST /customers/:id/custody-a-wallet', {
  operationId: 'createCustodyAWallet',
  summary: 'Create a CUSTODY_A wallet for a customer',
  description:
    "Creates the wallet at CUSTODY_A (a retry sends the vendor the same idempotency key) and makes it the customer's wallet. " +
    '`network` defaults to BASE_SEPOLIA (BASE in production). 400 `WALLET_PROVIDER_NOT_CONFIGURED` without an active CUSTODY_A ' +
    'config for the workspace; 400 `WALLET_ALREADY_LINKED` when the customer has a wallet; 502 when the vendor fails (nothing ' +
    "is stored). ADMINs of the customer's workspace and SUPER_ADMINs.",
  ...ADMIN_CHANGE,
  audit: WALLET_AUDIT.custodyAWalletCreate,
  params: IdParams,
  body: CreateCustodyAWalletBody,
  response: { 201: ok(CustodyAWalletCreated) },
  errors: [404, 409, 502],
});

export const getCustodyAWalletBalance = wallets('GET /customers/:id/custody-a-wallet/balance', {
  operationId: 'getCustodyAWalletBalance',
  summary: "A customer's CUSTODY_A wallet balance",
  description:
    "CUSTODY_A's own report: `{walletId, walletAddress, blockchain, network, nativeBalance, nativeSymbol, tokens}`. 404 when the " +
    "customer has no CUSTODY_A wallet; 502 when the vendor fails. ADMINs of the customer's workspace and SUPER_ADMINs.",
  roles: ADMIN_ROLES,
  params: IdParams,
  response: { 200: ok(CustodyAWalletBalance) },
  errors: [404, 502],
});

const selfService = resource({ tags: ['customer self-service'] });

export const customerWalletNonce = selfService('POST /workspaces/:id/customers/auth/wallet-nonce', {
  operationId: 'customerWalletNonce',
  summary: 'A nonce for linking a wallet (Sign-In with Ethereum)',
  description:
    'A single-use nonce bound to this customer and chain, valid SIWE_NONCE_TTL (10 minutes), with what the EIP-4361 message must ' +
    'hold: `{nonce, domain, uri, version, chainId, statement, issuedAt, expirationTime}`, and the ready-to-sign `message` when ' +
    '`walletAddress` is given. `chainId` defaults to the first configured EVM network. 400 `WALLET_ALREADY_LINKED` when the ' +
    `customer has a wallet. ${CUSTOMER_TOKEN}`,
  access: 'customer',
  params: WorkspaceRefParams,
  body: WalletLinkNonceBody,
  response: { 200: ok(WalletLinkNonce) },
  errors: [403, 503],
});

export const customerLinkWallet = selfService('POST /workspaces/:id/customers/auth/link-wallet', {
  operationId: 'customerLinkWallet',
  summary: "Link the customer's wallet with a signed EIP-4361 message",
  description:
    '`message` is the Sign-In with Ethereum message (for SIWE_DOMAIN, a configured chain, the nonce of wallet-nonce, unexpired), ' +
    '`signature` its signature by `walletAddress`, checked with viem so that ordinary accounts and smart-contract wallets ' +
    '(ERC-1271, ERC-6492) both work. 400 `VALIDATION_ERROR` naming the field; 400 `INVALID_CODE` for an unknown, used or expired ' +
    'nonce (a replay); 400 `WALLET_ALREADY_LINKED`; 409 when another customer of the workspace has the address; 503 when the chain ' +
    `cannot be asked about a contract wallet. ${CUSTOMER_TOKEN}`,
  access: 'customer',
  audit: WALLET_AUDIT.customerWalletLink,
  params: WorkspaceRefParams,
  body: LinkWalletBody,
  response: { 200: ok(CustomerWallet) },
  errors: [403, 409, 503],
});

export const customerWalletBalances = selfService('GET /workspaces/:id/customers/auth/wallet-balances', {
  operationId: 'customerWalletBalances',
  summary: "Balances of the customer's wallet",
  description:
    'Native and token balances of the linked wallet on every configured EVM network (exact decimal strings); a network or token ' +
    `that cannot be read is a \`warnings\` entry, never an error. 404 when the customer has no wallet. ${CUSTOMER_TOKEN}`,
  access: 'customer',
  params: WorkspaceRefParams,
  response: { 200: ok(WalletBalances) },
  errors: [403, 404],
});

const contracts = resource({ tags: ['contracts'] });

export const listContracts = contracts('GET /workspaces/:id/contracts', {
  operationId: 'listContracts',
  summary: "The workspace's escrow contracts",
  description:
    "The workspace's dedicated deployments (every status: pending, active, failed, deprecated) and the active shared escrows " +
    '(ESCROW_CONTRACTS, `isShared: true`). Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(ContractDeploymentList) },
  errors: [403, 404],
});

export const getContractForNetwork = contracts('GET /workspaces/:id/contracts/:network', {
  operationId: 'getContractForNetwork',
  summary: 'The escrow new transactions use on a network',
  description:
    "The workspace's active dedicated escrow on the network, else the network's shared one; 404 when neither exists. " +
    'Members and SUPER_ADMINs.',
  params: ContractNetworkParams,
  response: { 200: ok(ContractForNetwork) },
  errors: [403, 404],
});

export const deployContract = contracts('POST /workspaces/:id/contracts/:network', {
  operationId: 'deployContract',
  summary: 'Deploy a dedicated escrow contract',
  description:
    "Deploys the Holdfast escrow on the network's RPC (CHAIN_RPC_URLS), paid by CONTRACT_DEPLOYER_PRIVATE_KEY, and waits until it " +
    'is mined (up to a minute). From then on it is the contract new transactions of the workspace use there, and the chain-indexer ' +
    'follows it from its deployment block. 409 when the workspace has a pending or active one there; 503 `CONTRACT_NOT_AVAILABLE` ' +
    'with `details.reason` (`no_rpc`, `no_deployer_key`, `rpc_unreachable`, `chain_mismatch`, `deployment_failed`). At most ' +
    'CONTRACT_DEPLOYMENTS_PER_DAY (5) deployments per workspace in any 24 hours, failed ones included: more is 429 ' +
    '`DEPLOYMENT_LIMIT_EXCEEDED` with `Retry-After`. ADMINs of the workspace and SUPER_ADMINs.',
  ...ADMIN_CHANGE,
  audit: WALLET_AUDIT.contractDeploy,
  params: ContractNetworkParams,
  response: { 201: ok(ContractDeployed) },
  errors: [404, 409, 429, 503],
});

export const deprecateContract = contracts('POST /workspaces/:id/contracts/deployments/:deploymentId/deprecate', {
  operationId: 'deprecateContract',
  summary: 'Deprecate a dedicated escrow contract',
  description:
    'No longer used for new transactions (the shared escrow is, until another dedicated one is deployed). Escrows it holds are ' +
    'unaffected: they are released, refunded or rescinded in it, and the chain-indexer keeps following it. Deprecating again ' +
    'answers the deployment as it is; a pending or failed one is 409 `INVALID_STATE_TRANSITION`; a shared one or another ' +
    "workspace's is 404. ADMINs of the workspace and SUPER_ADMINs.",
  ...ADMIN_CHANGE,
  audit: WALLET_AUDIT.contractDeprecate,
  params: ContractDeploymentParams,
  response: { 200: ok(ContractDeployment) },
  errors: [404, 409],
});

const externalWalletConfigs = resource({ tags: ['external wallet configs'] });

export const listExternalWalletConfigs = externalWalletConfigs('GET /workspaces/:id/external-wallet-configs', {
  operationId: 'listExternalWalletConfigs',
  summary: "A workspace's external wallet configs",
  description: `\`{configs}\`, one per configured type. ${BARE_ANSWER} ${EXTERNAL_CONFIG_CALLERS}`,
  params: IdParams,
  response: { 200: ExternalWalletConfigList },
  errors: [403, 404],
});

export const getExternalWalletConfig = externalWalletConfigs('GET /workspaces/:id/external-wallet-configs/:type', {
  operationId: 'getExternalWalletConfig',
  summary: 'One external wallet config',
  description: `404 when the type is not configured; 400 for a type that does not exist. ${BARE_ANSWER} ${EXTERNAL_CONFIG_CALLERS}`,
  params: ExternalWalletConfigParams,
  response: { 200: ExternalWalletConfig },
  errors: [403, 404],
});

export const upsertExternalWalletConfig = externalWalletConfigs('PUT /workspaces/:id/external-wallet-configs/:type', {
  operationId: 'upsertExternalWalletConfig',
  summary: 'Create or update an external wallet config',
  description:
    'Creates the config (`isEnabled` false and empty lists unless given) or updates the fields given; `config` replaces the whole ' +
    "object. The RPC provider key is a client-side key the customer's browser needs, so it is returned; it is encrypted at rest " +
    `and audited as \`[redacted]\`. ${BARE_ANSWER} ${EXTERNAL_CONFIG_CALLERS}`,
  audit: WALLET_AUDIT.externalConfigUpsert,
  params: ExternalWalletConfigParams,
  body: UpsertExternalWalletConfigBody,
  response: { 200: ExternalWalletConfig },
  errors: [403, 404],
});

export const deleteExternalWalletConfig = externalWalletConfigs('DELETE /workspaces/:id/external-wallet-configs/:type', {
  operationId: 'deleteExternalWalletConfig',
  summary: 'Delete an external wallet config',
  description: `\`{message}\`; 404 when the type is not configured. ${BARE_ANSWER} ${EXTERNAL_CONFIG_CALLERS}`,
  audit: WALLET_AUDIT.externalConfigDelete,
  params: ExternalWalletConfigParams,
  response: { 200: ExternalWalletConfigDeleted },
  errors: [403, 404],
});

export const listWalletAccounts = wallets('GET /workspaces/:id/wallet-accounts', {
  operationId: 'listWalletAccounts',
  summary: "The workspace's wallet accounts",
  description:
    "`{accounts, message}` from the workspace's provider (`walletProvider`: PLATFORM, the built-in HD wallet, or a custody vendor). " +
    '400 `WALLET_PROVIDER_NOT_CONFIGURED` without a provider (or without an active config for a custody provider); 502 ' +
    '`WALLET_PROVIDER_ERROR` when the vendor fails. Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(WalletAccounts) },
  errors: [403, 404, 502],
});

export const createWalletAccounts = wallets('POST /workspaces/:id/wallet-accounts', {
  operationId: 'createWalletAccounts',
  summary: 'Create wallet accounts',
  description:
    'One account per `{addressFormat, curve, path}`: ADDRESS_FORMAT_ETHEREUM on CURVE_SECP256K1 (any BIP-32 path), ' +
    'ADDRESS_FORMAT_SOLANA on CURVE_ED25519 (every level hardened). PLATFORM and CUSTODY_C derive exactly the path asked for ' +
    '(asking again answers the same account); CUSTODY_A, B and D choose their own (`path: null` when undisclosed). Answers the ' +
    'accounts created. 400 for a combination that cannot be derived or no provider; 502 when the vendor fails. ADMINs of the ' +
    'workspace and SUPER_ADMINs.',
  ...ADMIN_CHANGE,
  audit: WALLET_AUDIT.accountsCreate,
  params: IdParams,
  body: CreateWalletAccountsBody,
  response: { 200: ok(WalletAccounts) },
  errors: [404, 502],
});

export const getWalletBalances = wallets('GET /workspaces/:id/wallet-balances', {
  operationId: 'getWalletBalances',
  summary: "Balances of the workspace's accounts",
  description:
    'Native and token balances of every account on every configured network of its kind (EVM: CHAIN_RPC_URLS, Solana: ' +
    'SOLANA_RPC_URLS; tokens: TOKEN_CONTRACTS), exact decimal strings. A network, token or vendor that fails becomes an entry ' +
    'of `warnings` (`RPC_UNAVAILABLE`, `RPC_TIMEOUT`, `MALFORMED_RESPONSE`, `TOKEN_UNAVAILABLE`, `PROVIDER_ERROR`), never an ' +
    'error. 400 without a wallet provider. Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(WalletBalances) },
  errors: [403, 404],
});

import { Type } from '@sinclair/typebox';
import { WebhookDeleted, WorkspaceDeliveryParams, WorkspaceWebhookParams } from '../../commands/forwarding.js';
import {
  CreateWebhookBody,
  DeliveryLogsQuery,
  ListWebhooksQuery,
  ReplayResult,
  ReplayWebhookBody,
  UpdateWebhookBody,
  WebhookDelivery,
  WebhookDeliveryLog,
  WebhookDeliveryLogList,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from '../../commands/webhooks.js';
import { NoContent, SuccessEnvelope as ok } from '../../common/envelope.js';
import { EventTypeInfo } from '../../events/domain-events.js';
import { IdParams, MessageResult } from '../common.js';
import {
  CreateCustomerBody,
  CreateGlobalCustomerBody,
  CustomerListQuery,
  CustomerLoginBody,
  CustomerMe,
  CustomerRecord,
  CustomerRefreshBody,
  CustomerRegisterBody,
  CustomerSession,
  UpdateCustomerBody,
  WorkspaceCustomerListQuery,
  WorkspaceRefParams,
} from '../customers.js';
import {
  CreateWorkspaceIntegrationBody,
  IntegrationCatalogEntry,
  IntegrationValidation,
  UpdateWorkspaceIntegrationBody,
  ValidateIntegrationBody,
  WorkspaceIntegration,
  WorkspaceIntegrationParams,
  WorkspaceIntegrationStatus,
} from '../integrations.js';
import {
  Notification,
  NotificationCountResult,
  NotificationList,
  NotificationListQuery,
  NotificationPreferences,
  UpdateNotificationPreferencesBody,
} from '../notifications.js';
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
import { CUSTOMER_BEARER, endpoint, INTERNAL_KEY, publicEndpoint } from './define.js';

// webhooks: `/workspaces/{id}/webhooks`, the spec's eleven operations and, beyond it, resending one
// delivery and replaying a time range; all forwarded to the webhook-dispatcher (the event types excepted).

const WEBHOOK_CALLERS =
  'Members of the workspace and SUPER_ADMINs. 503 `UPSTREAM_UNAVAILABLE` (with `Retry-After`) when the webhook dispatcher does not answer.';

export const listWebhookEventTypes = endpoint({
  method: 'GET',
  path: '/workspaces/:id/webhooks/events/types',
  operationId: 'listWebhookEventTypes',
  tags: ['webhooks'],
  summary: 'Event types a webhook may subscribe to',
  description: 'The current list; new types may be added (delivered only to subscriptions that name them). Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(Type.Array(EventTypeInfo)) },
  errors: [401, 403, 404],
});

export const listWebhooks = endpoint({
  method: 'GET',
  path: '/workspaces/:id/webhooks',
  operationId: 'listWebhooks',
  tags: ['webhooks'],
  summary: 'List webhook subscriptions',
  description: `The workspace's subscriptions, newest first; \`isActive\` and \`eventType\` filter them (an unknown \`eventType\` is 400 \`INVALID_EVENT_TYPES\`). They receive the events of all of the workspace's platforms. Secrets are never listed. ${WEBHOOK_CALLERS}`,
  params: IdParams,
  querystring: ListWebhooksQuery,
  response: { 200: ok(Type.Array(WebhookSubscription)) },
  errors: [401, 403, 404, 503],
});

export const createWebhook = endpoint({
  method: 'POST',
  path: '/workspaces/:id/webhooks',
  operationId: 'createWebhook',
  tags: ['webhooks'],
  summary: 'Create a webhook subscription',
  description: `Answers the subscription with its \`secret\` (\`whsec_…\`), shown only here and by rotate-secret. Unknown event types: 400 \`INVALID_EVENT_TYPES\`; outside local, URLs on loopback, private or link-local addresses: 400 \`VALIDATION_ERROR\`. At most 100 per workspace (409). Receiving: docs/webhooks.md. ${WEBHOOK_CALLERS}`,
  params: IdParams,
  body: CreateWebhookBody,
  response: { 201: ok(WebhookSubscriptionWithSecret) },
  errors: [401, 403, 404, 409, 503],
});

export const getWebhook = endpoint({
  method: 'GET',
  path: '/workspaces/:id/webhooks/:webhookId',
  operationId: 'getWebhook',
  tags: ['webhooks'],
  summary: 'Read a webhook subscription',
  description: `With its circuit breaker and rotation state. Another owner's subscription answers 404. ${WEBHOOK_CALLERS}`,
  params: WorkspaceWebhookParams,
  response: { 200: ok(WebhookSubscription) },
  errors: [401, 403, 404, 503],
});

export const updateWebhook = endpoint({
  method: 'PATCH',
  path: '/workspaces/:id/webhooks/:webhookId',
  operationId: 'updateWebhook',
  tags: ['webhooks'],
  summary: 'Change a webhook subscription',
  description: `Changes the fields sent; \`metadata\` is replaced whole. \`isActive: false\` pauses deliveries; \`true\` resumes them (also after a receiver's 410). ${WEBHOOK_CALLERS}`,
  params: WorkspaceWebhookParams,
  body: UpdateWebhookBody,
  response: { 200: ok(WebhookSubscription) },
  errors: [401, 403, 404, 503],
});

export const deleteWebhook = endpoint({
  method: 'DELETE',
  path: '/workspaces/:id/webhooks/:webhookId',
  operationId: 'deleteWebhook',
  tags: ['webhooks'],
  summary: 'Delete a webhook subscription',
  description: `Deletes the subscription, its pending deliveries and its logs; \`data.message\` says so. ${WEBHOOK_CALLERS}`,
  params: WorkspaceWebhookParams,
  response: { 200: ok(WebhookDeleted) },
  errors: [401, 403, 404, 503],
});

export const listWebhookDeliveryLogs = endpoint({
  method: 'GET',
  path: '/workspaces/:id/webhooks/:webhookId/delivery-logs',
  operationId: 'listWebhookDeliveryLogs',
  tags: ['webhooks'],
  summary: 'Delivery attempts of a subscription',
  description: `Every attempt, newest first, as \`{logs, total}\`: \`limit\` 1 to 100 (default 20), \`offset\`, \`successOnly\` or \`failuresOnly\` (not both). Kept 30 days. ${WEBHOOK_CALLERS}`,
  params: WorkspaceWebhookParams,
  querystring: DeliveryLogsQuery,
  response: { 200: ok(WebhookDeliveryLogList) },
  errors: [401, 403, 404, 503],
});

export const rotateWebhookSecret = endpoint({
  method: 'POST',
  path: '/workspaces/:id/webhooks/:webhookId/rotate-secret',
  operationId: 'rotateWebhookSecret',
  tags: ['webhooks'],
  summary: "Rotate a subscription's secret",
  description: `Answers the new \`secret\` (shown once). Until complete-rotation, deliveries carry a signature with the new and one with the previous secret. ${WEBHOOK_CALLERS}`,
  params: WorkspaceWebhookParams,
  response: { 200: ok(WebhookSubscriptionWithSecret) },
  errors: [401, 403, 404, 503],
});

export const completeWebhookRotation = endpoint({
  method: 'POST',
  path: '/workspaces/:id/webhooks/:webhookId/complete-rotation',
  operationId: 'completeWebhookRotation',
  tags: ['webhooks'],
  summary: 'Retire the previous secret',
  description: `Deliveries are signed with the newest secret only. Without a rotation in progress: 400 \`NO_ROTATION_IN_PROGRESS\`. ${WEBHOOK_CALLERS}`,
  params: WorkspaceWebhookParams,
  response: { 200: ok(WebhookSubscription) },
  errors: [401, 403, 404, 503],
});

export const resetWebhookCircuitBreaker = endpoint({
  method: 'POST',
  path: '/workspaces/:id/webhooks/:webhookId/reset-circuit-breaker',
  operationId: 'resetWebhookCircuitBreaker',
  tags: ['webhooks'],
  summary: "Close a subscription's circuit",
  description: `Forces the circuit breaker CLOSED (failure count 0, any \`Retry-After\` pause lifted); queued deliveries go out. ${WEBHOOK_CALLERS}`,
  params: WorkspaceWebhookParams,
  response: { 200: ok(WebhookSubscription) },
  errors: [401, 403, 404, 503],
});

export const testWebhook = endpoint({
  method: 'POST',
  path: '/workspaces/:id/webhooks/:webhookId/test',
  operationId: 'testWebhook',
  tags: ['webhooks'],
  summary: 'Send a test delivery',
  description: `Sends one signed \`webhook.test\` delivery now, waits for the receiver (up to 30 s) and answers the attempt's log entry; a failing receiver is a 200 with \`success: false\`. Not retried; works on an inactive subscription or an open circuit. ${WEBHOOK_CALLERS}`,
  params: WorkspaceWebhookParams,
  response: { 200: ok(WebhookDeliveryLog) },
  errors: [401, 403, 404, 503],
});

export const resendWebhookDelivery = endpoint({
  method: 'POST',
  path: '/workspaces/:id/webhooks/:webhookId/deliveries/:deliveryId/resend',
  operationId: 'resendWebhookDelivery',
  tags: ['webhooks'],
  summary: 'Resend one delivery',
  description: `Beyond the spec. Queues the delivery (a \`deliveryId\` from the delivery logs) for an attempt now, with a fresh retry schedule and the same \`X-Webhook-Delivery\`, so a receiver that already processed it drops it. ${WEBHOOK_CALLERS}`,
  params: WorkspaceDeliveryParams,
  response: { 200: ok(WebhookDelivery) },
  errors: [401, 403, 404, 503],
});

export const replayWebhookEvents = endpoint({
  method: 'POST',
  path: '/workspaces/:id/webhooks/:webhookId/replay',
  operationId: 'replayWebhookEvents',
  tags: ['webhooks'],
  summary: 'Replay a time range of events',
  description: `Beyond the spec. Queues the events that happened in \`[from, to)\` and that the subscription matches now: a new delivery for an event it never had one for, its existing delivery again otherwise (same delivery id; succeeded ones too unless \`onlyFailed\`). At most 5,000 events per call; \`resumeFrom\` says where to continue. Events are kept 30 days. ${WEBHOOK_CALLERS}`,
  params: WorkspaceWebhookParams,
  body: ReplayWebhookBody,
  response: { 200: ok(ReplayResult) },
  errors: [401, 403, 404, 503],
});

// customers: a workspace's customers for its administrators (`/workspaces/{id}/customers`,
// `/customers[/{id}]`), and the customers' own self-service routes (`/workspaces/{id}/customers/auth/*`,
// `{id}` the workspace id or slug), the wallet ones among them.

const CUSTOMER_ADMINS = 'ADMINs of the workspace and SUPER_ADMINs; other roles get 403.';
const CUSTOMER_SEARCH = '`search` matches part of the e-mail, first, last or full name; `status` filters. Newest first.';
const CUSTOMER_TOKEN =
  'Needs the customer access token of this workspace (`Authorization: Bearer <accessToken>` from register, login or refresh): a ' +
  "token of another workspace's customer is 403, a user's token 401.";

export const listWorkspaceCustomers = endpoint({
  method: 'GET',
  path: '/workspaces/:id/customers',
  operationId: 'listWorkspaceCustomers',
  tags: ['customers'],
  summary: "List a workspace's customers",
  description: `${CUSTOMER_SEARCH} ${CUSTOMER_ADMINS}`,
  params: IdParams,
  querystring: WorkspaceCustomerListQuery,
  response: { 200: ok(Type.Array(CustomerRecord)) },
  errors: [401, 403, 404],
});

export const createWorkspaceCustomer = endpoint({
  method: 'POST',
  path: '/workspaces/:id/customers',
  operationId: 'createWorkspaceCustomer',
  tags: ['customers'],
  summary: 'Create a customer of the workspace',
  description:
    'The e-mail address is unique within the workspace (409). A customer created here has no password: it cannot log in ' +
    '(self-service accounts are made by POST .../customers/auth/register). `status` defaults to `active`. ' +
    CUSTOMER_ADMINS,
  params: IdParams,
  body: CreateCustomerBody,
  response: { 201: ok(CustomerRecord) },
  errors: [401, 403, 404, 409],
});

export const listCustomers = endpoint({
  method: 'GET',
  path: '/customers',
  operationId: 'listCustomers',
  tags: ['customers'],
  summary: 'List customers',
  description:
    `A SUPER_ADMIN lists every workspace's customers (or one's, with \`workspaceId\`); an ADMIN its workspace's (another ` +
    `\`workspaceId\` is 403). ${CUSTOMER_SEARCH}`,
  querystring: CustomerListQuery,
  response: { 200: ok(Type.Array(CustomerRecord)) },
  errors: [401, 403],
});

export const createCustomer = endpoint({
  method: 'POST',
  path: '/customers',
  operationId: 'createCustomer',
  tags: ['customers'],
  summary: 'Create a customer',
  description:
    'As POST /workspaces/{id}/customers, with the workspace in the body: a workspace that does not exist is 400, another ' +
    "tenant's 403; a taken e-mail or externalId in the workspace 409.",
  body: CreateGlobalCustomerBody,
  response: { 201: ok(CustomerRecord) },
  errors: [401, 403, 409],
});

export const getCustomer = endpoint({
  method: 'GET',
  path: '/customers/:id',
  operationId: 'getCustomer',
  tags: ['customers'],
  summary: 'Get a customer',
  description: `With its wallet (\`walletAddress\`, \`walletLinkedAt\`) when it linked or was given one. Another tenant's customer is 404. ${CUSTOMER_ADMINS}`,
  params: IdParams,
  response: { 200: ok(CustomerRecord) },
  errors: [401, 403, 404],
});

export const updateCustomer = endpoint({
  method: 'PUT',
  path: '/customers/:id',
  operationId: 'updateCustomer',
  tags: ['customers'],
  summary: 'Update a customer',
  description:
    'Any field of the creation except the workspace; `null` clears an optional one. A customer set to `inactive`, `suspended` ' +
    `or \`pending\` is signed out at once (sessions revoked, access tokens refused). 409 for a taken e-mail or externalId. ${CUSTOMER_ADMINS}`,
  params: IdParams,
  body: UpdateCustomerBody,
  response: { 200: ok(CustomerRecord) },
  errors: [401, 403, 404, 409],
});

export const deleteCustomer = endpoint({
  method: 'DELETE',
  path: '/customers/:id',
  operationId: 'deleteCustomer',
  tags: ['customers'],
  summary: 'Delete a customer (irreversible)',
  description:
    'Deletes the customer with its sessions, its wallet link and pending wallet-link nonces (a CUSTODY_A wallet stays at the ' +
    `vendor). The audit entries are kept. Answers \`{message}\`. ${CUSTOMER_ADMINS}`,
  params: IdParams,
  response: { 200: ok(MessageResult) },
  errors: [401, 403, 404],
});

export const registerCustomer = publicEndpoint({
  method: 'POST',
  path: '/workspaces/:id/customers/auth/register',
  operationId: 'registerCustomer',
  tags: ['customer self-service'],
  summary: 'Register as a customer of the workspace',
  description:
    'Creates the customer with the same password policy as users (12 to 128 characters with an upper-case letter, a lower-case ' +
    'letter, a number and a special character) and signs it in: the answer is the customer session. 409 when the e-mail ' +
    'address is taken in the workspace; 404 for an unknown workspace; 403 when the workspace is inactive or suspended.',
  params: WorkspaceRefParams,
  body: CustomerRegisterBody,
  response: { 201: ok(CustomerSession) },
  errors: [403, 404, 409],
});

export const loginCustomer = publicEndpoint({
  method: 'POST',
  path: '/workspaces/:id/customers/auth/login',
  operationId: 'loginCustomer',
  tags: ['customer self-service'],
  summary: 'Log in as a customer',
  description:
    'The e-mail is compared in lower case. Answers an access token (a customer JWT, 3600 s, valid only on the customer routes of ' +
    'this workspace) and a refresh token (single use). 401 `INVALID_CREDENTIALS` for a wrong e-mail or password (also for a ' +
    'customer an administrator created, which has no password); 401 for an account that is not active; 429 with a doubling back-off ' +
    'after 5 failures within 15 minutes for this account from this client address (other addresses are not affected).',
  params: WorkspaceRefParams,
  body: CustomerLoginBody,
  response: { 200: ok(CustomerSession) },
  errors: [401, 403, 404],
});

export const refreshCustomer = publicEndpoint({
  method: 'POST',
  path: '/workspaces/:id/customers/auth/refresh',
  operationId: 'refreshCustomer',
  tags: ['customer self-service'],
  summary: 'Exchange a customer refresh token for new tokens',
  description:
    'The refresh token is single use: the answer holds a new one. Presenting an already used one revokes the whole session and ' +
    "answers 401; so do an expired one (`TOKEN_EXPIRED`), an unknown one and another workspace's.",
  params: WorkspaceRefParams,
  body: CustomerRefreshBody,
  response: { 200: ok(CustomerSession) },
  errors: [401, 404],
});

export const logoutCustomer = publicEndpoint({
  method: 'POST',
  path: '/workspaces/:id/customers/auth/logout',
  operationId: 'logoutCustomer',
  tags: ['customer self-service'],
  summary: 'Log out a customer: the refresh token stops working at once',
  description:
    'Ends the session of the refresh token; access tokens already issued stay valid until they expire. Answers 200 for an ' +
    'unknown or already ended token too.',
  params: WorkspaceRefParams,
  body: CustomerRefreshBody,
  response: { 200: ok(MessageResult) },
  errors: [404],
});

export const customerMe = endpoint({
  method: 'GET',
  path: '/workspaces/:id/customers/auth/me',
  operationId: 'customerMe',
  tags: ['customer self-service'],
  summary: 'The customer behind the token',
  description: `\`{id, email, firstName, lastName, walletAddress, walletLinkedAt, emailVerified, status}\`. ${CUSTOMER_TOKEN}`,
  security: CUSTOMER_BEARER,
  params: WorkspaceRefParams,
  response: { 200: ok(CustomerMe) },
  errors: [401, 403],
});

// wallets: custody vendor credentials per workspace (`/wallet-provider-configs`), a customer's
// CUSTODY_A wallet and the customer's own wallet linking, the escrow contracts, the external wallet
// connectors and the workspace's own accounts.

const WALLET_CONFIG_SECRECY =
  '`config` (the vendor credentials, one shape per providerType: docs/wallets.md) is accepted on write, sealed with AES-256-GCM and never ' +
  'returned, logged or audited (audit entries show `[redacted]`).';
const EXTERNAL_CONFIG_CALLERS = 'Members of the workspace (any role) and SUPER_ADMINs.';
const BARE_ANSWER = "The answer is the bare object (the spec's shape), not the envelope; errors use the error envelope.";

export const listWalletProviderConfigs = endpoint({
  method: 'GET',
  path: '/wallet-provider-configs',
  operationId: 'listWalletProviderConfigs',
  tags: ['wallet provider configs'],
  summary: 'List wallet provider configs',
  description:
    "An ADMIN sees its workspace's configs and the global ones; a SUPER_ADMIN every config. Newest first. The answer is the spec's " +
    "bare page `{data, total, page, limit, totalPages}`, not the envelope. A `workspaceId` outside the caller's workspaces is 403.",
  querystring: ListWalletProviderConfigsQuery,
  response: { 200: WalletProviderConfigList },
  errors: [401, 403],
});

export const createWalletProviderConfig = endpoint({
  method: 'POST',
  path: '/wallet-provider-configs',
  operationId: 'createWalletProviderConfig',
  tags: ['wallet provider configs'],
  summary: 'Create a wallet provider config',
  description:
    `${WALLET_CONFIG_SECRECY} Global configs cannot be created (\`isGlobal: true\` is refused). \`isDefault: true\` takes the default flag from the ` +
    "workspace's previous default. A `config` that does not fit its providerType is 400, naming each field (never its value); a " +
    "workspace that does not exist is 400; another tenant's workspace is 403.",
  body: CreateWalletProviderConfigBody,
  response: { 201: ok(WalletProviderConfig) },
  errors: [401, 403],
});

export const walletProviderConfigStatus = endpoint({
  method: 'GET',
  path: '/wallet-provider-configs/status',
  operationId: 'walletProviderConfigStatus',
  tags: ['wallet provider configs'],
  summary: 'Every config and its version (service to service)',
  description:
    'For other Holdfast processes: needs `X-Internal-API-Key` (INTERNAL_API_KEY; no bearer token). Each config has an integer ' +
    '`version` that rises on every change, so a cache can refresh what moved. Without INTERNAL_API_KEY configured every call is 401.',
  security: INTERNAL_KEY,
  querystring: WalletProviderStatusQuery,
  response: { 200: ok(WalletProviderStatus) },
  errors: [401],
});

export const checkDuplicateWalletProviderConfig = endpoint({
  method: 'GET',
  path: '/wallet-provider-configs/check-duplicate',
  operationId: 'checkDuplicateWalletProviderConfig',
  tags: ['wallet provider configs'],
  summary: 'Is there already a config of this type in the scope?',
  description:
    'The scope is the workspace (`workspaceId`) or, without it, the global configs; `excludeId` ignores the config being edited. ' +
    'Advisory: creating a second config of a type is allowed.',
  querystring: CheckDuplicateQuery,
  response: { 200: ok(DuplicateCheckResult) },
  errors: [401, 403],
});

export const getWalletProviderConfig = endpoint({
  method: 'GET',
  path: '/wallet-provider-configs/:id',
  operationId: 'getWalletProviderConfig',
  tags: ['wallet provider configs'],
  summary: 'Get a wallet provider config',
  description: "Without `config`. Another tenant's config is 404.",
  params: WalletProviderConfigParams,
  response: { 200: ok(WalletProviderConfig) },
  errors: [401, 403, 404],
});

export const updateWalletProviderConfig = endpoint({
  method: 'PATCH',
  path: '/wallet-provider-configs/:id',
  operationId: 'updateWalletProviderConfig',
  tags: ['wallet provider configs'],
  summary: 'Update a wallet provider config',
  description:
    `${WALLET_CONFIG_SECRECY} The given \`config\` fields are merged over the stored ones and the whole is checked. Deactivating a config takes its ` +
    'default flag; an inactive config cannot be made default (400). Global configs are changed by SUPER_ADMINs only (403).',
  params: WalletProviderConfigParams,
  body: UpdateWalletProviderConfigBody,
  response: { 200: ok(WalletProviderConfig) },
  errors: [401, 403, 404],
});

export const deleteWalletProviderConfig = endpoint({
  method: 'DELETE',
  path: '/wallet-provider-configs/:id',
  operationId: 'deleteWalletProviderConfig',
  tags: ['wallet provider configs'],
  summary: 'Delete a wallet provider config',
  description: 'The sealed credentials go with it. Global configs are deleted by SUPER_ADMINs only (403).',
  params: WalletProviderConfigParams,
  response: { 204: NoContent },
  errors: [401, 403, 404],
});

export const testWalletProviderConnection = endpoint({
  method: 'POST',
  path: '/wallet-provider-configs/:id/test-connection',
  operationId: 'testWalletProviderConnection',
  tags: ['wallet provider configs'],
  summary: "Test the vendor's answer to the stored credentials",
  description:
    'Calls the vendor with the stored credentials. A vendor that refuses, times out or answers nonsense is `success: false` with ' +
    '`details.reason` (`unauthorized`, `timeout`, `unreachable`, `address_refused`, `malformed_response`, `vendor_error`; `undecryptable` when the ' +
    'credentials no longer open under DATA_ENCRYPTION_KEY), never an error. Nothing is changed.',
  params: WalletProviderConfigParams,
  response: { 200: ok(ConnectionTestResult) },
  errors: [401, 403, 404],
});

export const setDefaultWalletProviderConfig = endpoint({
  method: 'POST',
  path: '/wallet-provider-configs/:id/set-default',
  operationId: 'setDefaultWalletProviderConfig',
  tags: ['wallet provider configs'],
  summary: 'Make a config the default of its scope',
  description:
    "The default of its workspace (or, for a global config, of the global configs); the scope's previous default loses the flag " +
    '(named in the audit entry). An inactive config is 400. Answers the config.',
  params: WalletProviderConfigParams,
  response: { 200: ok(WalletProviderConfig) },
  errors: [401, 403, 404],
});

export const getCustodyAWallet = endpoint({
  method: 'GET',
  path: '/customers/:id/custody-a-wallet',
  operationId: 'getCustodyAWallet',
  tags: ['wallets'],
  summary: "A customer's CUSTODY_A wallet",
  description:
    '`{hasWallet, walletId, walletAddress, walletLinkedAt}` (`hasWallet: false` when the customer has none, or linked its own ' +
    "wallet instead). Members of the customer's workspace and SUPER_ADMINs; another tenant's customer is 404.",
  params: IdParams,
  response: { 200: ok(CustodyAWalletStatus) },
  errors: [401, 403, 404],
});

export const createCustodyAWallet = endpoint({
  method: 'POST',
  path: '/customers/:id/custody-a-wallet',
  operationId: 'createCustodyAWallet',
  tags: ['wallets'],
  summary: 'Create a CUSTODY_A wallet for a customer',
  description:
    "Creates the wallet at CUSTODY_A (a retry sends the vendor the same idempotency key) and makes it the customer's wallet. " +
    '`network` defaults to BASE_SEPOLIA (BASE in production). 400 `WALLET_PROVIDER_NOT_CONFIGURED` without an active CUSTODY_A ' +
    'config for the workspace; 400 `WALLET_ALREADY_LINKED` when the customer has a wallet; 502 when the vendor fails (nothing ' +
    "is stored). ADMINs of the customer's workspace and SUPER_ADMINs.",
  params: IdParams,
  body: CreateCustodyAWalletBody,
  response: { 201: ok(CustodyAWalletCreated) },
  errors: [401, 403, 404, 409, 502],
});

export const getCustodyAWalletBalance = endpoint({
  method: 'GET',
  path: '/customers/:id/custody-a-wallet/balance',
  operationId: 'getCustodyAWalletBalance',
  tags: ['wallets'],
  summary: "A customer's CUSTODY_A wallet balance",
  description:
    "CUSTODY_A's own report: `{walletId, walletAddress, blockchain, network, nativeBalance, nativeSymbol, tokens}`. 404 when the " +
    "customer has no CUSTODY_A wallet; 502 when the vendor fails. ADMINs of the customer's workspace and SUPER_ADMINs.",
  params: IdParams,
  response: { 200: ok(CustodyAWalletBalance) },
  errors: [401, 403, 404, 502],
});

export const customerWalletNonce = endpoint({
  method: 'POST',
  path: '/workspaces/:id/customers/auth/wallet-nonce',
  operationId: 'customerWalletNonce',
  tags: ['customer self-service'],
  summary: 'A nonce for linking a wallet (Sign-In with Ethereum)',
  description:
    'A single-use nonce bound to this customer and chain, valid SIWE_NONCE_TTL (10 minutes), with what the EIP-4361 message must ' +
    'hold: `{nonce, domain, uri, version, chainId, statement, issuedAt, expirationTime}`, and the ready-to-sign `message` when ' +
    '`walletAddress` is given. `chainId` defaults to the first configured EVM network. 400 `WALLET_ALREADY_LINKED` when the ' +
    `customer has a wallet. ${CUSTOMER_TOKEN}`,
  security: CUSTOMER_BEARER,
  params: WorkspaceRefParams,
  body: WalletLinkNonceBody,
  response: { 200: ok(WalletLinkNonce) },
  errors: [401, 403, 503],
});

export const customerLinkWallet = endpoint({
  method: 'POST',
  path: '/workspaces/:id/customers/auth/link-wallet',
  operationId: 'customerLinkWallet',
  tags: ['customer self-service'],
  summary: "Link the customer's wallet with a signed EIP-4361 message",
  description:
    '`message` is the Sign-In with Ethereum message (for SIWE_DOMAIN, a configured chain, the nonce of wallet-nonce, unexpired), ' +
    '`signature` its signature by `walletAddress`, checked with viem so that ordinary accounts and smart-contract wallets ' +
    '(ERC-1271, ERC-6492) both work. 400 `VALIDATION_ERROR` naming the field; 400 `INVALID_CODE` for an unknown, used or expired ' +
    'nonce (a replay); 400 `WALLET_ALREADY_LINKED`; 409 when another customer of the workspace has the address; 503 when the chain ' +
    `cannot be asked about a contract wallet. ${CUSTOMER_TOKEN}`,
  security: CUSTOMER_BEARER,
  params: WorkspaceRefParams,
  body: LinkWalletBody,
  response: { 200: ok(CustomerWallet) },
  errors: [401, 403, 409, 503],
});

export const customerWalletBalances = endpoint({
  method: 'GET',
  path: '/workspaces/:id/customers/auth/wallet-balances',
  operationId: 'customerWalletBalances',
  tags: ['customer self-service'],
  summary: "Balances of the customer's wallet",
  description:
    'Native and token balances of the linked wallet on every configured EVM network (exact decimal strings); a network or token ' +
    `that cannot be read is a \`warnings\` entry, never an error. 404 when the customer has no wallet. ${CUSTOMER_TOKEN}`,
  security: CUSTOMER_BEARER,
  params: WorkspaceRefParams,
  response: { 200: ok(WalletBalances) },
  errors: [401, 403, 404],
});

export const listContracts = endpoint({
  method: 'GET',
  path: '/workspaces/:id/contracts',
  operationId: 'listContracts',
  tags: ['contracts'],
  summary: "The workspace's escrow contracts",
  description:
    "The workspace's dedicated deployments (every status: pending, active, failed, deprecated) and the active shared escrows " +
    '(ESCROW_CONTRACTS, `isShared: true`). Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(ContractDeploymentList) },
  errors: [401, 403, 404],
});

export const getContractForNetwork = endpoint({
  method: 'GET',
  path: '/workspaces/:id/contracts/:network',
  operationId: 'getContractForNetwork',
  tags: ['contracts'],
  summary: 'The escrow new transactions use on a network',
  description:
    "The workspace's active dedicated escrow on the network, else the network's shared one; 404 when neither exists. " +
    'Members and SUPER_ADMINs.',
  params: ContractNetworkParams,
  response: { 200: ok(ContractForNetwork) },
  errors: [401, 403, 404],
});

export const deployContract = endpoint({
  method: 'POST',
  path: '/workspaces/:id/contracts/:network',
  operationId: 'deployContract',
  tags: ['contracts'],
  summary: 'Deploy a dedicated escrow contract',
  description:
    "Deploys the Holdfast escrow on the network's RPC (CHAIN_RPC_URLS), paid by CONTRACT_DEPLOYER_PRIVATE_KEY, and waits until it " +
    'is mined (up to a minute). From then on it is the contract new transactions of the workspace use there, and the chain-indexer ' +
    'follows it from its deployment block. 409 when the workspace has a pending or active one there; 503 `CONTRACT_NOT_AVAILABLE` ' +
    'with `details.reason` (`no_rpc`, `no_deployer_key`, `rpc_unreachable`, `chain_mismatch`, `deployment_failed`). At most ' +
    'CONTRACT_DEPLOYMENTS_PER_DAY (5) deployments per workspace in any 24 hours, failed ones included: more is 429 ' +
    '`DEPLOYMENT_LIMIT_EXCEEDED` with `Retry-After`. ADMINs of the workspace and SUPER_ADMINs.',
  params: ContractNetworkParams,
  response: { 201: ok(ContractDeployed) },
  errors: [401, 403, 404, 409, 429, 503],
});

export const deprecateContract = endpoint({
  method: 'POST',
  path: '/workspaces/:id/contracts/deployments/:deploymentId/deprecate',
  operationId: 'deprecateContract',
  tags: ['contracts'],
  summary: 'Deprecate a dedicated escrow contract',
  description:
    'No longer used for new transactions (the shared escrow is, until another dedicated one is deployed). Escrows it holds are ' +
    'unaffected: they are released, refunded or rescinded in it, and the chain-indexer keeps following it. Deprecating again ' +
    'answers the deployment as it is; a pending or failed one is 409 `INVALID_STATE_TRANSITION`; a shared one or another ' +
    "workspace's is 404. ADMINs of the workspace and SUPER_ADMINs.",
  params: ContractDeploymentParams,
  response: { 200: ok(ContractDeployment) },
  errors: [401, 403, 404, 409],
});

export const listExternalWalletConfigs = endpoint({
  method: 'GET',
  path: '/workspaces/:id/external-wallet-configs',
  operationId: 'listExternalWalletConfigs',
  tags: ['external wallet configs'],
  summary: "A workspace's external wallet configs",
  description: `\`{configs}\`, one per configured type. ${BARE_ANSWER} ${EXTERNAL_CONFIG_CALLERS}`,
  params: IdParams,
  response: { 200: ExternalWalletConfigList },
  errors: [401, 403, 404],
});

export const getExternalWalletConfig = endpoint({
  method: 'GET',
  path: '/workspaces/:id/external-wallet-configs/:type',
  operationId: 'getExternalWalletConfig',
  tags: ['external wallet configs'],
  summary: 'One external wallet config',
  description: `404 when the type is not configured; 400 for a type that does not exist. ${BARE_ANSWER} ${EXTERNAL_CONFIG_CALLERS}`,
  params: ExternalWalletConfigParams,
  response: { 200: ExternalWalletConfig },
  errors: [401, 403, 404],
});

export const upsertExternalWalletConfig = endpoint({
  method: 'PUT',
  path: '/workspaces/:id/external-wallet-configs/:type',
  operationId: 'upsertExternalWalletConfig',
  tags: ['external wallet configs'],
  summary: 'Create or update an external wallet config',
  description:
    'Creates the config (`isEnabled` false and empty lists unless given) or updates the fields given; `config` replaces the whole ' +
    "object. The RPC provider key is a client-side key the customer's browser needs, so it is returned; it is encrypted at rest " +
    `and audited as \`[redacted]\`. ${BARE_ANSWER} ${EXTERNAL_CONFIG_CALLERS}`,
  params: ExternalWalletConfigParams,
  body: UpsertExternalWalletConfigBody,
  response: { 200: ExternalWalletConfig },
  errors: [401, 403, 404],
});

export const deleteExternalWalletConfig = endpoint({
  method: 'DELETE',
  path: '/workspaces/:id/external-wallet-configs/:type',
  operationId: 'deleteExternalWalletConfig',
  tags: ['external wallet configs'],
  summary: 'Delete an external wallet config',
  description: `\`{message}\`; 404 when the type is not configured. ${BARE_ANSWER} ${EXTERNAL_CONFIG_CALLERS}`,
  params: ExternalWalletConfigParams,
  response: { 200: ExternalWalletConfigDeleted },
  errors: [401, 403, 404],
});

export const listWalletAccounts = endpoint({
  method: 'GET',
  path: '/workspaces/:id/wallet-accounts',
  operationId: 'listWalletAccounts',
  tags: ['wallets'],
  summary: "The workspace's wallet accounts",
  description:
    "`{accounts, message}` from the workspace's provider (`walletProvider`: PLATFORM, the built-in HD wallet, or a custody vendor). " +
    '400 `WALLET_PROVIDER_NOT_CONFIGURED` without a provider (or without an active config for a custody provider); 502 ' +
    '`WALLET_PROVIDER_ERROR` when the vendor fails. Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(WalletAccounts) },
  errors: [401, 403, 404, 502],
});

export const createWalletAccounts = endpoint({
  method: 'POST',
  path: '/workspaces/:id/wallet-accounts',
  operationId: 'createWalletAccounts',
  tags: ['wallets'],
  summary: 'Create wallet accounts',
  description:
    'One account per `{addressFormat, curve, path}`: ADDRESS_FORMAT_ETHEREUM on CURVE_SECP256K1 (any BIP-32 path), ' +
    'ADDRESS_FORMAT_SOLANA on CURVE_ED25519 (every level hardened). PLATFORM and CUSTODY_C derive exactly the path asked for ' +
    '(asking again answers the same account); CUSTODY_A, B and D choose their own (`path: null` when undisclosed). Answers the ' +
    'accounts created. 400 for a combination that cannot be derived or no provider; 502 when the vendor fails. ADMINs of the ' +
    'workspace and SUPER_ADMINs.',
  params: IdParams,
  body: CreateWalletAccountsBody,
  response: { 200: ok(WalletAccounts) },
  errors: [401, 403, 404, 502],
});

export const getWalletBalances = endpoint({
  method: 'GET',
  path: '/workspaces/:id/wallet-balances',
  operationId: 'getWalletBalances',
  tags: ['wallets'],
  summary: "Balances of the workspace's accounts",
  description:
    'Native and token balances of every account on every configured network of its kind (EVM: CHAIN_RPC_URLS, Solana: ' +
    'SOLANA_RPC_URLS; tokens: TOKEN_CONTRACTS), exact decimal strings. A network, token or vendor that fails becomes an entry ' +
    'of `warnings` (`RPC_UNAVAILABLE`, `RPC_TIMEOUT`, `MALFORMED_RESPONSE`, `TOKEN_UNAVAILABLE`, `PROVIDER_ERROR`), never an ' +
    'error. 400 without a wallet provider. Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(WalletBalances) },
  errors: [401, 403, 404],
});

// integrations: a workspace's integrations with outside providers (`/workspaces/{id}/integrations`)
// and the catalog of those it may set up.

const INTEGRATION_CALLERS = 'Members of the workspace (any role) and SUPER_ADMINs; anyone else gets 403.';
const INTEGRATION_SECRETS = 'Secret config fields are sealed at rest and read `********` in answers.';

export const listIntegrationCatalog = endpoint({
  method: 'GET',
  path: '/integrations',
  operationId: 'listIntegrationCatalog',
  tags: ['integrations'],
  summary: 'The integration catalog',
  description:
    'Every kind of integration a workspace may set up, with its stable `id`, its config schema (secret fields are `writeOnly`) ' +
    'and whether this deployment can set it up (`available`). Any signed-in user.',
  response: { 200: ok(Type.Array(IntegrationCatalogEntry)) },
  errors: [401],
});

export const listWorkspaceIntegrations = endpoint({
  method: 'GET',
  path: '/workspaces/:id/integrations',
  operationId: 'listWorkspaceIntegrations',
  tags: ['integrations'],
  summary: "The workspace's integrations",
  description: `Oldest first. ${INTEGRATION_CALLERS} ${INTEGRATION_SECRETS}`,
  params: IdParams,
  response: { 200: ok(Type.Array(WorkspaceIntegration)) },
  errors: [401, 403, 404],
});

export const createWorkspaceIntegration = endpoint({
  method: 'POST',
  path: '/workspaces/:id/integrations',
  operationId: 'createWorkspaceIntegration',
  tags: ['integrations'],
  summary: 'Set up an integration',
  description:
    'Saves `config` for the catalog kind `integrationId` once its fields pass the kind’s schema (400 names each bad field). ' +
    'A kind that calls a provider is saved `pending` (validate it, or use /with-config); the others are `active`. ' +
    `One integration per kind: a second answers 409. ${INTEGRATION_CALLERS} ${INTEGRATION_SECRETS}`,
  params: IdParams,
  body: CreateWorkspaceIntegrationBody,
  response: { 200: ok(WorkspaceIntegration) },
  errors: [401, 403, 404, 409],
});

export const validateWorkspaceIntegration = endpoint({
  method: 'POST',
  path: '/workspaces/:id/integrations/validate',
  operationId: 'validateWorkspaceIntegration',
  tags: ['integrations'],
  summary: 'Validate an integration config',
  description:
    'With `config`: checks it (the fields, then the provider for kinds that call one) and saves nothing. Without `config`: ' +
    're-checks the config the workspace saved for the kind and records the outcome on it (`status` becomes `active` or ' +
    '`error`). An invalid config is a 200 with `valid: false` and the bad fields. ' +
    INTEGRATION_CALLERS,
  params: IdParams,
  body: ValidateIntegrationBody,
  response: { 200: ok(IntegrationValidation) },
  errors: [401, 403, 404],
});

export const createValidatedWorkspaceIntegration = endpoint({
  method: 'POST',
  path: '/workspaces/:id/integrations/with-config',
  operationId: 'createValidatedWorkspaceIntegration',
  tags: ['integrations'],
  summary: 'Set up and validate an integration in one step',
  description:
    'Like POST /integrations, but the config is checked with its provider first and saved `active` only when it passes: ' +
    'a config the provider refuses answers 400 naming the fields, a provider without a usable answer 502 ' +
    `\`INTEGRATION_PROVIDER_ERROR\` (retry); neither saves anything. ${INTEGRATION_CALLERS} ${INTEGRATION_SECRETS}`,
  params: IdParams,
  body: CreateWorkspaceIntegrationBody,
  response: { 201: ok(WorkspaceIntegration) },
  errors: [401, 403, 404, 409, 502],
});

export const getWorkspaceIntegration = endpoint({
  method: 'GET',
  path: '/workspaces/:id/integrations/:integrationId',
  operationId: 'getWorkspaceIntegration',
  tags: ['integrations'],
  summary: 'Get an integration',
  description: `\`integrationId\` is the catalog kind (or the integration's own \`id\`). ${INTEGRATION_CALLERS} ${INTEGRATION_SECRETS}`,
  params: WorkspaceIntegrationParams,
  response: { 200: ok(WorkspaceIntegration) },
  errors: [401, 403, 404],
});

export const updateWorkspaceIntegration = endpoint({
  method: 'PATCH',
  path: '/workspaces/:id/integrations/:integrationId',
  operationId: 'updateWorkspaceIntegration',
  tags: ['integrations'],
  summary: 'Change an integration',
  description:
    '`config` is merged over the stored config field by field: a field you send replaces its value, `null` removes an optional ' +
    'field, a field you leave out (or a secret sent back as `********`) keeps its value; the result is checked whole (400 names ' +
    'each bad field). A changed config of a kind that calls a provider is `pending` until validated again. `metadata` replaces ' +
    `the stored one; \`enabled: true\` switches a disabled integration back on. ${INTEGRATION_CALLERS}`,
  params: WorkspaceIntegrationParams,
  body: UpdateWorkspaceIntegrationBody,
  response: { 200: ok(WorkspaceIntegration) },
  errors: [401, 403, 404],
});

export const deleteWorkspaceIntegration = endpoint({
  method: 'DELETE',
  path: '/workspaces/:id/integrations/:integrationId',
  operationId: 'deleteWorkspaceIntegration',
  tags: ['integrations'],
  summary: 'Remove an integration',
  description: `Deletes it with its sealed secrets; the kind can be set up again. ${INTEGRATION_CALLERS}`,
  params: WorkspaceIntegrationParams,
  response: { 204: NoContent },
  errors: [401, 403, 404],
});

export const disableWorkspaceIntegration = endpoint({
  method: 'POST',
  path: '/workspaces/:id/integrations/:integrationId/disable',
  operationId: 'disableWorkspaceIntegration',
  tags: ['integrations'],
  summary: 'Disable an integration',
  description: `Status \`disabled\`; the config is kept (PATCH \`enabled: true\` switches it back on). Idempotent. ${INTEGRATION_CALLERS}`,
  params: WorkspaceIntegrationParams,
  response: { 200: ok(WorkspaceIntegration) },
  errors: [401, 403, 404],
});

export const getWorkspaceIntegrationStatus = endpoint({
  method: 'GET',
  path: '/workspaces/:id/integrations/:integrationId/status',
  operationId: 'getWorkspaceIntegrationStatus',
  tags: ['integrations'],
  summary: 'Status of an integration',
  description: `The stored status and the outcome of the last check; calls no provider (POST /validate re-checks). ${INTEGRATION_CALLERS}`,
  params: WorkspaceIntegrationParams,
  response: { 200: ok(WorkspaceIntegrationStatus) },
  errors: [401, 403, 404],
});

// notifications: the signed-in user's own notifications and notification preferences.

const OWN_NOTIFICATIONS = 'Any signed-in user, on their own notifications only (another user’s answers 404).';

export const listNotifications = endpoint({
  method: 'GET',
  path: '/notifications',
  operationId: 'listNotifications',
  tags: ['notifications'],
  summary: 'Your notifications',
  description:
    'Newest first. `unread=true` lists only unread ones, `unread=false` only read ones. `unreadCount` counts all your unread ' +
    `notifications whatever the filter. ${OWN_NOTIFICATIONS}`,
  querystring: NotificationListQuery,
  response: { 200: ok(NotificationList) },
  errors: [401],
});

export const deleteAllNotifications = endpoint({
  method: 'DELETE',
  path: '/notifications',
  operationId: 'deleteAllNotifications',
  tags: ['notifications'],
  summary: 'Delete all your notifications',
  description: `\`count\` is how many were deleted. ${OWN_NOTIFICATIONS}`,
  response: { 200: ok(NotificationCountResult) },
  errors: [401],
});

export const markAllNotificationsRead = endpoint({
  method: 'POST',
  path: '/notifications/mark-all-read',
  operationId: 'markAllNotificationsRead',
  tags: ['notifications'],
  summary: 'Mark all your notifications read',
  description: `\`count\` is how many were unread. ${OWN_NOTIFICATIONS}`,
  response: { 200: ok(NotificationCountResult) },
  errors: [401],
});

export const getNotificationPreferences = endpoint({
  method: 'GET',
  path: '/notifications/preferences',
  operationId: 'getNotificationPreferences',
  tags: ['notifications'],
  summary: 'Your notification preferences',
  description: 'For each event type, whether it reaches you (`events`), and the defaults. Any signed-in user.',
  response: { 200: ok(NotificationPreferences) },
  errors: [401],
});

export const updateNotificationPreferences = endpoint({
  method: 'PATCH',
  path: '/notifications/preferences',
  operationId: 'updateNotificationPreferences',
  tags: ['notifications'],
  summary: 'Change your notification preferences',
  description:
    '`events` names the event types to change: `true` on, `false` off, `null` back to the default; the others keep their ' +
    'value. Applies to events handled from then on. Any signed-in user.',
  body: UpdateNotificationPreferencesBody,
  response: { 200: ok(NotificationPreferences) },
  errors: [401],
});

export const getNotification = endpoint({
  method: 'GET',
  path: '/notifications/:id',
  operationId: 'getNotification',
  tags: ['notifications'],
  summary: 'Get a notification',
  description: OWN_NOTIFICATIONS,
  params: IdParams,
  response: { 200: ok(Notification) },
  errors: [401, 404],
});

export const markNotificationRead = endpoint({
  method: 'PATCH',
  path: '/notifications/:id/read',
  operationId: 'markNotificationRead',
  tags: ['notifications'],
  summary: 'Mark a notification read',
  description: `Idempotent: \`readAt\` keeps the first time. ${OWN_NOTIFICATIONS}`,
  params: IdParams,
  response: { 200: ok(Notification) },
  errors: [401, 404],
});

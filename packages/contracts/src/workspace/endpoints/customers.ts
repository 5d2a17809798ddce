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
import { SuccessEnvelope as ok } from '../../common/envelope.js';
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
import { CUSTOMER_BEARER, endpoint } from './define.js';

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

export const registerCustomer = endpoint({
  method: 'POST',
  path: '/workspaces/:id/customers/auth/register',
  operationId: 'registerCustomer',
  tags: ['customer self-service'],
  summary: 'Register as a customer of the workspace',
  description:
    'Creates the customer with the same password policy as users (12 to 128 characters with an upper-case letter, a lower-case ' +
    'letter, a number and a special character) and signs it in: the answer is the customer session. 409 when the e-mail ' +
    'address is taken in the workspace; 404 for an unknown workspace; 403 when the workspace is inactive or suspended.',
  security: [],
  params: WorkspaceRefParams,
  body: CustomerRegisterBody,
  response: { 201: ok(CustomerSession) },
  errors: [403, 404, 409],
});

export const loginCustomer = endpoint({
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
  security: [],
  params: WorkspaceRefParams,
  body: CustomerLoginBody,
  response: { 200: ok(CustomerSession) },
  errors: [401, 403, 404],
});

export const refreshCustomer = endpoint({
  method: 'POST',
  path: '/workspaces/:id/customers/auth/refresh',
  operationId: 'refreshCustomer',
  tags: ['customer self-service'],
  summary: 'Exchange a customer refresh token for new tokens',
  description:
    'The refresh token is single use: the answer holds a new one. Presenting an already used one revokes the whole session and ' +
    "answers 401; so do an expired one (`TOKEN_EXPIRED`), an unknown one and another workspace's.",
  security: [],
  params: WorkspaceRefParams,
  body: CustomerRefreshBody,
  response: { 200: ok(CustomerSession) },
  errors: [401, 404],
});

export const logoutCustomer = endpoint({
  method: 'POST',
  path: '/workspaces/:id/customers/auth/logout',
  operationId: 'logoutCustomer',
  tags: ['customer self-service'],
  summary: 'Log out a customer: the refresh token stops working at once',
  description:
    'Ends the session of the refresh token; access tokens already issued stay valid until they expire. Answers 200 for an ' +
    'unknown or already ended token too.',
  security: [],
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

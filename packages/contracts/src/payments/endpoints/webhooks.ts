import { Type } from '@sinclair/typebox';
import { PaymentsWebhookListQuery, WebhookDeleted, WebhookIdParams } from '../../commands/forwarding.js';
import {
  CreateWebhookBody,
  DeliveryLogsQuery,
  UpdateWebhookBody,
  WebhookDeliveryLog,
  WebhookDeliveryLogList,
  WebhookEventTypeList,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from '../../commands/webhooks.js';
import { resource } from './define.js';

// webhooks: the eleven operations of "Payments API: webhooks, v1 only", forwarded to the webhook-dispatcher

const WEBHOOKS_TAG = 'webhooks (v1)';
// Reading subscriptions is a standard call; changing them (and their deliveries) counts against the admin tier.
const WEBHOOKS_READ = { tier: 'standard', access: { scopes: ['read:webhooks'] } } as const;
const WEBHOOKS_WRITE = { tier: 'admin', access: { scopes: ['write:webhooks'] } } as const;
const DISPATCHER_UNAVAILABLE =
  'Answers 503 `UPSTREAM_UNAVAILABLE` (with `Retry-After`) when the webhook dispatcher does not answer; nothing changed then, or the change is not known: read the subscription again before retrying a create.';
const WEBHOOKS_V1_ONLY =
  'v1 only: v2 has no webhook operations. A platform manages its own subscriptions here until the v1 sunset; the same operations (and replay, resend) live on the Workspace API under `/api/v1/workspaces/{workspaceId}/webhooks`, where subscriptions belong to the workspace (see docs/api/versions.md).';

const endpoint = resource({ tags: [WEBHOOKS_TAG], deprecated: true });
// The operations on one subscription: its id in the path, and the same failures.
const subscriptionEndpoint = resource({ tags: [WEBHOOKS_TAG], deprecated: true, params: WebhookIdParams, errors: [404, 503] });

export const listWebhooks = endpoint('GET /api/v1/webhooks', {
  operationId: 'listWebhooksV1',
  summary: 'List webhook subscriptions',
  description: `Your platform's subscriptions, newest first. \`isActive\` (\`true\`/\`false\`) and \`eventType\` filter them; an unknown \`eventType\` answers 400 \`INVALID_EVENT_TYPES\`. Secrets are never listed. ${WEBHOOKS_V1_ONLY}`,
  ...WEBHOOKS_READ,
  querystring: PaymentsWebhookListQuery,
  response: { 200: Type.Array(WebhookSubscription) },
  errors: [503],
});

export const createWebhook = endpoint('POST /api/v1/webhooks', {
  operationId: 'createWebhookV1',
  summary: 'Create a webhook subscription',
  description: `Answers the subscription with its \`secret\` (\`whsec_…\`), shown only in this answer and in rotate-secret's. Unknown event types answer 400 \`INVALID_EVENT_TYPES\` (\`details.invalidEventTypes\`, \`details.validEventTypes\`); outside local, URLs on loopback, private or link-local addresses answer 400 \`VALIDATION_ERROR\`. At most 100 subscriptions per platform (409). ${DISPATCHER_UNAVAILABLE}`,
  ...WEBHOOKS_WRITE,
  body: CreateWebhookBody,
  response: { 201: WebhookSubscriptionWithSecret },
  errors: [409, 503],
});

export const listWebhookEventTypes = endpoint('GET /api/v1/webhooks/events/types', {
  operationId: 'listWebhookEventTypesV1',
  summary: 'Event types a subscription may name',
  description: 'The current list. New types are added over time and reach only the subscriptions that name them.',
  ...WEBHOOKS_READ,
  response: { 200: WebhookEventTypeList },
});

export const getWebhook = subscriptionEndpoint('GET /api/v1/webhooks/:id', {
  operationId: 'getWebhookV1',
  summary: 'Read a webhook subscription',
  description: "With its circuit breaker and rotation state; another platform's subscription answers 404.",
  ...WEBHOOKS_READ,
  response: { 200: WebhookSubscription },
});

export const updateWebhook = subscriptionEndpoint('PATCH /api/v1/webhooks/:id', {
  operationId: 'updateWebhookV1',
  summary: 'Change a webhook subscription',
  description: `Changes the fields sent; \`metadata\` is replaced whole. \`isActive: false\` pauses deliveries, \`true\` resumes them (also after a receiver's 410). ${DISPATCHER_UNAVAILABLE}`,
  ...WEBHOOKS_WRITE,
  body: UpdateWebhookBody,
  response: { 200: WebhookSubscription },
});

export const deleteWebhook = subscriptionEndpoint('DELETE /api/v1/webhooks/:id', {
  operationId: 'deleteWebhookV1',
  summary: 'Delete a webhook subscription',
  description: `Deletes the subscription with its pending deliveries and its logs. ${DISPATCHER_UNAVAILABLE}`,
  ...WEBHOOKS_WRITE,
  response: { 200: WebhookDeleted },
});

export const listWebhookDeliveryLogs = subscriptionEndpoint('GET /api/v1/webhooks/:id/delivery-logs', {
  operationId: 'listWebhookDeliveryLogsV1',
  summary: 'Delivery attempts of a subscription',
  description:
    'Every attempt, newest first, as `{logs, total}`: `limit` 1 to 100 (default 20), `offset`, `successOnly` or `failuresOnly` (not both). Kept 30 days.',
  ...WEBHOOKS_READ,
  querystring: DeliveryLogsQuery,
  response: { 200: WebhookDeliveryLogList },
});

export const rotateWebhookSecret = subscriptionEndpoint('POST /api/v1/webhooks/:id/rotate-secret', {
  operationId: 'rotateWebhookSecretV1',
  summary: "Rotate a subscription's secret",
  description:
    'Answers the new `secret` (shown once). Until complete-rotation, deliveries carry a signature with the new and one with the previous secret.',
  ...WEBHOOKS_WRITE,
  response: { 200: WebhookSubscriptionWithSecret },
});

export const completeWebhookRotation = subscriptionEndpoint('POST /api/v1/webhooks/:id/complete-rotation', {
  operationId: 'completeWebhookRotationV1',
  summary: 'Retire the previous secret',
  description: 'Deliveries are signed with the newest secret only. Without a rotation in progress: 400 `NO_ROTATION_IN_PROGRESS`.',
  ...WEBHOOKS_WRITE,
  response: { 200: WebhookSubscription },
});

export const resetWebhookCircuitBreaker = subscriptionEndpoint('POST /api/v1/webhooks/:id/reset-circuit-breaker', {
  operationId: 'resetWebhookCircuitBreakerV1',
  summary: "Close a subscription's circuit",
  description: 'Forces the circuit breaker CLOSED (failure count 0, any `Retry-After` pause lifted); queued deliveries go out.',
  ...WEBHOOKS_WRITE,
  response: { 200: WebhookSubscription },
});

export const testWebhook = subscriptionEndpoint('POST /api/v1/webhooks/:id/test', {
  operationId: 'testWebhookV1',
  summary: 'Send a test delivery',
  description:
    "Sends one signed `webhook.test` delivery now, waits for the receiver (up to 30 s) and answers the attempt's log entry. A failing receiver is a 200 with `success: false`. Not retried; works on an inactive subscription or an open circuit.",
  ...WEBHOOKS_WRITE,
  response: { 200: WebhookDeliveryLog },
});

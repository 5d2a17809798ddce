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
import { WORKSPACE_AUDIT } from '../audit-actions.js';
import { IdParams } from '../common.js';
import { resource } from './define.js';

// webhooks: `/workspaces/{id}/webhooks`, the spec's eleven operations and, beyond it, resending one
// delivery and replaying a time range; all forwarded to the webhook-dispatcher (the event types excepted).

const WEBHOOK_CALLERS =
  'Members of the workspace and SUPER_ADMINs. 503 `UPSTREAM_UNAVAILABLE` (with `Retry-After`) when the webhook dispatcher does not answer.';

const endpoint = resource({ tags: ['webhooks'] });
// The operations on one subscription: its id in the path, and the same failures.
const subscriptionEndpoint = resource({ tags: ['webhooks'], params: WorkspaceWebhookParams, errors: [403, 404, 503] });

export const listWebhookEventTypes = endpoint('GET /workspaces/:id/webhooks/events/types', {
  operationId: 'listWebhookEventTypes',
  summary: 'Event types a webhook may subscribe to',
  description: 'The current list; new types may be added (delivered only to subscriptions that name them). Members and SUPER_ADMINs.',
  params: IdParams,
  response: { 200: ok(Type.Array(EventTypeInfo)) },
  errors: [403, 404],
});

export const listWebhooks = endpoint('GET /workspaces/:id/webhooks', {
  operationId: 'listWebhooks',
  summary: 'List webhook subscriptions',
  description: `The workspace's subscriptions, newest first; \`isActive\` and \`eventType\` filter them (an unknown \`eventType\` is 400 \`INVALID_EVENT_TYPES\`). They receive the events of all of the workspace's platforms. Secrets are never listed. ${WEBHOOK_CALLERS}`,
  params: IdParams,
  querystring: ListWebhooksQuery,
  response: { 200: ok(Type.Array(WebhookSubscription)) },
  errors: [403, 404, 503],
});

export const createWebhook = endpoint('POST /workspaces/:id/webhooks', {
  operationId: 'createWebhook',
  summary: 'Create a webhook subscription',
  description: `Answers the subscription with its \`secret\` (\`whsec_…\`), shown only here and by rotate-secret. Unknown event types: 400 \`INVALID_EVENT_TYPES\`; outside local, URLs on loopback, private or link-local addresses: 400 \`VALIDATION_ERROR\`. At most 100 per workspace (409). Receiving: docs/webhooks.md. ${WEBHOOK_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.webhookCreate,
  params: IdParams,
  body: CreateWebhookBody,
  response: { 201: ok(WebhookSubscriptionWithSecret) },
  errors: [403, 404, 409, 503],
});

export const getWebhook = subscriptionEndpoint('GET /workspaces/:id/webhooks/:webhookId', {
  operationId: 'getWebhook',
  summary: 'Read a webhook subscription',
  description: `With its circuit breaker and rotation state. Another owner's subscription answers 404. ${WEBHOOK_CALLERS}`,
  response: { 200: ok(WebhookSubscription) },
});

export const updateWebhook = subscriptionEndpoint('PATCH /workspaces/:id/webhooks/:webhookId', {
  operationId: 'updateWebhook',
  summary: 'Change a webhook subscription',
  description: `Changes the fields sent; \`metadata\` is replaced whole. \`isActive: false\` pauses deliveries; \`true\` resumes them (also after a receiver's 410). ${WEBHOOK_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.webhookUpdate,
  body: UpdateWebhookBody,
  response: { 200: ok(WebhookSubscription) },
});

export const deleteWebhook = subscriptionEndpoint('DELETE /workspaces/:id/webhooks/:webhookId', {
  operationId: 'deleteWebhook',
  summary: 'Delete a webhook subscription',
  description: `Deletes the subscription, its pending deliveries and its logs; \`data.message\` says so. ${WEBHOOK_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.webhookDelete,
  response: { 200: ok(WebhookDeleted) },
});

export const listWebhookDeliveryLogs = subscriptionEndpoint('GET /workspaces/:id/webhooks/:webhookId/delivery-logs', {
  operationId: 'listWebhookDeliveryLogs',
  summary: 'Delivery attempts of a subscription',
  description: `Every attempt, newest first, as \`{logs, total}\`: \`limit\` 1 to 100 (default 20), \`offset\`, \`successOnly\` or \`failuresOnly\` (not both). Kept 30 days. ${WEBHOOK_CALLERS}`,
  querystring: DeliveryLogsQuery,
  response: { 200: ok(WebhookDeliveryLogList) },
});

export const rotateWebhookSecret = subscriptionEndpoint('POST /workspaces/:id/webhooks/:webhookId/rotate-secret', {
  operationId: 'rotateWebhookSecret',
  summary: "Rotate a subscription's secret",
  description: `Answers the new \`secret\` (shown once). Until complete-rotation, deliveries carry a signature with the new and one with the previous secret. ${WEBHOOK_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.webhookRotateSecret,
  response: { 200: ok(WebhookSubscriptionWithSecret) },
});

export const completeWebhookRotation = subscriptionEndpoint('POST /workspaces/:id/webhooks/:webhookId/complete-rotation', {
  operationId: 'completeWebhookRotation',
  summary: 'Retire the previous secret',
  description: `Deliveries are signed with the newest secret only. Without a rotation in progress: 400 \`NO_ROTATION_IN_PROGRESS\`. ${WEBHOOK_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.webhookCompleteRotation,
  response: { 200: ok(WebhookSubscription) },
});

export const resetWebhookCircuitBreaker = subscriptionEndpoint('POST /workspaces/:id/webhooks/:webhookId/reset-circuit-breaker', {
  operationId: 'resetWebhookCircuitBreaker',
  summary: "Close a subscription's circuit",
  description: `Forces the circuit breaker CLOSED (failure count 0, any \`Retry-After\` pause lifted); queued deliveries go out. ${WEBHOOK_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.webhookResetCircuitBreaker,
  response: { 200: ok(WebhookSubscription) },
});

export const testWebhook = subscriptionEndpoint('POST /workspaces/:id/webhooks/:webhookId/test', {
  operationId: 'testWebhook',
  summary: 'Send a test delivery',
  description: `Sends one signed \`webhook.test\` delivery now, waits for the receiver (up to 30 s) and answers the attempt's log entry; a failing receiver is a 200 with \`success: false\`. Not retried; works on an inactive subscription or an open circuit. ${WEBHOOK_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.webhookTest,
  response: { 200: ok(WebhookDeliveryLog) },
});

export const resendWebhookDelivery = endpoint('POST /workspaces/:id/webhooks/:webhookId/deliveries/:deliveryId/resend', {
  operationId: 'resendWebhookDelivery',
  summary: 'Resend one delivery',
  description: `Beyond the spec. Queues the delivery (a \`deliveryId\` from the delivery logs) for an attempt now, with a fresh retry schedule and the same \`X-Webhook-Delivery\`, so a receiver that already processed it drops it. ${WEBHOOK_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.webhookResendDelivery,
  params: WorkspaceDeliveryParams,
  response: { 200: ok(WebhookDelivery) },
  errors: [403, 404, 503],
});

export const replayWebhookEvents = subscriptionEndpoint('POST /workspaces/:id/webhooks/:webhookId/replay', {
  operationId: 'replayWebhookEvents',
  summary: 'Replay a time range of events',
  description: `Beyond the spec. Queues the events that happened in \`[from, to)\` and that the subscription matches now: a new delivery for an event it never had one for, its existing delivery again otherwise (same delivery id; succeeded ones too unless \`onlyFailed\`). At most 5,000 events per call; \`resumeFrom\` says where to continue. Events are kept 30 days. ${WEBHOOK_CALLERS}`,
  tier: 'admin',
  audit: WORKSPACE_AUDIT.webhookReplay,
  body: ReplayWebhookBody,
  response: { 200: ok(ReplayResult) },
});

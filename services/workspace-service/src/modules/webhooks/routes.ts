import {
  CreateWebhookBody,
  DeliveryLogsQuery,
  EventTypeInfo,
  IdParams,
  ListWebhooksQuery,
  ReplayResult,
  ReplayWebhookBody,
  UpdateWebhookBody,
  WebhookDeleted,
  WebhookDelivery,
  WebhookDeliveryLog,
  WebhookDeliveryLogList,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
  WorkspaceDeliveryParams,
  WorkspaceWebhookParams,
} from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { BEARER, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import { AUDIT } from '../audit/actions.js';
import type { WebhooksService } from './service.js';

const TAG = 'webhooks';
const WHO =
  'Members of the workspace and SUPER_ADMINs. 503 `UPSTREAM_UNAVAILABLE` (with `Retry-After`) when the webhook dispatcher does not answer.';

/**
 * `/workspaces/{id}/webhooks`: the spec's eleven operations and, beyond it, resending one delivery
 * and replaying a time range; all forwarded to the webhook-dispatcher (the event types excepted).
 */
export function webhookRoutes(webhooks: WebhooksService) {
  return async (app: HttpApp) => {
    app.get(
      '/workspaces/:id/webhooks/events/types',
      {
        schema: {
          tags: [TAG],
          summary: 'Event types a webhook may subscribe to',
          description:
            'The current list; new types may be added (delivered only to subscriptions that name them). Members and SUPER_ADMINs.',
          operationId: 'listWebhookEventTypes',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(Type.Array(EventTypeInfo)), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await webhooks.eventTypes(requireActor(request.caller), request.params.id)),
    );

    app.get(
      '/workspaces/:id/webhooks',
      {
        schema: {
          tags: [TAG],
          summary: 'List webhook subscriptions',
          description: `The workspace's subscriptions, newest first; \`isActive\` and \`eventType\` filter them (an unknown \`eventType\` is 400 \`INVALID_EVENT_TYPES\`). They receive the events of all of the workspace's platforms. Secrets are never listed. ${WHO}`,
          operationId: 'listWebhooks',
          security: BEARER,
          params: IdParams,
          querystring: ListWebhooksQuery,
          response: { 200: ok(Type.Array(WebhookSubscription)), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await webhooks.list(request.caller, request.params.id, request.query)),
    );

    app.post(
      '/workspaces/:id/webhooks',
      {
        config: { tier: 'admin', audit: AUDIT.webhookCreate },
        schema: {
          tags: [TAG],
          summary: 'Create a webhook subscription',
          description: `Answers the subscription with its \`secret\` (\`whsec_…\`), shown only here and by rotate-secret. Unknown event types: 400 \`INVALID_EVENT_TYPES\`; outside local, URLs on loopback, private or link-local addresses: 400 \`VALIDATION_ERROR\`. At most 100 per workspace (409). Receiving: docs/webhooks.md. ${WHO}`,
          operationId: 'createWebhook',
          security: BEARER,
          params: IdParams,
          body: CreateWebhookBody,
          response: { 201: ok(WebhookSubscriptionWithSecret), ...errorResponses(401, 403, 404, 409, 503) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(envelope(request, await webhooks.create(request.caller, request.params.id, request.body))),
    );

    app.get(
      '/workspaces/:id/webhooks/:webhookId',
      {
        schema: {
          tags: [TAG],
          summary: 'Read a webhook subscription',
          description: `With its circuit breaker and rotation state. Another owner's subscription answers 404. ${WHO}`,
          operationId: 'getWebhook',
          security: BEARER,
          params: WorkspaceWebhookParams,
          response: { 200: ok(WebhookSubscription), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await webhooks.get(request.caller, request.params.id, request.params.webhookId)),
    );

    app.patch(
      '/workspaces/:id/webhooks/:webhookId',
      {
        config: { tier: 'admin', audit: AUDIT.webhookUpdate },
        schema: {
          tags: [TAG],
          summary: 'Change a webhook subscription',
          description: `Changes the fields sent; \`metadata\` is replaced whole. \`isActive: false\` pauses deliveries; \`true\` resumes them (also after a receiver's 410). ${WHO}`,
          operationId: 'updateWebhook',
          security: BEARER,
          params: WorkspaceWebhookParams,
          body: UpdateWebhookBody,
          response: { 200: ok(WebhookSubscription), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) =>
        envelope(request, await webhooks.update(request.caller, request.params.id, request.params.webhookId, request.body)),
    );

    app.delete(
      '/workspaces/:id/webhooks/:webhookId',
      {
        config: { tier: 'admin', audit: AUDIT.webhookDelete },
        schema: {
          tags: [TAG],
          summary: 'Delete a webhook subscription',
          description: `Deletes the subscription, its pending deliveries and its logs; \`data.message\` says so. ${WHO}`,
          operationId: 'deleteWebhook',
          security: BEARER,
          params: WorkspaceWebhookParams,
          response: { 200: ok(WebhookDeleted), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await webhooks.remove(request.caller, request.params.id, request.params.webhookId)),
    );

    app.get(
      '/workspaces/:id/webhooks/:webhookId/delivery-logs',
      {
        schema: {
          tags: [TAG],
          summary: 'Delivery attempts of a subscription',
          description: `Every attempt, newest first, as \`{logs, total}\`: \`limit\` 1 to 100 (default 20), \`offset\`, \`successOnly\` or \`failuresOnly\` (not both). Kept 30 days. ${WHO}`,
          operationId: 'listWebhookDeliveryLogs',
          security: BEARER,
          params: WorkspaceWebhookParams,
          querystring: DeliveryLogsQuery,
          response: { 200: ok(WebhookDeliveryLogList), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) =>
        envelope(request, await webhooks.deliveryLogs(request.caller, request.params.id, request.params.webhookId, request.query)),
    );

    app.post(
      '/workspaces/:id/webhooks/:webhookId/rotate-secret',
      {
        config: { tier: 'admin', audit: AUDIT.webhookRotateSecret },
        schema: {
          tags: [TAG],
          summary: "Rotate a subscription's secret",
          description: `Answers the new \`secret\` (shown once). Until complete-rotation, deliveries carry a signature with the new and one with the previous secret. ${WHO}`,
          operationId: 'rotateWebhookSecret',
          security: BEARER,
          params: WorkspaceWebhookParams,
          response: { 200: ok(WebhookSubscriptionWithSecret), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await webhooks.rotateSecret(request.caller, request.params.id, request.params.webhookId)),
    );

    app.post(
      '/workspaces/:id/webhooks/:webhookId/complete-rotation',
      {
        config: { tier: 'admin', audit: AUDIT.webhookCompleteRotation },
        schema: {
          tags: [TAG],
          summary: 'Retire the previous secret',
          description: `Deliveries are signed with the newest secret only. Without a rotation in progress: 400 \`NO_ROTATION_IN_PROGRESS\`. ${WHO}`,
          operationId: 'completeWebhookRotation',
          security: BEARER,
          params: WorkspaceWebhookParams,
          response: { 200: ok(WebhookSubscription), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await webhooks.completeRotation(request.caller, request.params.id, request.params.webhookId)),
    );

    app.post(
      '/workspaces/:id/webhooks/:webhookId/reset-circuit-breaker',
      {
        config: { tier: 'admin', audit: AUDIT.webhookResetCircuitBreaker },
        schema: {
          tags: [TAG],
          summary: "Close a subscription's circuit",
          description: `Forces the circuit breaker CLOSED (failure count 0, any \`Retry-After\` pause lifted); queued deliveries go out. ${WHO}`,
          operationId: 'resetWebhookCircuitBreaker',
          security: BEARER,
          params: WorkspaceWebhookParams,
          response: { 200: ok(WebhookSubscription), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await webhooks.resetCircuitBreaker(request.caller, request.params.id, request.params.webhookId)),
    );

    app.post(
      '/workspaces/:id/webhooks/:webhookId/test',
      {
        config: { tier: 'admin', audit: AUDIT.webhookTest },
        schema: {
          tags: [TAG],
          summary: 'Send a test delivery',
          description: `Sends one signed \`webhook.test\` delivery now, waits for the receiver (up to 30 s) and answers the attempt's log entry; a failing receiver is a 200 with \`success: false\`. Not retried; works on an inactive subscription or an open circuit. ${WHO}`,
          operationId: 'testWebhook',
          security: BEARER,
          params: WorkspaceWebhookParams,
          response: { 200: ok(WebhookDeliveryLog), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) => envelope(request, await webhooks.test(request.caller, request.params.id, request.params.webhookId)),
    );

    app.post(
      '/workspaces/:id/webhooks/:webhookId/deliveries/:deliveryId/resend',
      {
        config: { tier: 'admin', audit: AUDIT.webhookResendDelivery },
        schema: {
          tags: [TAG],
          summary: 'Resend one delivery',
          description: `Beyond the spec. Queues the delivery (a \`deliveryId\` from the delivery logs) for an attempt now, with a fresh retry schedule and the same \`X-Webhook-Delivery\`, so a receiver that already processed it drops it. ${WHO}`,
          operationId: 'resendWebhookDelivery',
          security: BEARER,
          params: WorkspaceDeliveryParams,
          response: { 200: ok(WebhookDelivery), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) =>
        envelope(
          request,
          await webhooks.resendDelivery(request.caller, request.params.id, request.params.webhookId, request.params.deliveryId),
        ),
    );

    app.post(
      '/workspaces/:id/webhooks/:webhookId/replay',
      {
        config: { tier: 'admin', audit: AUDIT.webhookReplay },
        schema: {
          tags: [TAG],
          summary: 'Replay a time range of events',
          description: `Beyond the spec. Queues the events that happened in \`[from, to)\` and that the subscription matches now: a new delivery for an event it never had one for, its existing delivery again otherwise (same delivery id; succeeded ones too unless \`onlyFailed\`). At most 5,000 events per call; \`resumeFrom\` says where to continue. Events are kept 30 days. ${WHO}`,
          operationId: 'replayWebhookEvents',
          security: BEARER,
          params: WorkspaceWebhookParams,
          body: ReplayWebhookBody,
          response: { 200: ok(ReplayResult), ...errorResponses(401, 403, 404, 503) },
        },
      },
      async (request) =>
        envelope(request, await webhooks.replay(request.caller, request.params.id, request.params.webhookId, request.body)),
    );
  };
}

import {
  CreateWebhookBody,
  DeliveryLogsQuery,
  PaymentsWebhookListQuery,
  UpdateWebhookBody,
  WebhookDeleted,
  WebhookDeliveryLog,
  WebhookDeliveryLogList,
  WebhookEventTypeList,
  WebhookIdParams,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { principalOf } from '../auth/index.js';
import type { WebhooksService } from './service.js';

const TAG = 'webhooks (v1)';
const READ = { scopes: ['read:webhooks' as const] };
const WRITE = { scopes: ['write:webhooks' as const] };
const UNAVAILABLE =
  'Answers 503 `UPSTREAM_UNAVAILABLE` (with `Retry-After`) when the webhook dispatcher does not answer; nothing changed then, or the change is not known: read the subscription again before retrying a create.';
const V1_ONLY =
  'v1 only: v2 has no webhook operations. A platform manages its own subscriptions here until the v1 sunset; the same operations (and replay, resend) live on the Workspace API under `/api/v1/workspaces/{workspaceId}/webhooks`, where subscriptions belong to the workspace (see docs/api/versions.md).';

/**
 * The `Link` every v1 answer carries names `/api/v2` as the successor (spec). v2 has no webhooks,
 * so the webhook answers add the Workspace API's webhooks of the caller's workspace as an
 * `alternate`, when the Workspace API's URL is known and the platform belongs to a workspace.
 */
function addWorkspaceLink(workspaceApiUrl: string | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const workspaceId = request.principal?.workspaceId;
    if (!workspaceApiUrl || !workspaceId) return;
    const current = reply.getHeader('link');
    const alternate = `<${workspaceApiUrl}/api/v1/workspaces/${workspaceId}/webhooks>; rel="alternate"; title="Workspace API webhooks"`;
    reply.header('Link', current ? `${String(current)}, ${alternate}` : alternate);
  };
}

/** The eleven operations of "Payments API: webhooks, v1 only", forwarded to the webhook-dispatcher. */
export function webhookRoutes(service: WebhooksService, options: { workspaceApiUrl?: string }) {
  return async (app: HttpApp) => {
    app.addHook('preHandler', addWorkspaceLink(options.workspaceApiUrl));

    app.get(
      '/api/v1/webhooks',
      {
        config: { tier: 'standard', access: READ },
        schema: {
          tags: [TAG],
          summary: 'List webhook subscriptions',
          description: `Your platform's subscriptions, newest first. \`isActive\` (\`true\`/\`false\`) and \`eventType\` filter them; an unknown \`eventType\` answers 400 \`INVALID_EVENT_TYPES\`. Secrets are never listed. ${V1_ONLY}`,
          operationId: 'listWebhooksV1',
          deprecated: true,
          querystring: PaymentsWebhookListQuery,
          response: { 200: Type.Array(WebhookSubscription), ...errorResponses(503) },
        },
      },
      async (request) => service.list(principalOf(request), request.query, request.id),
    );

    app.post(
      '/api/v1/webhooks',
      {
        config: { tier: 'admin', access: WRITE },
        schema: {
          tags: [TAG],
          summary: 'Create a webhook subscription',
          description: `Answers the subscription with its \`secret\` (\`whsec_…\`), shown only in this answer and in rotate-secret's. Unknown event types answer 400 \`INVALID_EVENT_TYPES\` (\`details.invalidEventTypes\`, \`details.validEventTypes\`); outside local, URLs on loopback, private or link-local addresses answer 400 \`VALIDATION_ERROR\`. At most 100 subscriptions per platform (409). ${UNAVAILABLE}`,
          operationId: 'createWebhookV1',
          deprecated: true,
          body: CreateWebhookBody,
          response: { 201: WebhookSubscriptionWithSecret, ...errorResponses(409, 503) },
        },
      },
      async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body, request.id)),
    );

    app.get(
      '/api/v1/webhooks/events/types',
      {
        config: { tier: 'standard', access: READ },
        schema: {
          tags: [TAG],
          summary: 'Event types a subscription may name',
          description: 'The current list. New types are added over time and reach only the subscriptions that name them.',
          operationId: 'listWebhookEventTypesV1',
          deprecated: true,
          response: { 200: WebhookEventTypeList },
        },
      },
      async () => service.eventTypes(),
    );

    app.get(
      '/api/v1/webhooks/:id',
      {
        config: { tier: 'standard', access: READ },
        schema: {
          tags: [TAG],
          summary: 'Read a webhook subscription',
          description: "With its circuit breaker and rotation state; another platform's subscription answers 404.",
          operationId: 'getWebhookV1',
          deprecated: true,
          params: WebhookIdParams,
          response: { 200: WebhookSubscription, ...errorResponses(404, 503) },
        },
      },
      async (request) => service.get(principalOf(request), request.params.id, request.id),
    );

    app.patch(
      '/api/v1/webhooks/:id',
      {
        config: { tier: 'admin', access: WRITE },
        schema: {
          tags: [TAG],
          summary: 'Change a webhook subscription',
          description: `Changes the fields sent; \`metadata\` is replaced whole. \`isActive: false\` pauses deliveries, \`true\` resumes them (also after a receiver's 410). ${UNAVAILABLE}`,
          operationId: 'updateWebhookV1',
          deprecated: true,
          params: WebhookIdParams,
          body: UpdateWebhookBody,
          response: { 200: WebhookSubscription, ...errorResponses(404, 503) },
        },
      },
      async (request) => service.update(principalOf(request), request.params.id, request.body, request.id),
    );

    app.delete(
      '/api/v1/webhooks/:id',
      {
        config: { tier: 'admin', access: WRITE },
        schema: {
          tags: [TAG],
          summary: 'Delete a webhook subscription',
          description: `Deletes the subscription with its pending deliveries and its logs. ${UNAVAILABLE}`,
          operationId: 'deleteWebhookV1',
          deprecated: true,
          params: WebhookIdParams,
          response: { 200: WebhookDeleted, ...errorResponses(404, 503) },
        },
      },
      async (request) => service.remove(principalOf(request), request.params.id, request.id),
    );

    app.get(
      '/api/v1/webhooks/:id/delivery-logs',
      {
        config: { tier: 'standard', access: READ },
        schema: {
          tags: [TAG],
          summary: 'Delivery attempts of a subscription',
          description:
            'Every attempt, newest first, as `{logs, total}`: `limit` 1 to 100 (default 20), `offset`, `successOnly` or `failuresOnly` (not both). Kept 30 days.',
          operationId: 'listWebhookDeliveryLogsV1',
          deprecated: true,
          params: WebhookIdParams,
          querystring: DeliveryLogsQuery,
          response: { 200: WebhookDeliveryLogList, ...errorResponses(404, 503) },
        },
      },
      async (request) => service.deliveryLogs(principalOf(request), request.params.id, request.query, request.id),
    );

    app.post(
      '/api/v1/webhooks/:id/rotate-secret',
      {
        config: { tier: 'admin', access: WRITE },
        schema: {
          tags: [TAG],
          summary: "Rotate a subscription's secret",
          description:
            'Answers the new `secret` (shown once). Until complete-rotation, deliveries carry a signature with the new and one with the previous secret.',
          operationId: 'rotateWebhookSecretV1',
          deprecated: true,
          params: WebhookIdParams,
          response: { 200: WebhookSubscriptionWithSecret, ...errorResponses(404, 503) },
        },
      },
      async (request) => service.rotateSecret(principalOf(request), request.params.id, request.id),
    );

    app.post(
      '/api/v1/webhooks/:id/complete-rotation',
      {
        config: { tier: 'admin', access: WRITE },
        schema: {
          tags: [TAG],
          summary: 'Retire the previous secret',
          description: 'Deliveries are signed with the newest secret only. Without a rotation in progress: 400 `NO_ROTATION_IN_PROGRESS`.',
          operationId: 'completeWebhookRotationV1',
          deprecated: true,
          params: WebhookIdParams,
          response: { 200: WebhookSubscription, ...errorResponses(404, 503) },
        },
      },
      async (request) => service.completeRotation(principalOf(request), request.params.id, request.id),
    );

    app.post(
      '/api/v1/webhooks/:id/reset-circuit-breaker',
      {
        config: { tier: 'admin', access: WRITE },
        schema: {
          tags: [TAG],
          summary: "Close a subscription's circuit",
          description: 'Forces the circuit breaker CLOSED (failure count 0, any `Retry-After` pause lifted); queued deliveries go out.',
          operationId: 'resetWebhookCircuitBreakerV1',
          deprecated: true,
          params: WebhookIdParams,
          response: { 200: WebhookSubscription, ...errorResponses(404, 503) },
        },
      },
      async (request) => service.resetCircuitBreaker(principalOf(request), request.params.id, request.id),
    );

    app.post(
      '/api/v1/webhooks/:id/test',
      {
        config: { tier: 'admin', access: WRITE },
        schema: {
          tags: [TAG],
          summary: 'Send a test delivery',
          description:
            "Sends one signed `webhook.test` delivery now, waits for the receiver (up to 30 s) and answers the attempt's log entry. A failing receiver is a 200 with `success: false`. Not retried; works on an inactive subscription or an open circuit.",
          operationId: 'testWebhookV1',
          deprecated: true,
          params: WebhookIdParams,
          response: { 200: WebhookDeliveryLog, ...errorResponses(404, 503) },
        },
      },
      async (request) => service.test(principalOf(request), request.params.id, request.id),
    );
  };
}

import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { requireActor } from '../access/index.js';
import { AUDIT } from '../audit/index.js';
import type { WebhooksService } from './service.js';

/**
 * `/workspaces/{id}/webhooks`: the spec's eleven operations and, beyond it, resending one delivery
 * and replaying a time range; all forwarded to the webhook-dispatcher (the event types excepted).
 */
export function webhookRoutes(webhooks: WebhooksService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listWebhookEventTypes, {}, async (request) =>
      envelope(request, await webhooks.eventTypes(requireActor(request.caller), request.params.id)),
    );

    serveEndpoint(app, api.listWebhooks, {}, async (request) =>
      envelope(request, await webhooks.list(request.caller, request.params.id, request.query)),
    );

    serveEndpoint(app, api.createWebhook, { config: { tier: 'admin', audit: AUDIT.webhookCreate } }, async (request, reply) =>
      reply.code(201).send(envelope(request, await webhooks.create(request.caller, request.params.id, request.body))),
    );

    serveEndpoint(app, api.getWebhook, {}, async (request) =>
      envelope(request, await webhooks.get(request.caller, request.params.id, request.params.webhookId)),
    );

    serveEndpoint(app, api.updateWebhook, { config: { tier: 'admin', audit: AUDIT.webhookUpdate } }, async (request) =>
      envelope(request, await webhooks.update(request.caller, request.params.id, request.params.webhookId, request.body)),
    );

    serveEndpoint(app, api.deleteWebhook, { config: { tier: 'admin', audit: AUDIT.webhookDelete } }, async (request) =>
      envelope(request, await webhooks.remove(request.caller, request.params.id, request.params.webhookId)),
    );

    serveEndpoint(app, api.listWebhookDeliveryLogs, {}, async (request) =>
      envelope(request, await webhooks.deliveryLogs(request.caller, request.params.id, request.params.webhookId, request.query)),
    );

    serveEndpoint(app, api.rotateWebhookSecret, { config: { tier: 'admin', audit: AUDIT.webhookRotateSecret } }, async (request) =>
      envelope(request, await webhooks.rotateSecret(request.caller, request.params.id, request.params.webhookId)),
    );

    serveEndpoint(app, api.completeWebhookRotation, { config: { tier: 'admin', audit: AUDIT.webhookCompleteRotation } }, async (request) =>
      envelope(request, await webhooks.completeRotation(request.caller, request.params.id, request.params.webhookId)),
    );

    serveEndpoint(
      app,
      api.resetWebhookCircuitBreaker,
      { config: { tier: 'admin', audit: AUDIT.webhookResetCircuitBreaker } },
      async (request) => envelope(request, await webhooks.resetCircuitBreaker(request.caller, request.params.id, request.params.webhookId)),
    );

    serveEndpoint(app, api.testWebhook, { config: { tier: 'admin', audit: AUDIT.webhookTest } }, async (request) =>
      envelope(request, await webhooks.test(request.caller, request.params.id, request.params.webhookId)),
    );

    serveEndpoint(app, api.resendWebhookDelivery, { config: { tier: 'admin', audit: AUDIT.webhookResendDelivery } }, async (request) =>
      envelope(
        request,
        await webhooks.resendDelivery(request.caller, request.params.id, request.params.webhookId, request.params.deliveryId),
      ),
    );

    serveEndpoint(app, api.replayWebhookEvents, { config: { tier: 'admin', audit: AUDIT.webhookReplay } }, async (request) =>
      envelope(request, await webhooks.replay(request.caller, request.params.id, request.params.webhookId, request.body)),
    );
  };
}

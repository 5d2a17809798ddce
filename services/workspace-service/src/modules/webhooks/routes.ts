import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import { requireActor } from '../access/index.js';
import type { WebhooksService } from './service.js';

/**
 * `/workspaces/{id}/webhooks`: the spec's eleven operations and, beyond it, resending one delivery
 * and replaying a time range; all forwarded to the webhook-dispatcher (the event types excepted).
 */
export function webhookRoutes(webhooks: WebhooksService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listWebhookEventTypes, async (request) => webhooks.eventTypes(requireActor(request.caller), request.params.id)),
      route(api.listWebhooks, async (request) => webhooks.list(request.caller, request.params.id, request.query)),
      route(api.createWebhook, async (request) => webhooks.create(request.caller, request.params.id, request.body)),
      route(api.getWebhook, async (request) => webhooks.get(request.caller, request.params.id, request.params.webhookId)),
      route(api.updateWebhook, async (request) =>
        webhooks.update(request.caller, request.params.id, request.params.webhookId, request.body),
      ),
      route(api.deleteWebhook, async (request) => webhooks.remove(request.caller, request.params.id, request.params.webhookId)),
      route(api.listWebhookDeliveryLogs, async (request) =>
        webhooks.deliveryLogs(request.caller, request.params.id, request.params.webhookId, request.query),
      ),
      route(api.rotateWebhookSecret, async (request) => webhooks.rotateSecret(request.caller, request.params.id, request.params.webhookId)),
      route(api.completeWebhookRotation, async (request) =>
        webhooks.completeRotation(request.caller, request.params.id, request.params.webhookId),
      ),
      route(api.resetWebhookCircuitBreaker, async (request) =>
        webhooks.resetCircuitBreaker(request.caller, request.params.id, request.params.webhookId),
      ),
      route(api.testWebhook, async (request) => webhooks.test(request.caller, request.params.id, request.params.webhookId)),
      route(api.resendWebhookDelivery, async (request) =>
        webhooks.resendDelivery(request.caller, request.params.id, request.params.webhookId, request.params.deliveryId),
      ),
      route(api.replayWebhookEvents, async (request) =>
        webhooks.replay(request.caller, request.params.id, request.params.webhookId, request.body),
      ),
    ]);
  };
}

import { paymentsEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { WebhooksService } from './service.js';

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

    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.listWebhooks, async (request) => service.list(principalOf(request), request.query, request.id)),
      route(api.createWebhook, async (request, reply) =>
        reply.code(201).send(await service.create(principalOf(request), request.body, request.id)),
      ),
      route(api.listWebhookEventTypes, async () => service.eventTypes()),
      route(api.getWebhook, async (request) => service.get(principalOf(request), request.params.id, request.id)),
      route(api.updateWebhook, async (request) => service.update(principalOf(request), request.params.id, request.body, request.id)),
      route(api.deleteWebhook, async (request) => service.remove(principalOf(request), request.params.id, request.id)),
      route(api.listWebhookDeliveryLogs, async (request) =>
        service.deliveryLogs(principalOf(request), request.params.id, request.query, request.id),
      ),
      route(api.rotateWebhookSecret, async (request) => service.rotateSecret(principalOf(request), request.params.id, request.id)),
      route(api.completeWebhookRotation, async (request) => service.completeRotation(principalOf(request), request.params.id, request.id)),
      route(api.resetWebhookCircuitBreaker, async (request) =>
        service.resetCircuitBreaker(principalOf(request), request.params.id, request.id),
      ),
      route(api.testWebhook, async (request) => service.test(principalOf(request), request.params.id, request.id)),
    ]);
  };
}

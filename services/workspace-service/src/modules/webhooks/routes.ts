import { EventTypeInfo, IdParams } from '@holdfast/contracts';
import { envelope, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { BEARER, ok } from '../../http/schemas.js';
import { requireActor } from '../access/caller.js';
import type { CatalogService } from '../catalog/service.js';

/** `/workspaces/{id}/webhooks/events/types`: the event types a workspace webhook may subscribe to. */
export function webhookEventTypeRoutes(catalog: CatalogService) {
  return async (app: HttpApp) => {
    app.get(
      '/workspaces/:id/webhooks/events/types',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Event types a webhook may subscribe to',
          description:
            'The current list; new types may be added (delivered only to subscriptions that name them). Members and SUPER_ADMINs.',
          operationId: 'listWebhookEventTypes',
          security: BEARER,
          params: IdParams,
          response: { 200: ok(Type.Array(EventTypeInfo)), ...errorResponses(401, 403, 404) },
        },
      },
      async (request) => envelope(request, await catalog.eventTypes(requireActor(request.caller), request.params.id)),
    );
  };
}

import { paymentsEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { Idempotency } from '../idempotency/index.js';
import type { DisputesService } from './service.js';

/**
 * Disputes (spec "Payments API: disputes"), on v1 (API keys and tokens) and v2 (tokens only), each
 * scoped to the calling platform. Rules in docs/disputes.md.
 */
export function disputeRoutes(service: DisputesService, idempotency: Idempotency) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.listDisputes, async (request) => service.list(principalOf(request), request.query)),
      route(api.createDispute, async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body))),
      route(api.getDispute, async (request) => service.get(principalOf(request), request.params.id)),
      route(api.escalateDispute, async (request) =>
        service.escalate(principalOf(request), request.params.id, idempotency.inTransaction(request)),
      ),
      route(api.submitDisputeEvidence, async (request, reply) =>
        reply
          .code(201)
          .send(await service.submitEvidence(principalOf(request), request.params.id, request.body, idempotency.inTransaction(request))),
      ),
      route(api.resolveDispute, async (request) => service.resolve(principalOf(request), request.params.id, request.body)),
    ]);
  };
}

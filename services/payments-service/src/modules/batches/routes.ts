import { paymentsEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { BatchesService } from './service.js';

/** Batches (spec "Batch"; "Payments API: transactions"): create, list, read, on v1 and v2. */
export function batchRoutes(service: BatchesService) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.createBatch, async (request, reply) => {
        const { batch, replayed } = await service.create(principalOf(request), request.body, request.headers['idempotency-key']);
        if (replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(replayed ? 200 : 201).send(batch);
      }),
      route(api.listBatches, async (request) => service.list(principalOf(request), request.query)),
      route(api.getBatch, async (request) => service.get(principalOf(request), request.params.id)),
    ]);
  };
}

import { paymentsEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { QuotesService } from './service.js';

/** POST /transactions/quote on v1 and v2 (write:transactions on both, spec PAYMENTS_V2_OPERATIONS). */
export function quoteRoutes(service: QuotesService) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.quoteTransaction, async (request, reply) => reply.code(201).send(await service.quote(principalOf(request), request.body))),
    ]);
  };
}

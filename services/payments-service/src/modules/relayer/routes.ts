import { paymentsEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { RelayerService } from './service.js';

/** One-signature funding through the relayer (docs/checkout.md). */
export function relayerRoutes(service: RelayerService) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.relayEscrowAuthorization, async (request, reply) => {
        const out = await service.relay(principalOf(request), request.params.id, request.body);
        return reply.code(out.status).send(out.body);
      }),
      route(api.getEscrowAuthorization, async (request) => service.get(principalOf(request), request.params.id)),
    ]);
  };
}

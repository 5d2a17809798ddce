import { paymentsEndpoints as api } from '@holdfast/contracts';
import { emptyBodyAsObject, type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { SettlementOperations } from './operations.js';

/** The on-chain operations of a transaction (spec "named only"), on v1 and v2 with the v2 renames. */
export function settlementRoutes(service: SettlementOperations) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.submitTransactionHash, async (request) => service.submitHash(principalOf(request), request.params.id, request.body)),
      route(api.submitEscrowHash, async (request) => service.submitEscrowHash(principalOf(request), request.params.id, request.body)),
      route(api.attestRelease, async (request) => service.attestRelease(principalOf(request), request.params.id)),
      route(api.attestEarlyRelease, async (request) => service.attestEarlyRelease(principalOf(request), request.params.id, request.body)),
      route(
        api.rescindTransaction,
        async (request, reply) => {
          const out = await service.rescind(principalOf(request), request.params.id, request.body);
          return reply.code(out.status).send(out.body);
        },
        { preValidation: emptyBodyAsObject },
      ),
      route(api.refundTransaction, async (request) => service.refund(principalOf(request), request.params.id, request.body), {
        preValidation: emptyBodyAsObject,
      }),
    ]);
  };
}

import { paymentsEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { SettlementReviewService } from './service.js';

/** The operator routes of settlement (admin scope, v1: the admin credential is an API key). */
export function settlementReviewRoutes(service: SettlementReviewService) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.listSettlementItems, async (request) => service.list(request.query)),
      route(api.retrySettlement, async (request) => service.retrySettlement(principalOf(request), request.params.id, request.body)),
      route(api.resolveSettlement, async (request) => service.resolveSettlement(principalOf(request), request.params.id, request.body)),
      route(api.resolveChainMessage, async (request) =>
        service.resolveChainMessage(principalOf(request), request.params.messageId, request.body),
      ),
      route(api.listDisputedClaims, async (request) => service.listDisputedClaims(request.query)),
      route(api.resolveDisputedClaim, async (request) =>
        service.resolveDisputedClaim(principalOf(request), request.params.id, request.body),
      ),
    ]);
  };
}

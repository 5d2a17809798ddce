import { paymentsEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import type { ReconciliationService } from './service.js';

/** The reconciler's operator routes (admin scope, v1: the admin credential is an API key). */
export function reconciliationRoutes(service: ReconciliationService) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.listReconciliationMismatches, async (request) => service.list(request.query)),
      route(api.runReconciliation, async () => service.runNow()),
    ]);
  };
}

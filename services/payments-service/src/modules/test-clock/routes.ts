import { paymentsEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { TestClockService } from './service.js';

/** POST /api/v2/test_helpers/transactions/{id}/advance_hold (docs/test-clock.md). */
export function testClockRoutes(service: TestClockService) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.advanceTransactionHold, async (request) => service.advanceHold(principalOf(request), request.params.id)),
    ]);
  };
}

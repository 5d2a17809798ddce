import { paymentsEndpoints as api } from '@holdfast/contracts';
import type { HttpApp } from '@holdfast/http-kit';
import { route, servePayments } from '../../http/endpoints.js';
import { principalOf } from '../auth/plugin.js';
import type { TestClockService } from './service.js';

/** POST /api/v2/test_helpers/transactions/{id}/advance_hold (docs/test-clock.md). */
export function testClockRoutes(service: TestClockService) {
  return async (app: HttpApp) => {
    servePayments(app, [
      route(api.advanceTransactionHold, async (request) => service.advanceHold(principalOf(request), request.params.id)),
    ]);
  };
}

import { paymentsEndpoints as api } from '@holdfast/contracts';
import type { HttpApp } from '@holdfast/http-kit';
import { route, servePayments } from '../../http/endpoints.js';
import { principalOf } from '../auth/plugin.js';
import type { X402Service } from './service.js';

/** Holdfast as an x402 v2 facilitator (docs/x402.md). */
export function x402Routes(service: X402Service) {
  return async (app: HttpApp) => {
    servePayments(app, [
      route(api.x402Supported, async () => service.supported()),
      route(api.x402Verify, async (request) => service.verify(principalOf(request), request.body)),
      route(api.x402Settle, async (request) => service.settle(principalOf(request), request.body)),
      route(api.x402Settlement, async (request) => service.settlement(principalOf(request), request.params.transactionId)),
    ]);
  };
}

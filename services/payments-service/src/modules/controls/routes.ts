import { paymentsEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { ControlsService } from './service.js';

/**
 * Controls (spec "Controls (K)", v2 `controls/verify-2fa` and `controls/vendor-sms/verify`), and,
 * beyond the spec, the template library (v1) and risk-review decisions (v1, operator).
 */
export function controlsRoutes(service: ControlsService) {
  return async (app: HttpApp) => {
    // One call per verification: each one's v1 twin stays beside it in the OpenAPI document.
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.verifyTwoFactor, async (request) => service.verifyCode(principalOf(request), 'two_factor', request.body)),
    ]);
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.verifyVendorSms, async (request) => service.verifyCode(principalOf(request), 'vendor_sms', request.body)),
    ]);
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.createControlTemplate, async (request, reply) =>
        reply.code(201).send(await service.createTemplate(principalOf(request), request.body)),
      ),
      route(api.listControlTemplates, async (request) => service.listTemplates(principalOf(request))),
      route(api.getControlTemplate, async (request) => service.getTemplate(principalOf(request), request.params.id)),
      route(api.decideRiskReview, async (request) =>
        service.decideReview(principalOf(request), request.params.transactionId, request.body),
      ),
    ]);
  };
}

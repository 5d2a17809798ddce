import { paymentsEndpoints as api, IDENTITY_PROVIDER_SIGNATURE_HEADER } from '@holdfast/contracts';
import { captureRawBody, type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import type { FastifyRequest } from 'fastify';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { ComplianceService } from './service.js';

const signatureHeader = (request: FastifyRequest) => {
  const value = request.headers[IDENTITY_PROVIDER_SIGNATURE_HEADER];
  return typeof value === 'string' ? value : undefined;
};

/** Compliance verifications (spec "Payments API: compliance"), on v1 and v2. */
export function complianceRoutes(service: ComplianceService) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.createVerification, async (request, reply) =>
        reply.code(201).send(await service.create(principalOf(request), request.body)),
      ),
      route(api.checkVerification, async (request) => service.check(principalOf(request), request.body)),
      route(api.getVerification, async (request) => service.get(principalOf(request), request.params.id)),
      route(api.identityProviderCallback, async (request) => service.handleCallback(request.body), {
        // The signature is checked over the exact bytes, before the body is parsed.
        preParsing: [
          captureRawBody(),
          async (request) => service.verifyCallback(signatureHeader(request), request.rawBody ?? Buffer.alloc(0)),
        ],
      }),
    ]);
  };
}

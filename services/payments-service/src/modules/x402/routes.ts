import { paymentsEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import type { FastifyRequest } from 'fastify';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { X402Service } from './service.js';

/** The origin the request reached (URLs in answers, when PAYMENTS_PUBLIC_URL is unset). */
const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
/** x402's headers carry base64 JSON. */
const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

/** Holdfast as an x402 v2 facilitator, and a checkout session as an x402 resource (docs/x402.md). */
export function x402Routes(service: X402Service) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.x402Supported, async () => service.supported()),
      route(api.x402Verify, async (request) => service.verify(principalOf(request), request.body, originOf(request))),
      route(api.x402Settle, async (request) => service.settle(principalOf(request), request.body, originOf(request))),
      route(api.x402Settlement, async (request) => service.settlement(principalOf(request), request.params.transactionId)),
      route(api.x402PayCheckout, async (request, reply) => {
        const out = await service.payCheckout(request.params.id, request.headers['payment-signature'], originOf(request));
        if (out.status === 402) return reply.code(402).header('PAYMENT-REQUIRED', base64(out.body)).send(out.body);
        return reply.code(200).header('PAYMENT-RESPONSE', base64(out.settlement)).send(out.body);
      }),
    ]);
  };
}

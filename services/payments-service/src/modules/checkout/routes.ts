import { paymentsEndpoints as api } from '@holdfast/contracts';
import type { HttpApp } from '@holdfast/http-kit';
import type { FastifyRequest } from 'fastify';
import { route, servePayments } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { CheckoutService } from './service.js';

/** The origin the request reached (the hosted page's origin when PAYMENTS_PUBLIC_URL is unset). */
const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/** Checkout sessions on v2 (docs/checkout.md): create, list, read, expire, and the hosted page's payer call. */
export function checkoutRoutes(service: CheckoutService) {
  return async (app: HttpApp) => {
    servePayments(app, [
      route(api.createCheckoutSession, async (request, reply) => {
        const header = request.headers['idempotency-key'];
        const out = await service.create(
          principalOf(request),
          request.body,
          typeof header === 'string' ? header : undefined,
          originOf(request),
        );
        if (out.replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(201).send(out.session);
      }),
      route(api.listCheckoutSessions, async (request) => service.list(principalOf(request), request.query, originOf(request))),
      route(api.getCheckoutSession, async (request) => service.get(principalOf(request), request.params.id, originOf(request))),
      route(api.expireCheckoutSession, async (request) => service.expire(principalOf(request), request.params.id, originOf(request))),
      route(api.attachCheckoutPayer, async (request) => service.attachPayer(request.params.id, request.body.fromAddress)),
    ]);
  };
}

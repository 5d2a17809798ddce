import { paymentsEndpoints as api, IdParams, notFound } from '@holdfast/contracts';
import type { HttpApp } from '@holdfast/http-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { route, servePayments } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { PageAssets } from './page-assets.js';
import type { CheckoutService } from './service.js';

/** The origin the request reached (the hosted page's origin when PAYMENTS_PUBLIC_URL is unset). */
const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/** Checkout sessions on v2 (docs/checkout.md): create, list, read, expire, and the hosted page's calls. */
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
      route(api.getCheckoutPage, async (request) => service.page(request.params.id)),
      route(api.authorizeCheckoutPayment, async (request, reply) => {
        const out = await service.authorize(request.params.id, request.body.signature);
        return reply.code(out.status).send(out.page);
      }),
    ]);
  };
}

/**
 * The hosted payer page's policy (docs/checkout.md, "The hosted page"): its own script and style
 * only, no inline code, requests to this origin only, images from itself, data: (wallet icons) or
 * https (the platform's logo), never framed.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: https:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function pageHeaders(reply: FastifyReply, type: string, cache: string): FastifyReply {
  return (
    reply
      .type(type)
      .header('content-security-policy', PAGE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      // The page's URL holds the session id (the capability): never sent to the return URLs or a logo's host.
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', cache)
  );
}

/**
 * `GET /pay/{id}`: the hosted payer page (an HTML shell, the same for every session: it reads the
 * session through GET …/page), and its script and style under `/pay/assets/` (content-hashed
 * names, cached for good). Not API operations: hidden from the OpenAPI document; errors still go
 * through the one error handler (a malformed id is the 400 envelope).
 */
/** `schema.hide` (@fastify/swagger's, which http-kit registers): kept out of the OpenAPI document. */
const HIDDEN = { hide: true } as object;

export function checkoutPageRoutes(assets: PageAssets) {
  return async (app: HttpApp) => {
    app.get('/pay/:id', { schema: { ...HIDDEN, params: IdParams }, config: { tier: 'high' } }, async (_request, reply) => {
      const page = await assets.load();
      return pageHeaders(reply, 'text/html; charset=utf-8', 'no-store').send(page.html);
    });
    app.get<{ Params: { file: string } }>(
      '/pay/assets/:file',
      { schema: { ...HIDDEN }, config: { tier: 'high' } },
      async (request, reply) => {
        const page = await assets.load();
        const file = page.files.get(request.params.file);
        if (!file) throw notFound('Asset');
        return pageHeaders(reply, file.type, 'public, max-age=31536000, immutable').send(file.body);
      },
    );
  };
}

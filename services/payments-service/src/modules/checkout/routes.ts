import { paymentsEndpoints as api, IdParams, notFound } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { PageAssets } from './page-assets.js';
import type { CheckoutService } from './service.js';

/** The origin the request reached (the hosted page's origin when PAYMENTS_PUBLIC_URL is unset). */
const originOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;

/** Checkout sessions on v2 (docs/checkout.md): create, list, read, expire, and the hosted page's calls. */
export function checkoutRoutes(service: CheckoutService) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
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
export const PAGE_CSP = pageCsp({ walletConnect: false });

/**
 * WalletConnect's hosts (ADR 61), in the CSP of a session whose workspace configured a
 * WalletConnect projectId, and only there: its relay (the client's WebSocket, `.org` its default,
 * `.com` the older name the relay still answers on) and its Verify API (the attestation the
 * client registers for this origin, loaded in a hidden frame, and its key, fetched).
 */
export const WALLETCONNECT_CONNECT_SRC = [
  'wss://relay.walletconnect.org',
  'wss://relay.walletconnect.com',
  'https://verify.walletconnect.org',
  'https://verify.walletconnect.com',
];
export const WALLETCONNECT_FRAME_SRC = ['https://verify.walletconnect.org', 'https://verify.walletconnect.com'];

/** The policy of one page: strict, widened to WalletConnect's hosts only for a session that offers it. */
export function pageCsp(policy: { walletConnect: boolean }): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    ["connect-src 'self'", ...(policy.walletConnect ? WALLETCONNECT_CONNECT_SRC : [])].join(' '),
    ...(policy.walletConnect ? [`frame-src ${WALLETCONNECT_FRAME_SRC.join(' ')}`] : []),
    "img-src 'self' data: https:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function pageHeaders(reply: FastifyReply, type: string, cache: string, csp = PAGE_CSP): FastifyReply {
  return (
    reply
      .type(type)
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      // The page's URL holds the session id (the capability): never sent to the return URLs or a logo's host.
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', cache)
  );
}

/**
 * `GET /pay/{id}`: the hosted payer page (an HTML shell, the same for every session: it reads the
 * session through GET …/page; its CSP is the session's, `pageCsp`), and its script, chunks and
 * style under `/pay/assets/` (content-hashed names, cached for good). Not API operations: hidden from the OpenAPI document; errors still go
 * through the one error handler (a malformed id is the 400 envelope).
 */
/** `schema.hide` (@fastify/swagger's, which http-kit registers): kept out of the OpenAPI document. */
const HIDDEN = { hide: true } as object;

export function checkoutPageRoutes(assets: PageAssets, checkout: Pick<CheckoutService, 'pagePolicy'>) {
  return async (app: HttpApp) => {
    app.get<{ Params: { id: string } }>(
      '/pay/:id',
      { schema: { ...HIDDEN, params: IdParams }, config: { tier: 'high' } },
      async (request, reply) => {
        const [page, policy] = await Promise.all([assets.load(), checkout.pagePolicy(request.params.id)]);
        return pageHeaders(reply, 'text/html; charset=utf-8', 'no-store', pageCsp(policy)).send(page.html);
      },
    );
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

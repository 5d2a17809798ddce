import { Quote, QuoteBody } from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { principalOf } from '../auth/index.js';
import type { QuotesService } from './service.js';

/** POST /transactions/quote on v1 and v2 (write:transactions on both, spec PAYMENTS_V2_OPERATIONS). */
export function quoteRoutes(service: QuotesService) {
  return async (app: HttpApp) => {
    for (const v of ['v1', 'v2'] as const) {
      app.post(
        `/api/${v}/transactions/quote`,
        {
          config: { tier: 'standard', access: { scopes: ['write:transactions'] } },
          schema: {
            tags: ['transactions'],
            summary: 'Fee quote',
            description:
              "The fee of an amount under `billingConfig` (or the platform's `settings.billing`; none = no fee). Valid until `expiresAt`; pass `quoteId` to one create with the same amount and currency.",
            operationId: v === 'v2' ? 'quoteTransaction' : 'quoteTransactionV1',
            deprecated: v === 'v1',
            body: QuoteBody,
            response: { 201: Quote, ...errorResponses() },
          },
        },
        async (request, reply) => reply.code(201).send(await service.quote(principalOf(request), request.body)),
      );
    }
  };
}

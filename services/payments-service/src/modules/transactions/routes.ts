import { paymentsEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { PAYMENTS_SURFACE } from '../../http/endpoints.js';
import { principalOf } from '../auth/index.js';
import type { TransactionsService } from './service.js';

/**
 * Transactions (spec "Payments API: transactions"): create, list, read, at-risk, stats, on v1
 * (API keys or tokens, v1 scopes) and v2 (tokens).
 */
export function transactionRoutes(service: TransactionsService) {
  return async (app: HttpApp) => {
    serveRoutes(app, PAYMENTS_SURFACE, [
      route(api.createTransaction, async (request, reply) => {
        const header = request.headers['idempotency-key'];
        const out = await service.create(principalOf(request), request.body, typeof header === 'string' ? header : undefined);
        if (out.replayed) reply.header('idempotent-replayed', 'true');
        return reply.code(201).send(out.transaction);
      }),
      route(api.listTransactions, async (request) => service.list(principalOf(request), request.query)),
      route(api.getAtRiskTransactions, async (request) => service.atRisk(principalOf(request))),
      route(api.getTransactionStats, async (request) => service.stats(principalOf(request))),
      route(api.getTransaction, async (request) => service.get(principalOf(request), request.params.id)),
    ]);
  };
}

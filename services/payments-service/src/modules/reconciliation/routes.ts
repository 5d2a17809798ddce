import { MismatchList, MismatchQuery, ReconciliationPass } from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import type { ReconciliationService } from './service.js';

const ADMIN = { tier: 'admin' as const, access: { scopes: ['admin:platform' as const] } };

/** The reconciler's operator routes (admin scope, v1: the admin credential is an API key). */
export function reconciliationRoutes(service: ReconciliationService) {
  return async (app: HttpApp) => {
    app.get(
      '/api/v1/admin/reconciliation/mismatches',
      {
        config: ADMIN,
        schema: {
          tags: ['operations'],
          summary: 'Differences between the books and the escrow contract',
          description:
            'What the reconciler found, newest first: kind, transaction (and batch), the status in the books, the escrow status on chain, since when (`firstSeenAt`) and, once resolved, how (`repaired` by the reconciler, or `cleared`: the difference went away). Open ones by default (`open=false`: all). See docs/settlement.md, Reconciliation.',
          operationId: 'listReconciliationMismatches',
          querystring: MismatchQuery,
          response: { 200: MismatchList },
        },
      },
      async (request) => service.list(request.query),
    );

    app.post(
      '/api/v1/admin/reconciliation/run',
      {
        config: ADMIN,
        schema: {
          tags: ['operations'],
          summary: 'Run a reconciliation pass now',
          description:
            'Compares every escrowed transaction and batch leg (and the settled ones within RECONCILIATION_LOOKBACK) with the escrow contract now, as the periodic pass does, and answers what it found. 409 while another instance runs a pass.',
          operationId: 'runReconciliation',
          response: { 200: ReconciliationPass, ...errorResponses(409) },
        },
      },
      async () => service.runNow(),
    );
  };
}

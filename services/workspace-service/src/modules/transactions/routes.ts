import { workspaceEndpoints as api } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import type { TransactionsService } from './service.js';

/** The spec's "Workspace API: workspace transactions" and "global transactions" (docs/workspace-transactions.md). */
export function transactionRoutes(transactions: TransactionsService) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.listWorkspaceTransactions, async (request) => transactions.list(request.caller, request.params.id, request.query)),
      route(api.createWorkspaceTransaction, async (request) => transactions.create(request.caller, request.params.id, request.body)),
      route(api.getWorkspaceTransaction, async (request) =>
        transactions.getWithKey(request.caller, request.params.id, request.params.txId),
      ),
      route(api.submitWorkspaceTransactionEscrowHash, async (request) =>
        transactions.submitEscrowHash(request.caller, request.params.id, request.params.txId, request.body),
      ),
      route(api.listTransactions, async (request) => transactions.globalList(request.caller, request.query)),
      route(api.getTransactionStats, async (request) => transactions.stats(request.caller)),
      route(api.getTransaction, async (request) => transactions.globalGet(request.caller, request.params.id)),
    ]);
  };
}

import { workspaceEndpoints as api } from '@holdfast/contracts';
import { envelope, type HttpApp, serveEndpoint } from '@holdfast/http-kit';
import { AUDIT } from '../audit/index.js';
import type { TransactionsService } from './service.js';

/** The spec's "Workspace API: workspace transactions" and "global transactions" (docs/workspace-transactions.md). */
export function transactionRoutes(transactions: TransactionsService) {
  return async (app: HttpApp) => {
    serveEndpoint(app, api.listWorkspaceTransactions, {}, async (request) =>
      envelope(request, await transactions.list(request.caller, request.params.id, request.query)),
    );

    serveEndpoint(app, api.createWorkspaceTransaction, { config: { tier: 'standard', audit: AUDIT.transactionCreate } }, async (request) =>
      envelope(request, await transactions.create(request.caller, request.params.id, request.body)),
    );

    serveEndpoint(app, api.getWorkspaceTransaction, { config: { access: 'workspace_key' } }, async (request) =>
      envelope(request, await transactions.getWithKey(request.caller, request.params.id, request.params.txId)),
    );

    serveEndpoint(
      app,
      api.submitWorkspaceTransactionEscrowHash,
      { config: { access: 'workspace_key', tier: 'standard', audit: AUDIT.transactionSubmitEscrowHash } },
      async (request) =>
        envelope(request, await transactions.submitEscrowHash(request.caller, request.params.id, request.params.txId, request.body)),
    );

    serveEndpoint(app, api.listTransactions, {}, async (request) =>
      envelope(request, await transactions.globalList(request.caller, request.query)),
    );

    serveEndpoint(app, api.getTransactionStats, {}, async (request) => envelope(request, await transactions.stats(request.caller)));

    serveEndpoint(app, api.getTransaction, {}, async (request) =>
      envelope(request, await transactions.globalGet(request.caller, request.params.id)),
    );
  };
}

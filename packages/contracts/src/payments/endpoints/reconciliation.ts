import { MismatchList, MismatchQuery, ReconciliationPass } from '../operations.js';
import { OPERATOR, resource } from './define.js';

// reconciliation: the operator routes of the reconciler (admin scope; v1, where the admin credential is an API key)

const endpoint = resource({ tags: ['operations'], tier: 'admin', access: OPERATOR });

export const listReconciliationMismatches = endpoint('GET /api/v1/admin/reconciliation/mismatches', {
  operationId: 'listReconciliationMismatches',
  summary: 'Differences between the books and the escrow contract',
  description:
    'What the reconciler found, newest first: kind, transaction (and batch), the status in the books, the escrow status on chain, since when (`firstSeenAt`) and, once resolved, how (`repaired` by the reconciler, or `cleared`: the difference went away). Open ones by default (`open=false`: all). See docs/settlement.md, Reconciliation.',
  querystring: MismatchQuery,
  response: { 200: MismatchList },
});

export const runReconciliation = endpoint('POST /api/v1/admin/reconciliation/run', {
  operationId: 'runReconciliation',
  summary: 'Run a reconciliation pass now',
  description:
    'Compares every escrowed transaction and batch leg (and the settled ones within RECONCILIATION_LOOKBACK) with the escrow contract now, as the periodic pass does, and answers what it found. 409 while another instance runs a pass.',
  response: { 200: ReconciliationPass },
  errors: [409],
});

import {
  ChainMessageIdParams,
  OperatorActionBody,
  SettlementIdParams,
  SettlementItem,
  SettlementItemList,
  SettlementItemQuery,
} from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { principalOf } from '../auth/index.js';
import type { SettlementReviewService } from './service.js';

const ADMIN = { tier: 'admin' as const, access: { scopes: ['admin:platform' as const] } };
const RUNBOOK = 'Operator runbook: docs/settlement.md.';

/** The operator routes of settlement (admin scope, v1: the admin credential is an API key). */
export function settlementReviewRoutes(service: SettlementReviewService) {
  return async (app: HttpApp) => {
    app.get(
      '/api/v1/admin/settlement/items',
      {
        config: ADMIN,
        schema: {
          tags: ['operations'],
          summary: 'Settlement items that need a person',
          description: `Settlement instructions \`failed\` (retries used up) or \`superseded\` (the chain settled the escrow otherwise), and CHAIN messages \`conflict\`, \`rejected\` or \`correction_unapplied\`, newest first, each with its operator actions. Resolved items only with \`includeResolved=true\`. ${RUNBOOK}`,
          operationId: 'listSettlementItems',
          querystring: SettlementItemQuery,
          response: { 200: SettlementItemList },
        },
      },
      async (request) => service.list(request.query),
    );

    app.post(
      '/api/v1/admin/settlement/settlements/:id/retry',
      {
        config: ADMIN,
        schema: {
          tags: ['operations'],
          summary: 'Retry a failed settlement instruction',
          description: `A \`failed\` instruction goes back to \`pending\` with a fresh attempt budget; the settlement worker reads the escrow again before sending (idempotent). \`reason\` is kept with who acted. 409 for any other status (a \`superseded\` one is resolved, not retried). ${RUNBOOK}`,
          operationId: 'retrySettlement',
          params: SettlementIdParams,
          body: OperatorActionBody,
          response: { 200: SettlementItem, ...errorResponses(404, 409) },
        },
      },
      async (request) => service.retrySettlement(principalOf(request), request.params.id, request.body),
    );

    app.post(
      '/api/v1/admin/settlement/settlements/:id/resolve',
      {
        config: ADMIN,
        schema: {
          tags: ['operations'],
          summary: 'Resolve a settlement instruction',
          description: `Marks a \`failed\` or \`superseded\` instruction as dealt with by a person (it leaves the list; its status is kept as the record). \`reason\` is kept with who acted. 409 when it needs no operator or is resolved. ${RUNBOOK}`,
          operationId: 'resolveSettlement',
          params: SettlementIdParams,
          body: OperatorActionBody,
          response: { 200: SettlementItem, ...errorResponses(404, 409) },
        },
      },
      async (request) => service.resolveSettlement(principalOf(request), request.params.id, request.body),
    );

    app.post(
      '/api/v1/admin/settlement/chain-messages/:messageId/resolve',
      {
        config: ADMIN,
        schema: {
          tags: ['operations'],
          summary: 'Resolve a CHAIN message payments could not apply',
          description: `Marks a \`conflict\`, \`rejected\` or \`correction_unapplied\` CHAIN message as dealt with (it is not applied again: fix the transaction first, e.g. through a dispute or the reconciler, then resolve). \`reason\` is kept with who acted. 409 when it needs no operator or is resolved. ${RUNBOOK}`,
          operationId: 'resolveChainMessage',
          params: ChainMessageIdParams,
          body: OperatorActionBody,
          response: { 200: SettlementItem, ...errorResponses(404, 409) },
        },
      },
      async (request) => service.resolveChainMessage(principalOf(request), request.params.messageId, request.body),
    );
  };
}

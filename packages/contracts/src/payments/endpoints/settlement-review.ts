import {
  ChainMessageIdParams,
  DisputedClaim,
  DisputedClaimIdParams,
  DisputedClaimList,
  DisputedClaimQuery,
  OperatorActionBody,
  ResolveDisputedClaimBody,
  SettlementIdParams,
  SettlementItem,
  SettlementItemList,
  SettlementItemQuery,
} from '../operations.js';
import { OPERATOR, resource } from './define.js';

// settlement review: the operator routes of settlement (admin scope; v1, where the admin credential is an API key)

const SETTLEMENT_RUNBOOK = 'Operator runbook: docs/settlement.md.';

const endpoint = resource({ tags: ['operations'], tier: 'admin', access: OPERATOR });

export const listSettlementItems = endpoint('GET /api/v1/admin/settlement/items', {
  operationId: 'listSettlementItems',
  summary: 'Settlement items that need a person',
  description: `Settlement instructions \`failed\` (retries used up) or \`superseded\` (the chain settled the escrow otherwise), and CHAIN messages \`conflict\`, \`rejected\` or \`correction_unapplied\`, newest first, each with its operator actions. Resolved items only with \`includeResolved=true\`. ${SETTLEMENT_RUNBOOK}`,
  querystring: SettlementItemQuery,
  response: { 200: SettlementItemList },
});

export const retrySettlement = endpoint('POST /api/v1/admin/settlement/settlements/:id/retry', {
  operationId: 'retrySettlement',
  summary: 'Retry a failed settlement instruction',
  description: `A \`failed\` instruction goes back to \`pending\` with a fresh attempt budget; the settlement worker reads the escrow again before sending (idempotent). \`reason\` is kept with who acted. 409 for any other status (a \`superseded\` one is resolved, not retried). ${SETTLEMENT_RUNBOOK}`,
  params: SettlementIdParams,
  body: OperatorActionBody,
  response: { 200: SettlementItem },
  errors: [404, 409],
});

export const resolveSettlement = endpoint('POST /api/v1/admin/settlement/settlements/:id/resolve', {
  operationId: 'resolveSettlement',
  summary: 'Resolve a settlement instruction',
  description: `Marks a \`failed\` or \`superseded\` instruction as dealt with by a person (it leaves the list; its status is kept as the record). \`reason\` is kept with who acted. 409 when it needs no operator or is resolved. ${SETTLEMENT_RUNBOOK}`,
  params: SettlementIdParams,
  body: OperatorActionBody,
  response: { 200: SettlementItem },
  errors: [404, 409],
});

export const resolveChainMessage = endpoint('POST /api/v1/admin/settlement/chain-messages/:messageId/resolve', {
  operationId: 'resolveChainMessage',
  summary: 'Resolve a CHAIN message payments could not apply',
  description: `Marks a \`conflict\`, \`rejected\` or \`correction_unapplied\` CHAIN message as dealt with (it is not applied again: fix the transaction first, e.g. through a dispute or the reconciler, then resolve). \`reason\` is kept with who acted. 409 when it needs no operator or is resolved. ${SETTLEMENT_RUNBOOK}`,
  params: ChainMessageIdParams,
  body: OperatorActionBody,
  response: { 200: SettlementItem },
  errors: [404, 409],
});

export const listDisputedClaims = endpoint('GET /api/v1/admin/settlement/disputed-claims', {
  operationId: 'listDisputedClaims',
  summary: 'Plain transfers claimed by several platforms',
  description: `A plain ERC-20 transfer names no transaction, so raw transactions of different platforms with the same terms may each claim it with submit-hash: each completes, and the log is a disputed claim. Open ones by default (\`status=resolved\`: the resolved ones), newest first, with every claim and its transaction's status. A transfer made with the escrow's \`pay\` names its transaction and is never disputed. ${SETTLEMENT_RUNBOOK}`,
  querystring: DisputedClaimQuery,
  response: { 200: DisputedClaimList },
});

export const resolveDisputedClaim = endpoint('POST /api/v1/admin/settlement/disputed-claims/:id/resolve', {
  operationId: 'resolveDisputedClaim',
  summary: 'Resolve a disputed claim by naming the transaction the transfer paid',
  description: `\`rightfulTransactionId\` keeps its completion; every other claiming transaction still completed moves to \`failed\` (\`void_transfer\`, \`transaction.failed\` with \`reason\`, webhooks follow), in one database transaction with the resolution and who acted. 400 when \`rightfulTransactionId\` did not claim the transfer; 404 for an unknown claim; 409 when it is already resolved. ${SETTLEMENT_RUNBOOK}`,
  params: DisputedClaimIdParams,
  body: ResolveDisputedClaimBody,
  response: { 200: DisputedClaim },
  errors: [404, 409],
});

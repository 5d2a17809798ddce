import type { OperationTier, PaymentsAuth, PaymentsEndpoint } from './endpoint.js';
import * as api from './endpoints/index.js';

export interface PaymentsOperation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path template under {payments_host}, OpenAPI style (`{id}`). */
  path: string;
  /** The v1 operations it succeeds (same method); empty when v2 added it. */
  v1: string[];
  /** Who may call (see `PaymentsAuth`). */
  auth: PaymentsAuth;
  tier: OperationTier;
  summary: string;
  /** Part of the product the operation belongs to (the module that serves it). */
  area: 'access' | 'transactions' | 'controls' | 'compliance' | 'disputes';
}

/** A path as OpenAPI writes it (`/transactions/{id}`), from the Fastify form (`/transactions/:id`). */
const openApiPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}');

/** The row of an endpoint of the catalogue; `summary` where the table words it otherwise than the route. */
const listed = (area: PaymentsOperation['area'], e: PaymentsEndpoint, summary = e.summary): PaymentsOperation => ({
  area,
  method: e.method,
  path: openApiPath(e.path),
  v1: (e.v1 ?? []).map((v1) => openApiPath(typeof v1 === 'string' ? v1 : v1.path)),
  auth: e.access,
  tier: e.tier,
  summary,
});

/**
 * Payments API v2: the 36 operations of the spec ("Versioning") and the relayer's two (issue 29). v2 accepts OAuth bearer tokens only;
 * webhook and OAuth-client management live on the Workspace API. Renames from v1: submit-hash ->
 * hash, submit-escrow-hash -> escrow-hash, authorize-release -> release/attest,
 * release-early/authorize -> release-early/attest, transactions/batch -> transactions/batches,
 * verify-vendor-sms -> vendor-sms/verify; compliance loses v1's doubled `/api/v1` prefix.
 * Each row is read from its entry of the endpoint catalogue (endpoints/: method, paths, scopes,
 * tier and summary are written there once, and the routes are served from the same entries);
 * docs/api/versions.md and the OpenAPI description are written from this list.
 */
export const PAYMENTS_V2_OPERATIONS: readonly PaymentsOperation[] = [
  listed('access', api.issueToken),
  listed('access', api.revokeToken),
  listed('access', api.introspectToken),
  listed('access', api.listScopes, 'List the scopes and what each grants'),
  listed('access', api.getOwnPlatform),
  listed('access', api.listPlatforms),
  listed('access', api.getPlatform),
  listed('access', api.updatePlatform),
  listed('access', api.deactivatePlatform),
  listed('transactions', api.listTransactions),
  listed('transactions', api.createTransaction),
  listed('transactions', api.getAtRiskTransactions),
  listed('transactions', api.getTransactionStats),
  listed('transactions', api.quoteTransaction),
  listed('transactions', api.listBatches),
  listed('transactions', api.createBatch),
  listed('transactions', api.getBatch),
  listed('transactions', api.getTransaction),
  listed('transactions', api.submitTransactionHash),
  listed('transactions', api.submitEscrowHash),
  listed('transactions', api.relayEscrowAuthorization),
  listed('transactions', api.getEscrowAuthorization),
  listed('transactions', api.attestRelease),
  listed('transactions', api.attestEarlyRelease),
  listed('transactions', api.rescindTransaction),
  listed('transactions', api.refundTransaction),
  listed('controls', api.verifyTwoFactor),
  listed('controls', api.verifyVendorSms),
  listed('compliance', api.createVerification),
  listed('compliance', api.checkVerification),
  listed('compliance', api.getVerification),
  listed('compliance', api.identityProviderCallback, 'Identity provider callback (signed by the provider)'),
  listed('disputes', api.listDisputes),
  listed('disputes', api.createDispute),
  listed('disputes', api.getDispute),
  listed('disputes', api.escalateDispute),
  listed('disputes', api.submitDisputeEvidence),
  listed('disputes', api.resolveDispute),
];

/**
 * v1 operations whose successor is not a v2 path: API keys are v1 credentials, and webhook and
 * OAuth-client management moved to the Workspace API. Their `Link` names `/api/v2` itself.
 */
export const PAYMENTS_V1_ONLY = [
  'POST /api/v1/auth/api-key',
  'POST /api/v1/auth/api-key/regenerate',
  'POST /api/v1/auth/verify',
  'POST /api/v1/oauth/clients',
  'POST /api/v1/oauth/clients/{clientId}/revoke-all-tokens',
  '/api/v1/webhooks (all eleven operations)',
] as const;

function templateRegex(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[A-Za-z]+\}/g, '([^/]+)');
  return new RegExp(`^${escaped}/?$`);
}

const SUCCESSORS = PAYMENTS_V2_OPERATIONS.flatMap((o) => o.v1.map((v1) => ({ v1: templateRegex(v1), v2: o.path })));

/**
 * The v2 successor of a v1 request path (query ignored): the renamed v2 path with the request's
 * own identifiers, or `/api/v2` when the v1 operation has no v2 counterpart.
 */
export function v2SuccessorPath(v1Url: string): string {
  const path = v1Url.split('?')[0] ?? v1Url;
  for (const s of SUCCESSORS) {
    const match = s.v1.exec(path);
    if (!match) continue;
    const values = match.slice(1);
    let i = 0;
    return s.v2.replace(/\{[A-Za-z]+\}/g, () => values[i++] ?? '');
  }
  return '/api/v2';
}

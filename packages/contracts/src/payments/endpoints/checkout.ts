import {
  AttachCheckoutPayerBody,
  CheckoutAuthorizationBody,
  CheckoutPage,
  CheckoutPayment,
  CheckoutSession,
  CheckoutSessionList,
  CheckoutSessionListQuery,
  CreateCheckoutSessionBody,
} from '../checkout.js';
import { CreateTransactionHeaders } from '../transactions.js';
import { IdParams, resource } from './define.js';

// checkout: hosted checkout sessions (docs/checkout.md), beyond the spec's operations

const CHECKOUT_DESIGN = 'Design: docs/checkout.md.';

const endpoint = resource({ tags: ['checkout'] });

export const createCheckoutSession = endpoint('POST /api/v2/checkout/sessions', {
  operationId: 'createCheckoutSession',
  summary: 'Create a checkout session',
  description: `A session for a payment of \`amount\` to \`toAddress\` (the transaction create body's own fields: no sender, the payer's wallet names it), valid \`expiresInSeconds\` (30 minutes by default, at most 24 hours). Send the payer to \`url\`. Each field is validated as a transaction's would be (400 \`VALIDATION_ERROR\` naming it; an unknown \`templateId\` 404). A platform of a workspace is bounded by the workspace's enabled external wallet configs: a \`blockchainNetwork\` outside their \`allowedNetworks\`, or, when they list \`allowedTemplateIds\`, a \`templateId\` outside them (or none) and inline \`template\` terms, are 400 \`VALIDATION_ERROR\` naming that field. An idempotency key (body \`idempotencyKey\` or header \`Idempotency-Key\`) with the same parameters answers the first session with \`Idempotent-Replayed: true\`; with other parameters 422 \`IDEMPOTENCY_KEY_REUSED\`. ${CHECKOUT_DESIGN}`,
  tier: 'standard',
  access: { scopes: ['move:transactions'] },
  headers: CreateTransactionHeaders,
  body: CreateCheckoutSessionBody,
  response: { 201: CheckoutSession },
  errors: [404, 422],
});

export const listCheckoutSessions = endpoint('GET /api/v2/checkout/sessions', {
  operationId: 'listCheckoutSessions',
  summary: 'List checkout sessions',
  description: 'The platform’s sessions, newest first, `{data, pagination}`; `status`, `customerId` and `transactionId` filter them.',
  tier: 'standard',
  access: { scopes: ['read:transactions'] },
  querystring: CheckoutSessionListQuery,
  response: { 200: CheckoutSessionList },
});

export const getCheckoutSession = endpoint('GET /api/v2/checkout/sessions/:id', {
  operationId: 'getCheckoutSession',
  summary: 'Read a checkout session',
  description: "Another platform's session answers 404.",
  tier: 'high',
  access: { scopes: ['read:transactions'] },
  params: IdParams,
  response: { 200: CheckoutSession },
  errors: [404],
});

export const expireCheckoutSession = endpoint('POST /api/v2/checkout/sessions/:id/expire', {
  operationId: 'expireCheckoutSession',
  summary: 'Expire a checkout session',
  description: `An \`open\` session becomes \`expired\` at once (\`checkout.session.expired\`); an expired one answers as it is (200, no second event). A \`processing\` or \`complete\` session answers 409 \`INVALID_STATE_TRANSITION\` (its transaction exists; its escrow may be on its way on chain). ${CHECKOUT_DESIGN}`,
  tier: 'standard',
  access: { scopes: ['move:transactions'] },
  params: IdParams,
  response: { 200: CheckoutSession },
  errors: [404, 409],
});

export const attachCheckoutPayer = endpoint('POST /api/v2/checkout/sessions/:id/payer', {
  operationId: 'attachCheckoutPayer',
  summary: 'Name the payer of a checkout session (hosted page)',
  description: `Called by the hosted payment page, without a platform credential: the session id (a random UUID the platform hands only to its payer) is the capability. The payer's wallet names its address: the session's transaction is created (platform orchestration, external wallet) and the session becomes \`processing\`; the answer is what the wallet signs to lock the escrow. The same address again answers the same transaction; another address while \`processing\` 409 \`CONFLICT\`; an expired or complete session 409 \`INVALID_STATE_TRANSITION\`. Never shows the session's metadata or customer id. Public rate-limit tier. ${CHECKOUT_DESIGN}`,
  tier: 'public',
  access: 'none',
  params: IdParams,
  body: AttachCheckoutPayerBody,
  response: { 200: CheckoutPayment },
  errors: [404, 409, 422],
});

export const getCheckoutPage = endpoint('GET /api/v2/checkout/sessions/:id/page', {
  operationId: 'getCheckoutPage',
  summary: 'What the hosted page shows (hosted page)',
  description: `Read by the hosted payment page (\`/pay/{id}\`), without a platform credential (the session id is the capability, as for the payer call), and polled by it until the session is \`complete\`. The session as the payer sees it, the name and logo to show, the chain the wallet must be on, the hold terms, and once a payer is named its transaction's status, the payer's token balance and the EIP-3009 \`ReceiveWithAuthorization\` to sign (the token's EIP-712 domain read by the server, so that the page makes no RPC call). Never the session's metadata or customer id, nor any credential. High-frequency tier. \${CHECKOUT_DESIGN}`,
  tier: 'high',
  access: 'none',
  params: IdParams,
  response: { 200: CheckoutPage },
  errors: [404],
});

export const authorizeCheckoutPayment = endpoint('POST /api/v2/checkout/sessions/:id/authorization', {
  operationId: 'authorizeCheckoutPayment',
  summary: 'Fund the session with the payer’s signature (hosted page)',
  description: `Called by the hosted payment page, without a platform credential: the payer's signature of the page's \`payment.typedData\` goes to the relayer for the session's transaction, as \`POST /transactions/{id}/escrow-authorization\` would take it from the platform (every check before any gas; 422 \`AUTHORIZATION_REFUSED\` with \`details.reason\` and nothing sent). 202: relayed now; 200: the same signature again (the same relay, nothing sent twice). A session without a payer, expired or complete by another signature: 409. Answers the page's data. Public rate-limit tier. \${CHECKOUT_DESIGN}`,
  tier: 'public',
  access: 'none',
  params: IdParams,
  body: CheckoutAuthorizationBody,
  response: { 202: CheckoutPage, 200: CheckoutPage },
  errors: [404, 409, 422, 429, 503],
});

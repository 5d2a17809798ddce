import { type TSchema, Type } from '@sinclair/typebox';
import { PaymentsWebhookListQuery, WebhookDeleted, WebhookIdParams } from '../commands/forwarding.js';
import {
  CreateWebhookBody,
  DeliveryLogsQuery,
  UpdateWebhookBody,
  WebhookDeliveryLog,
  WebhookDeliveryLogList,
  WebhookEventTypeList,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from '../commands/webhooks.js';
import { Uuid } from '../common/domain.js';
import { ErrorEnvelope, SuccessEnvelope } from '../common/envelope.js';
import {
  ApiKeyCreated,
  AuthorizationServerMetadata,
  CreateApiKeyBody,
  CreateOAuthClientBody,
  IntrospectionResponse,
  OAuthClientIdParams,
  OAuthClientWithSecret,
  OAuthErrorResponse,
  Platform,
  PlatformListQuery,
  RegenerateApiKeyBody,
  RevokeAllTokensResult,
  ScopeCatalogue,
  TokenActionRequest,
  TokenActionRequestForm,
  TokenEnvelope,
  TokenRequest,
  TokenRequestForm,
  TokenResponse,
  UpdatePlatformBody,
  VerifyApiKeyResult,
} from './access.js';
import {
  BatchCreated,
  BatchList,
  BatchListQuery,
  BatchReplayed,
  BatchWithLegs,
  CreateBatchBody,
  IdempotencyKeyHeaders,
} from './batches.js';
import {
  AttachCheckoutPayerBody,
  CheckoutAuthorizationBody,
  CheckoutPage,
  CheckoutPayment,
  CheckoutSession,
  CheckoutSessionList,
  CheckoutSessionListQuery,
  CreateCheckoutSessionBody,
} from './checkout.js';
import {
  CheckVerificationBody,
  CreateVerificationBody,
  IdentityProviderCallback,
  IdentityProviderCallbackHeaders,
  IdentityProviderCallbackResult,
  Verification,
} from './compliance.js';
import {
  ControlTemplate,
  ControlVerification,
  CreateControlTemplateBody,
  RiskReviewDecisionBody,
  VerifyControlCodeBody,
} from './controls.js';
import {
  CreateDisputeBody,
  Dispute,
  DisputeList,
  Evidence,
  ListDisputesQuery,
  ResolveDisputeBody,
  SubmitEvidenceBody,
} from './disputes.js';
import { definePaymentsEndpoint as endpoint } from './endpoint.js';
import { EVENT_STREAM_HEARTBEAT_MS, EVENT_STREAM_PATH, EventStreamHeaders, EventStreamQuery, EventStreamResponse } from './event-stream.js';
import {
  ChainMessageIdParams,
  DisputedClaim,
  DisputedClaimIdParams,
  DisputedClaimList,
  DisputedClaimQuery,
  MismatchList,
  MismatchQuery,
  OperatorActionBody,
  ReconciliationPass,
  ResolveDisputedClaimBody,
  SettlementIdParams,
  SettlementItem,
  SettlementItemList,
  SettlementItemQuery,
} from './operations.js';
import { EscrowAuthorizationBody, RelayResult } from './relayer.js';
import {
  RefundBody,
  ReleaseEarlyAttestBody,
  RescindBody,
  SubmitEscrowHashBody,
  SubmitHashBody,
  TransactionOperationResult,
} from './settlement.js';
import {
  AtRiskReport,
  CreatedTransaction,
  CreateTransactionBody,
  CreateTransactionHeaders,
  PaymentsTransaction,
  Quote,
  QuoteBody,
  TransactionList,
  TransactionListQuery,
  TransactionStats,
} from './transactions.js';
import {
  X402CheckoutHeaders,
  X402CheckoutPaid,
  X402CheckoutParams,
  X402PaymentRequired,
  X402Request,
  X402Settlement,
  X402SettlementParams,
  X402SettleResponse,
  X402SupportedResponse,
  X402VerifyResponse,
} from './x402.js';

/*
 * The Payments API, one entry per operation (method, path, documentation, schemas, answers, tier
 * and scopes), in the order the service serves them. A v2 entry names the v1 paths it succeeds
 * (`v1`): the service serves those as deprecated twins from the same entry (ADR 33). The v2
 * operation table (`PAYMENTS_V2_OPERATIONS`, docs/api/versions.md) is read from these entries.
 */

const IdParams = Type.Object({ id: Uuid });

// transactions (the static paths /at-risk, /stats, /quote, /batches win over /transactions/:id in the router)

export const createTransaction = endpoint({
  method: 'POST',
  path: '/api/v2/transactions',
  v1: ['/api/v1/transactions'],
  operationId: 'createTransaction',
  tags: ['transactions'],
  summary: 'Create a transaction',
  description:
    'Creates a transaction (`transaction.created` is its first event). An idempotency key (body `idempotencyKey` or header `Idempotency-Key`) makes retries safe: the same key with the same parameters answers the first result with `Idempotent-Replayed: true`; with other parameters 422. Without a key, the same sender, receiver, amount, currency and network within the duplicate window answers 409. At most TX_RATE_LIMIT_PER_SENDER (default 10) creations per minute per sender, batch legs included (429 with Retry-After). A control that sends a one-time code sends it once the creation committed (the codes outbox: an SMS gateway failure no longer fails the creation; no gateway configured: 503). See docs/transactions.md.',
  tier: 'standard',
  auth: { scopes: ['move:transactions'] },
  v1Auth: { anyScope: ['write:transactions', 'move:transactions'] },
  headers: CreateTransactionHeaders,
  body: CreateTransactionBody,
  response: { 201: CreatedTransaction },
  errors: [404, 409, 422, 503],
});

export const listTransactions = endpoint({
  method: 'GET',
  path: '/api/v2/transactions',
  v1: ['/api/v1/transactions'],
  operationId: 'listTransactions',
  tags: ['transactions'],
  summary: 'List transactions',
  description:
    'Newest first, `{data, pagination}`. Addresses match case-insensitively; `walletAddress` matches the sender or the receiver; a date `dateTo` includes that whole day.',
  tier: 'standard',
  auth: { scopes: ['read:transactions'] },
  querystring: TransactionListQuery,
  response: { 200: TransactionList },
});

export const getAtRiskTransactions = endpoint({
  method: 'GET',
  path: '/api/v2/transactions/at-risk',
  v1: ['/api/v1/transactions/at-risk'],
  operationId: 'getAtRiskTransactions',
  tags: ['transactions'],
  summary: 'At-risk report',
  description:
    'Per status (escrowed, in_review, pending_user_action, disputed): count, exact total amount, age of the oldest and counts aged over 24 h and 72 h, ages counted from entering the status.',
  tier: 'standard',
  auth: { scopes: ['read:transactions'] },
  response: { 200: AtRiskReport },
});

export const getTransactionStats = endpoint({
  method: 'GET',
  path: '/api/v2/transactions/stats',
  v1: ['/api/v1/transactions/stats'],
  operationId: 'getTransactionStats',
  tags: ['transactions'],
  summary: 'Statistics by status',
  description: 'Every status with `{count, total_amount}` (exact decimal string), zero when none.',
  tier: 'standard',
  auth: { scopes: ['read:transactions'] },
  response: { 200: TransactionStats },
});

export const getTransaction = endpoint({
  method: 'GET',
  path: '/api/v2/transactions/:id',
  v1: ['/api/v1/transactions/:id'],
  operationId: 'getTransaction',
  tags: ['transactions'],
  summary: 'Read a transaction',
  description: "Another platform's transaction answers 404.",
  tier: 'high',
  auth: { scopes: ['read:transactions'] },
  params: IdParams,
  response: { 200: PaymentsTransaction },
  errors: [404],
});

export const quoteTransaction = endpoint({
  method: 'POST',
  path: '/api/v2/transactions/quote',
  v1: ['/api/v1/transactions/quote'],
  operationId: 'quoteTransaction',
  tags: ['transactions'],
  summary: 'Fee quote',
  description:
    "The fee of an amount under `billingConfig` (or the platform's `settings.billing`; none = no fee). Valid until `expiresAt`; pass `quoteId` to one create with the same amount and currency.",
  tier: 'standard',
  auth: { scopes: ['write:transactions'] },
  body: QuoteBody,
  response: { 201: Quote },
});

// settlement: the on-chain operations of a transaction (spec "named only"), renamed on v2

const SETTLEMENT_DESIGN = 'Design: docs/settlement.md.';
/** v1 moved funds with `write:transactions` too. */
const V1_MOVE = { anyScope: ['write:transactions', 'move:transactions'] } as const;

export const submitTransactionHash = endpoint({
  method: 'POST',
  path: '/api/v2/transactions/:id/hash',
  v1: ['/api/v1/transactions/:id/submit-hash'],
  operationId: 'submitTransactionHash',
  tags: ['transactions'],
  summary: 'Submit the on-chain hash (raw)',
  description: `A raw transaction's ERC-20 transfer: its receipt is read on chain; a matching transfer completes the transaction, a reverted one fails it (one transaction only: 409 CONFLICT for a reverted hash that already failed another). 409 CHAIN_TRANSACTION_PENDING while it has no receipt or fewer confirmations than CHAIN_CONFIRMATIONS of its network (details.confirmations, details.required): submit it again later. ${SETTLEMENT_DESIGN}`,
  tier: 'standard',
  auth: { scopes: ['write:transactions'] },
  params: IdParams,
  body: SubmitHashBody,
  response: { 200: TransactionOperationResult },
  errors: [404, 409, 503],
});

export const submitEscrowHash = endpoint({
  method: 'POST',
  path: '/api/v2/transactions/:id/escrow-hash',
  v1: ['/api/v1/transactions/:id/submit-escrow-hash'],
  operationId: 'submitEscrowHash',
  tags: ['transactions'],
  summary: 'Submit the escrow hash',
  description: `The createEscrow (or createBatch) transaction: its EscrowCreated log for this transaction id must match the transaction; the transaction is escrowed once the receipt has the network's CHAIN_CONFIRMATIONS (before: 409 CHAIN_TRANSACTION_PENDING, submit it again later). ${SETTLEMENT_DESIGN}`,
  tier: 'standard',
  auth: { scopes: ['write:transactions'] },
  params: IdParams,
  body: SubmitEscrowHashBody,
  response: { 200: TransactionOperationResult },
  errors: [404, 409, 503],
});

const RELAYER_DESIGN =
  "The payer signs, Holdfast's relayer submits the escrow's creation from a key of its own and pays the gas (docs/checkout.md).";

export const relayEscrowAuthorization = endpoint({
  method: 'POST',
  path: '/api/v2/transactions/:id/escrow-authorization',
  operationId: 'relayEscrowAuthorization',
  tags: ['transactions'],
  summary: 'Fund the escrow with one signature (relayed)',
  description: `For a pending platform transaction: the payer's EIP-3009 authorization (\`authorization\`: ReceiveWithAuthorization in the token's domain, to = the escrow, nonce = the escrow's authorizationNonce of the transaction's terms) or EIP-2612 permit with the escrow's EscrowAuthorization (\`permit\`), over exactly the terms of the transaction's create answer (\`escrow\`). Checked before any gas is spent: signer, domain, terms, the validity window (valid for at least RELAYER_VALIDITY_MARGIN more), the nonce (unused on chain and here), the payer's balance, the platform's daily gas budget and a simulation; a refusal is 422 AUTHORIZATION_REFUSED with \`details.reason\` (or 429 RELAYER_BUDGET_EXHAUSTED) and nothing is sent. 202: the relayer's transaction is signed, stored and sent; the transaction moves to escrowed when it is mined. The same body again answers the same relay (200), never a second on-chain transaction; another body while a relay is live is 409. A token with neither standard: use approve + createEscrow and escrow-hash. ${RELAYER_DESIGN}`,
  tier: 'standard',
  auth: { scopes: ['move:transactions'] },
  params: IdParams,
  body: EscrowAuthorizationBody,
  response: { 202: RelayResult, 200: RelayResult },
  errors: [404, 409, 422, 429, 503],
});

export const getEscrowAuthorization = endpoint({
  method: 'GET',
  path: '/api/v2/transactions/:id/escrow-authorization',
  operationId: 'getEscrowAuthorization',
  tags: ['transactions'],
  summary: 'The relay of a transaction',
  description: `The relayed funding of the transaction (its status, current on-chain hash, relayer) and the transaction; 404 when none was sent. ${RELAYER_DESIGN}`,
  tier: 'standard',
  auth: { scopes: ['read:transactions'] },
  params: IdParams,
  response: { 200: RelayResult },
  errors: [404],
});

export const attestRelease = endpoint({
  method: 'POST',
  path: '/api/v2/transactions/:id/release/attest',
  v1: ['/api/v1/transactions/:id/authorize-release'],
  operationId: 'attestRelease',
  tags: ['transactions'],
  summary: 'Attest a release',
  description: `escrowed -> in_review; Holdfast's attester releases the escrow on chain once its hold has ended, and the chain event completes the transaction. Idempotent: the same platform's attest again, once in_review or completed, answers 200 with the transaction as it is (nothing is done twice); any other status is 409 INVALID_STATE_TRANSITION. ${SETTLEMENT_DESIGN}`,
  idempotent: true,
  tier: 'standard',
  auth: { scopes: ['move:transactions'] },
  v1Auth: V1_MOVE,
  params: IdParams,
  response: { 200: TransactionOperationResult },
  errors: [404, 409, 503],
});

export const attestEarlyRelease = endpoint({
  method: 'POST',
  path: '/api/v2/transactions/:id/release-early/attest',
  v1: [
    '/api/v1/transactions/:id/release-early/authorize',
    { path: '/api/v1/transactions/:id/release-early/attest', operationId: 'attestEarlyReleaseAliasV1' },
  ],
  operationId: 'attestEarlyRelease',
  tags: ['transactions'],
  summary: 'Attest an early release',
  description: `Records a party's consent to an early release (verified on chain when its attestEarlyRelease hash is given, once the receipt has the network's CHAIN_CONFIRMATIONS; before: 409 CHAIN_TRANSACTION_PENDING; the same party's hash again: 200). The escrow pays the receiver when both consents are on chain. ${SETTLEMENT_DESIGN}`,
  idempotent: true,
  tier: 'standard',
  auth: { scopes: ['move:transactions'] },
  v1Auth: V1_MOVE,
  params: IdParams,
  body: ReleaseEarlyAttestBody,
  response: { 200: TransactionOperationResult },
  errors: [404, 409, 503],
});

export const rescindTransaction = endpoint({
  method: 'POST',
  path: '/api/v2/transactions/:id/rescind',
  v1: ['/api/v1/transactions/:id/rescind'],
  operationId: 'rescindTransaction',
  tags: ['transactions'],
  summary: 'Rescind within the hold period',
  description: `With the sender's rescind txHash: verified on chain, rescinded once its receipt has the network's CHAIN_CONFIRMATIONS (200; before: 409 CHAIN_TRANSACTION_PENDING). The hash that already rescinded it again: 200 with the transaction (idempotent). Without: the request is recorded (202) and the transaction is rescinded when the chain shows the sender's rescind. 409 HOLD_PERIOD_ENDED after the deadline. ${SETTLEMENT_DESIGN}`,
  idempotent: true,
  tier: 'standard',
  auth: { scopes: ['reverse:transactions'] },
  v1Auth: { anyScope: ['rescind:transactions', 'reverse:transactions'] },
  params: IdParams,
  body: RescindBody,
  response: { 200: TransactionOperationResult, 202: TransactionOperationResult },
  errors: [404, 409, 503],
});

export const refundTransaction = endpoint({
  method: 'POST',
  path: '/api/v2/transactions/:id/refund',
  v1: ['/api/v1/transactions/:id/refund'],
  operationId: 'refundTransaction',
  tags: ['transactions'],
  summary: 'Refund',
  description: `escrowed, in_review or disputed -> refunded (transaction.refunded); Holdfast's attester returns the funds on chain. Idempotent: the same platform's refund again, once refunded (on chain or still being returned), answers 200 with the transaction as it is (nothing is done twice); any other status, or a refund made by a dispute resolution, is 409 INVALID_STATE_TRANSITION. ${SETTLEMENT_DESIGN}`,
  idempotent: true,
  tier: 'standard',
  auth: { scopes: ['reverse:transactions'] },
  v1Auth: { anyScope: ['cancel:transactions', 'reverse:transactions'] },
  params: IdParams,
  body: RefundBody,
  response: { 200: TransactionOperationResult },
  errors: [404, 409, 503],
});

// batches: v1 paths are the spec's (`/transactions/batch`), v2 renamed them (`/transactions/batches`)

export const createBatch = endpoint({
  method: 'POST',
  path: '/api/v2/transactions/batches',
  v1: ['/api/v1/transactions/batch'],
  operationId: 'createBatch',
  tags: ['batches'],
  summary: 'Create a batch',
  description:
    'Creates the batch and one transaction per leg in one atomic operation: any invalid leg writes nothing (400 naming the leg, e.g. `legs.3.amount`). `signerType` must be `external_wallet`. 1 to MAX_BATCH_LEGS legs (100 by default). A known `idempotencyKey` (or `Idempotency-Key` header) answers the existing batch with 200 and `Idempotent-Replayed: true`; with other parameters 422 `IDEMPOTENCY_KEY_REUSED`. Each leg counts toward the sender’s per-minute limit (TX_RATE_LIMIT_PER_SENDER: 429) and the duplicate window (409 `DUPLICATE_TRANSACTION` naming the leg) like a single transaction. Then the client signs the batch escrow call with each leg’s `onchainId` (see `nextAction`).',
  tier: 'standard',
  auth: { scopes: ['move:transactions'] },
  v1Auth: V1_MOVE,
  headers: IdempotencyKeyHeaders,
  body: CreateBatchBody,
  response: { 201: BatchCreated, 200: BatchReplayed },
  errors: [404, 409, 422],
});

export const listBatches = endpoint({
  method: 'GET',
  path: '/api/v2/transactions/batches',
  v1: ['/api/v1/transactions/batch'],
  operationId: 'listBatches',
  tags: ['batches'],
  summary: 'List batches',
  description:
    'The platform’s batches, newest first, filtered by `status`, `fromAddress` (any case), `customerId` and creation time (`dateFrom`, `dateTo`, inclusive). Legs are not embedded: read one batch for them.',
  tier: 'standard',
  auth: { scopes: ['read:transactions'] },
  querystring: BatchListQuery,
  response: { 200: BatchList },
});

export const getBatch = endpoint({
  method: 'GET',
  path: '/api/v2/transactions/batches/:id',
  v1: ['/api/v1/transactions/batch/:id'],
  operationId: 'getBatch',
  tags: ['batches'],
  summary: 'Read a batch',
  description: 'The batch with its legs in leg order. Another platform’s batch answers 404.',
  tier: 'high',
  auth: { scopes: ['read:transactions'] },
  params: IdParams,
  response: { 200: BatchWithLegs },
  errors: [404],
});

// disputes (spec "Payments API: disputes"), each scoped to the calling platform; rules in docs/disputes.md

export const listDisputes = endpoint({
  method: 'GET',
  path: '/api/v2/disputes',
  v1: ['/api/v1/disputes'],
  operationId: 'listDisputes',
  tags: ['disputes'],
  summary: 'List disputes',
  description: "The platform's disputes, newest first, each with its evidence.",
  tier: 'standard',
  auth: { scopes: ['read:disputes'] },
  querystring: ListDisputesQuery,
  response: { 200: DisputeList },
});

export const createDispute = endpoint({
  method: 'POST',
  path: '/api/v2/disputes',
  v1: ['/api/v1/disputes'],
  operationId: 'createDispute',
  tags: ['disputes'],
  summary: 'Open a dispute',
  description:
    'Opens a dispute on an escrowed or in-review transaction, at `tier_1_smart_contract`; the transaction becomes `disputed`. One dispute per transaction.',
  idempotent: true,
  tier: 'standard',
  auth: { scopes: ['write:disputes'] },
  body: CreateDisputeBody,
  response: { 201: Dispute },
  errors: [404, 409],
});

export const getDispute = endpoint({
  method: 'GET',
  path: '/api/v2/disputes/:id',
  v1: ['/api/v1/disputes/:id'],
  operationId: 'getDispute',
  tags: ['disputes'],
  summary: 'Read a dispute',
  tier: 'high',
  auth: { scopes: ['read:disputes'] },
  params: IdParams,
  response: { 200: Dispute },
  errors: [404],
});

export const escalateDispute = endpoint({
  method: 'POST',
  path: '/api/v2/disputes/:id/escalate',
  v1: ['/api/v1/disputes/:id/escalate'],
  operationId: 'escalateDispute',
  tags: ['disputes'],
  summary: 'Escalate a dispute',
  description: 'Moves the dispute to the next tier. 400 `HIGHEST_TIER_REACHED` at `tier_3_arbitration`, `DISPUTE_RESOLVED` once resolved.',
  idempotent: true,
  tier: 'standard',
  auth: { scopes: ['write:disputes'] },
  params: IdParams,
  response: { 200: Dispute },
  errors: [404],
});

export const submitDisputeEvidence = endpoint({
  method: 'POST',
  path: '/api/v2/disputes/:id/evidence',
  v1: ['/api/v1/disputes/:id/evidence'],
  operationId: 'submitDisputeEvidence',
  tags: ['disputes'],
  summary: 'Submit evidence',
  description: 'Adds evidence to an unresolved dispute (400 `DISPUTE_RESOLVED` once resolved).',
  idempotent: true,
  tier: 'standard',
  auth: { scopes: ['submit:evidence'] },
  params: IdParams,
  body: SubmitEvidenceBody,
  response: { 201: Evidence },
  errors: [404],
});

export const resolveDispute = endpoint({
  method: 'POST',
  path: '/api/v2/disputes/:id/resolve',
  v1: ['/api/v1/disputes/:id/resolve'],
  operationId: 'resolveDispute',
  tags: ['disputes'],
  summary: 'Resolve a dispute',
  description:
    '`favor_receiver` completes the transaction; `favor_sender` and `partial_refund` refund it (the escrow settles the share on chain). 400 `DISPUTE_RESOLVED` when already resolved.',
  idempotent: true,
  tier: 'standard',
  auth: { scopes: ['write:disputes'] },
  params: IdParams,
  body: ResolveDisputeBody,
  response: { 200: Dispute },
  errors: [404, 409],
});

// compliance (spec "Payments API: compliance"): v1 keeps the spec's doubled prefix exactly, v2 drops it

export const createVerification = endpoint({
  method: 'POST',
  path: '/api/v2/compliance/verifications',
  v1: ['/api/v1/api/v1/compliance/verifications'],
  operationId: 'createVerification',
  tags: ['compliance'],
  summary: 'Create a verification',
  description:
    "Opens an inquiry at the identity provider for one of your users and answers the verification, `pending`, with the provider's `externalInquiryId` and `externalSessionToken` (hand the token to the provider's SDK). The provider's callbacks move its status. When the provider refuses or cannot be reached (502 `INTEGRATION_PROVIDER_ERROR`, `details.retryable` says whether to try again), nothing is stored.",
  tier: 'standard',
  auth: { scopes: ['write:compliance'] },
  body: CreateVerificationBody,
  response: { 201: Verification },
  errors: [502],
});

export const checkVerification = endpoint({
  method: 'POST',
  path: '/api/v2/compliance/verifications/check',
  v1: ['/api/v1/api/v1/compliance/verifications/check'],
  operationId: 'checkVerification',
  tags: ['compliance'],
  summary: 'Check a verification',
  description:
    'Your latest verification of the user and type (the most recently created, whatever its status); 404 when there is none. Changes nothing.',
  tier: 'standard',
  auth: { scopes: ['write:compliance'] },
  body: CheckVerificationBody,
  response: { 200: Verification },
  errors: [404],
});

export const getVerification = endpoint({
  method: 'GET',
  path: '/api/v2/compliance/verifications/:id',
  v1: ['/api/v1/api/v1/compliance/verifications/:id'],
  operationId: 'getVerification',
  tags: ['compliance'],
  summary: 'Read a verification',
  description: "One of your platform's verifications; another platform's answers 404.",
  tier: 'high',
  auth: { scopes: ['read:compliance'] },
  params: IdParams,
  response: { 200: Verification },
  errors: [404],
});

export const identityProviderCallback = endpoint({
  method: 'POST',
  path: '/api/v2/compliance/webhooks/identity-provider',
  v1: ['/api/v1/api/v1/compliance/webhooks/identity-provider'],
  operationId: 'identityProviderCallback',
  tags: ['compliance'],
  summary: 'Identity provider callback',
  description: [
    'Called by the identity provider, not by platforms: no credential, but the body must be signed.',
    '`X-Identity-Provider-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed by IDENTITY_PROVIDER_WEBHOOK_SECRET>`;',
    'a missing, malformed, wrong or stale (more than 300 s off) signature answers 401 and changes nothing.',
    'A processed `eventId` answers 200 `duplicate` again and changes nothing; an unknown inquiry answers 404 (the provider retries). See docs/api/compliance.md.',
  ].join(' '),
  tier: 'public',
  auth: 'none',
  security: [],
  headers: IdentityProviderCallbackHeaders,
  body: IdentityProviderCallback,
  response: { 200: IdentityProviderCallbackResult },
  errors: [401, 404],
});

// controls (spec "Controls (K)"), and, beyond the spec, the template library and risk-review decisions (v1)

const CONTROL_CODE_DESCRIPTION =
  "Checks the 6-digit code the transaction's control sent by SMS. A right code answers the verification (`status: approved`) and moves the transaction from `pending_user_action` back to `pending`, then runs the controls after it. A wrong code answers 400 `INVALID_CODE` with `details.attemptsRemaining`; after the last attempt, or once the code expired (400 `INVALID_CODE`, `details.reason: expired`), a required control fails the transaction. 409 when the transaction has no open code of this kind; 404 for another platform's transaction.";

export const verifyTwoFactor = endpoint({
  method: 'POST',
  path: '/api/v2/controls/verify-2fa',
  v1: ['/api/v1/controls/verify-2fa'],
  operationId: 'verifyTwoFactor',
  tags: ['controls'],
  summary: 'Verify a two-factor code',
  description: CONTROL_CODE_DESCRIPTION,
  tier: 'standard',
  auth: { scopes: ['write:transactions'] },
  body: VerifyControlCodeBody,
  response: { 200: ControlVerification },
  errors: [404, 409],
});

export const verifyVendorSms = endpoint({
  method: 'POST',
  path: '/api/v2/controls/vendor-sms/verify',
  v1: ['/api/v1/controls/verify-vendor-sms'],
  operationId: 'verifyVendorSms',
  tags: ['controls'],
  summary: 'Verify a vendor SMS code',
  description: CONTROL_CODE_DESCRIPTION,
  tier: 'standard',
  auth: { scopes: ['write:transactions'] },
  body: VerifyControlCodeBody,
  response: { 200: ControlVerification },
  errors: [404, 409],
});

export const createControlTemplate = endpoint({
  method: 'POST',
  path: '/api/v1/controls/templates',
  operationId: 'createControlTemplateV1',
  tags: ['controls'],
  summary: 'Create a control template',
  description:
    "Beyond the spec: the template library a transaction's `templateId` refers to (v1 only; v2 transactions use the `templateId` of templates created here). See docs/controls.md for each control type's `config`.",
  deprecated: true,
  tier: 'standard',
  auth: { scopes: ['write:templates'] },
  body: CreateControlTemplateBody,
  response: { 201: ControlTemplate },
});

export const listControlTemplates = endpoint({
  method: 'GET',
  path: '/api/v1/controls/templates',
  operationId: 'listControlTemplatesV1',
  tags: ['controls'],
  summary: "List the platform's control templates",
  description: 'Beyond the spec (v1 only). Newest first, at most 500.',
  deprecated: true,
  tier: 'standard',
  auth: { anyScope: ['read:templates', 'write:templates'] },
  response: { 200: Type.Array(ControlTemplate) },
});

export const getControlTemplate = endpoint({
  method: 'GET',
  path: '/api/v1/controls/templates/:id',
  operationId: 'getControlTemplateV1',
  tags: ['controls'],
  summary: 'Read a control template',
  description: "Beyond the spec (v1 only). Another platform's template answers 404.",
  deprecated: true,
  tier: 'standard',
  auth: { anyScope: ['read:templates', 'write:templates'] },
  params: IdParams,
  response: { 200: ControlTemplate },
  errors: [404],
});

export const decideRiskReview = endpoint({
  method: 'POST',
  path: '/api/v1/controls/reviews/:transactionId',
  operationId: 'decideRiskReviewV1',
  tags: ['controls'],
  summary: 'Decide a risk review',
  description:
    'Beyond the spec (v1 only, operators): approve (back to `pending`, then the controls after the review) or reject (`failed`, `transaction.failed` with the reason) a transaction in `risk_review`. 409 `INVALID_STATE_TRANSITION` when it is not in review.',
  deprecated: true,
  tier: 'admin',
  auth: { scopes: ['admin:platform'] },
  params: Type.Object({ transactionId: Uuid }),
  body: RiskReviewDecisionBody,
  response: { 200: PaymentsTransaction },
  errors: [404, 409],
});

// platforms and API keys (spec "Payments API: platform and keys"); API keys are v1 credentials, the reads also on v2

export const createApiKey = endpoint({
  method: 'POST',
  path: '/api/v1/auth/api-key',
  operationId: 'createApiKeyV1',
  tags: ['platforms'],
  summary: 'Create a platform and its API key',
  description: 'The key is shown once in this answer; Holdfast stores only its hash. Without `scopes`, the key gets the read-only scopes.',
  tier: 'admin',
  auth: { scopes: ['admin:platform'] },
  body: CreateApiKeyBody,
  response: { 201: ApiKeyCreated },
});

export const regenerateApiKey = endpoint({
  method: 'POST',
  path: '/api/v1/auth/api-key/regenerate',
  operationId: 'regenerateApiKeyV1',
  tags: ['platforms'],
  summary: "Regenerate a platform's API key",
  description:
    'Issues a new key (shown once) and revokes the old one at once, on every instance within a second. Your own platform with `manage:api-keys`, any platform with `admin:platform`.',
  tier: 'admin',
  auth: { anyScope: ['manage:api-keys', 'admin:platform'] },
  body: RegenerateApiKeyBody,
  response: { 200: ApiKeyCreated },
  errors: [404],
});

export const verifyApiKey = endpoint({
  method: 'POST',
  path: '/api/v1/auth/verify',
  operationId: 'verifyApiKeyV1',
  tags: ['platforms'],
  summary: 'Verify an API key',
  description:
    'Says whether the key in `X-API-Key` is valid: `valid` is true only for the current key of an active platform. An unknown key answers `valid: false` with null ids.',
  tier: 'public',
  auth: 'none',
  security: [{ apiKey: [] }],
  response: { 200: VerifyApiKeyResult },
  errors: [401],
});

export const listScopes = endpoint({
  method: 'GET',
  path: '/api/v2/auth/scopes',
  v1: ['/api/v1/auth/scopes'],
  operationId: 'listScopes',
  tags: ['platforms'],
  summary: 'List the scopes',
  description: 'Every scope, what it grants, its Workspace API form, and whether API keys and v2 accept it.',
  tier: 'public',
  auth: 'none',
  response: { 200: ScopeCatalogue },
});

export const getOwnPlatform = endpoint({
  method: 'GET',
  path: '/api/v2/auth/platform/me',
  v1: ['/api/v1/auth/platform/me'],
  operationId: 'getOwnPlatform',
  tags: ['platforms'],
  summary: 'The platform of the calling credential',
  tier: 'standard',
  auth: { scopes: [] },
  response: { 200: Platform },
});

export const listPlatforms = endpoint({
  method: 'GET',
  path: '/api/v2/auth/platforms',
  v1: ['/api/v1/auth/platforms'],
  operationId: 'listPlatforms',
  tags: ['platforms'],
  summary: 'List platforms',
  description: 'Every platform, newest first, active or not; `workspaceId` narrows to one workspace.',
  tier: 'admin',
  auth: { scopes: ['admin:platform'] },
  querystring: PlatformListQuery,
  response: { 200: Type.Array(Platform) },
});

export const getPlatform = endpoint({
  method: 'GET',
  path: '/api/v2/auth/platform/:id',
  v1: ['/api/v1/auth/platform/:id'],
  operationId: 'getPlatform',
  tags: ['platforms'],
  summary: 'Read a platform',
  description: 'Your own platform with `read:platform`; any platform with `admin:platform`. Others answer 404.',
  tier: 'admin',
  auth: { anyScope: ['read:platform', 'admin:platform'] },
  params: IdParams,
  response: { 200: Platform },
  errors: [404],
});

export const updatePlatform = endpoint({
  method: 'PUT',
  path: '/api/v2/auth/platform/:id',
  v1: ['/api/v1/auth/platform/:id'],
  operationId: 'updatePlatform',
  tags: ['platforms'],
  summary: 'Update a platform',
  description:
    'Your own platform with `write:platform` (name, webhookUrl, settings); any platform and also `scopes` and `isActive` with `admin:platform`. `isActive: false` stops the key and revokes its tokens at once. New scopes apply to the key at once.',
  tier: 'admin',
  auth: { anyScope: ['write:platform', 'admin:platform'] },
  params: IdParams,
  body: UpdatePlatformBody,
  response: { 200: Platform },
  errors: [404],
});

export const deactivatePlatform = endpoint({
  method: 'DELETE',
  path: '/api/v2/auth/platform/:id',
  v1: ['/api/v1/auth/platform/:id'],
  operationId: 'deactivatePlatform',
  tags: ['platforms'],
  summary: 'Deactivate a platform',
  description:
    'Soft delete: the platform stays readable with `isActive: false`, its API key stops working and its OAuth tokens are revoked, on every instance within a second. `PUT` with `isActive: true` brings the key back (not the tokens).',
  tier: 'admin',
  auth: { scopes: ['admin:platform'] },
  params: IdParams,
  response: { 204: Type.Null({ description: 'Deactivated' }) },
  errors: [404],
});

// webhooks: the eleven operations of "Payments API: webhooks, v1 only", forwarded to the webhook-dispatcher

const WEBHOOKS_TAG = 'webhooks (v1)';
const WEBHOOKS_READ = { scopes: ['read:webhooks'] } as const;
const WEBHOOKS_WRITE = { scopes: ['write:webhooks'] } as const;
const DISPATCHER_UNAVAILABLE =
  'Answers 503 `UPSTREAM_UNAVAILABLE` (with `Retry-After`) when the webhook dispatcher does not answer; nothing changed then, or the change is not known: read the subscription again before retrying a create.';
const WEBHOOKS_V1_ONLY =
  'v1 only: v2 has no webhook operations. A platform manages its own subscriptions here until the v1 sunset; the same operations (and replay, resend) live on the Workspace API under `/api/v1/workspaces/{workspaceId}/webhooks`, where subscriptions belong to the workspace (see docs/api/versions.md).';

export const listWebhooks = endpoint({
  method: 'GET',
  path: '/api/v1/webhooks',
  operationId: 'listWebhooksV1',
  tags: [WEBHOOKS_TAG],
  summary: 'List webhook subscriptions',
  description: `Your platform's subscriptions, newest first. \`isActive\` (\`true\`/\`false\`) and \`eventType\` filter them; an unknown \`eventType\` answers 400 \`INVALID_EVENT_TYPES\`. Secrets are never listed. ${WEBHOOKS_V1_ONLY}`,
  deprecated: true,
  tier: 'standard',
  auth: WEBHOOKS_READ,
  querystring: PaymentsWebhookListQuery,
  response: { 200: Type.Array(WebhookSubscription) },
  errors: [503],
});

export const createWebhook = endpoint({
  method: 'POST',
  path: '/api/v1/webhooks',
  operationId: 'createWebhookV1',
  tags: [WEBHOOKS_TAG],
  summary: 'Create a webhook subscription',
  description: `Answers the subscription with its \`secret\` (\`whsec_…\`), shown only in this answer and in rotate-secret's. Unknown event types answer 400 \`INVALID_EVENT_TYPES\` (\`details.invalidEventTypes\`, \`details.validEventTypes\`); outside local, URLs on loopback, private or link-local addresses answer 400 \`VALIDATION_ERROR\`. At most 100 subscriptions per platform (409). ${DISPATCHER_UNAVAILABLE}`,
  deprecated: true,
  tier: 'admin',
  auth: WEBHOOKS_WRITE,
  body: CreateWebhookBody,
  response: { 201: WebhookSubscriptionWithSecret },
  errors: [409, 503],
});

export const listWebhookEventTypes = endpoint({
  method: 'GET',
  path: '/api/v1/webhooks/events/types',
  operationId: 'listWebhookEventTypesV1',
  tags: [WEBHOOKS_TAG],
  summary: 'Event types a subscription may name',
  description: 'The current list. New types are added over time and reach only the subscriptions that name them.',
  deprecated: true,
  tier: 'standard',
  auth: WEBHOOKS_READ,
  response: { 200: WebhookEventTypeList },
});

export const getWebhook = endpoint({
  method: 'GET',
  path: '/api/v1/webhooks/:id',
  operationId: 'getWebhookV1',
  tags: [WEBHOOKS_TAG],
  summary: 'Read a webhook subscription',
  description: "With its circuit breaker and rotation state; another platform's subscription answers 404.",
  deprecated: true,
  tier: 'standard',
  auth: WEBHOOKS_READ,
  params: WebhookIdParams,
  response: { 200: WebhookSubscription },
  errors: [404, 503],
});

export const updateWebhook = endpoint({
  method: 'PATCH',
  path: '/api/v1/webhooks/:id',
  operationId: 'updateWebhookV1',
  tags: [WEBHOOKS_TAG],
  summary: 'Change a webhook subscription',
  description: `Changes the fields sent; \`metadata\` is replaced whole. \`isActive: false\` pauses deliveries, \`true\` resumes them (also after a receiver's 410). ${DISPATCHER_UNAVAILABLE}`,
  deprecated: true,
  tier: 'admin',
  auth: WEBHOOKS_WRITE,
  params: WebhookIdParams,
  body: UpdateWebhookBody,
  response: { 200: WebhookSubscription },
  errors: [404, 503],
});

export const deleteWebhook = endpoint({
  method: 'DELETE',
  path: '/api/v1/webhooks/:id',
  operationId: 'deleteWebhookV1',
  tags: [WEBHOOKS_TAG],
  summary: 'Delete a webhook subscription',
  description: `Deletes the subscription with its pending deliveries and its logs. ${DISPATCHER_UNAVAILABLE}`,
  deprecated: true,
  tier: 'admin',
  auth: WEBHOOKS_WRITE,
  params: WebhookIdParams,
  response: { 200: WebhookDeleted },
  errors: [404, 503],
});

export const listWebhookDeliveryLogs = endpoint({
  method: 'GET',
  path: '/api/v1/webhooks/:id/delivery-logs',
  operationId: 'listWebhookDeliveryLogsV1',
  tags: [WEBHOOKS_TAG],
  summary: 'Delivery attempts of a subscription',
  description:
    'Every attempt, newest first, as `{logs, total}`: `limit` 1 to 100 (default 20), `offset`, `successOnly` or `failuresOnly` (not both). Kept 30 days.',
  deprecated: true,
  tier: 'standard',
  auth: WEBHOOKS_READ,
  params: WebhookIdParams,
  querystring: DeliveryLogsQuery,
  response: { 200: WebhookDeliveryLogList },
  errors: [404, 503],
});

export const rotateWebhookSecret = endpoint({
  method: 'POST',
  path: '/api/v1/webhooks/:id/rotate-secret',
  operationId: 'rotateWebhookSecretV1',
  tags: [WEBHOOKS_TAG],
  summary: "Rotate a subscription's secret",
  description:
    'Answers the new `secret` (shown once). Until complete-rotation, deliveries carry a signature with the new and one with the previous secret.',
  deprecated: true,
  tier: 'admin',
  auth: WEBHOOKS_WRITE,
  params: WebhookIdParams,
  response: { 200: WebhookSubscriptionWithSecret },
  errors: [404, 503],
});

export const completeWebhookRotation = endpoint({
  method: 'POST',
  path: '/api/v1/webhooks/:id/complete-rotation',
  operationId: 'completeWebhookRotationV1',
  tags: [WEBHOOKS_TAG],
  summary: 'Retire the previous secret',
  description: 'Deliveries are signed with the newest secret only. Without a rotation in progress: 400 `NO_ROTATION_IN_PROGRESS`.',
  deprecated: true,
  tier: 'admin',
  auth: WEBHOOKS_WRITE,
  params: WebhookIdParams,
  response: { 200: WebhookSubscription },
  errors: [404, 503],
});

export const resetWebhookCircuitBreaker = endpoint({
  method: 'POST',
  path: '/api/v1/webhooks/:id/reset-circuit-breaker',
  operationId: 'resetWebhookCircuitBreakerV1',
  tags: [WEBHOOKS_TAG],
  summary: "Close a subscription's circuit",
  description: 'Forces the circuit breaker CLOSED (failure count 0, any `Retry-After` pause lifted); queued deliveries go out.',
  deprecated: true,
  tier: 'admin',
  auth: WEBHOOKS_WRITE,
  params: WebhookIdParams,
  response: { 200: WebhookSubscription },
  errors: [404, 503],
});

export const testWebhook = endpoint({
  method: 'POST',
  path: '/api/v1/webhooks/:id/test',
  operationId: 'testWebhookV1',
  tags: [WEBHOOKS_TAG],
  summary: 'Send a test delivery',
  description:
    "Sends one signed `webhook.test` delivery now, waits for the receiver (up to 30 s) and answers the attempt's log entry. A failing receiver is a 200 with `success: false`. Not retried; works on an inactive subscription or an open circuit.",
  deprecated: true,
  tier: 'admin',
  auth: WEBHOOKS_WRITE,
  params: WebhookIdParams,
  response: { 200: WebhookDeliveryLog },
  errors: [404, 503],
});

// operations: the operator routes of the reconciler and of settlement (admin scope; v1, where the admin credential is an API key)

const OPERATOR = { scopes: ['admin:platform'] } as const;

export const listReconciliationMismatches = endpoint({
  method: 'GET',
  path: '/api/v1/admin/reconciliation/mismatches',
  operationId: 'listReconciliationMismatches',
  tags: ['operations'],
  summary: 'Differences between the books and the escrow contract',
  description:
    'What the reconciler found, newest first: kind, transaction (and batch), the status in the books, the escrow status on chain, since when (`firstSeenAt`) and, once resolved, how (`repaired` by the reconciler, or `cleared`: the difference went away). Open ones by default (`open=false`: all). See docs/settlement.md, Reconciliation.',
  tier: 'admin',
  auth: OPERATOR,
  querystring: MismatchQuery,
  response: { 200: MismatchList },
});

export const runReconciliation = endpoint({
  method: 'POST',
  path: '/api/v1/admin/reconciliation/run',
  operationId: 'runReconciliation',
  tags: ['operations'],
  summary: 'Run a reconciliation pass now',
  description:
    'Compares every escrowed transaction and batch leg (and the settled ones within RECONCILIATION_LOOKBACK) with the escrow contract now, as the periodic pass does, and answers what it found. 409 while another instance runs a pass.',
  tier: 'admin',
  auth: OPERATOR,
  response: { 200: ReconciliationPass },
  errors: [409],
});

const SETTLEMENT_RUNBOOK = 'Operator runbook: docs/settlement.md.';

export const listSettlementItems = endpoint({
  method: 'GET',
  path: '/api/v1/admin/settlement/items',
  operationId: 'listSettlementItems',
  tags: ['operations'],
  summary: 'Settlement items that need a person',
  description: `Settlement instructions \`failed\` (retries used up) or \`superseded\` (the chain settled the escrow otherwise), and CHAIN messages \`conflict\`, \`rejected\` or \`correction_unapplied\`, newest first, each with its operator actions. Resolved items only with \`includeResolved=true\`. ${SETTLEMENT_RUNBOOK}`,
  tier: 'admin',
  auth: OPERATOR,
  querystring: SettlementItemQuery,
  response: { 200: SettlementItemList },
});

export const retrySettlement = endpoint({
  method: 'POST',
  path: '/api/v1/admin/settlement/settlements/:id/retry',
  operationId: 'retrySettlement',
  tags: ['operations'],
  summary: 'Retry a failed settlement instruction',
  description: `A \`failed\` instruction goes back to \`pending\` with a fresh attempt budget; the settlement worker reads the escrow again before sending (idempotent). \`reason\` is kept with who acted. 409 for any other status (a \`superseded\` one is resolved, not retried). ${SETTLEMENT_RUNBOOK}`,
  tier: 'admin',
  auth: OPERATOR,
  params: SettlementIdParams,
  body: OperatorActionBody,
  response: { 200: SettlementItem },
  errors: [404, 409],
});

export const resolveSettlement = endpoint({
  method: 'POST',
  path: '/api/v1/admin/settlement/settlements/:id/resolve',
  operationId: 'resolveSettlement',
  tags: ['operations'],
  summary: 'Resolve a settlement instruction',
  description: `Marks a \`failed\` or \`superseded\` instruction as dealt with by a person (it leaves the list; its status is kept as the record). \`reason\` is kept with who acted. 409 when it needs no operator or is resolved. ${SETTLEMENT_RUNBOOK}`,
  tier: 'admin',
  auth: OPERATOR,
  params: SettlementIdParams,
  body: OperatorActionBody,
  response: { 200: SettlementItem },
  errors: [404, 409],
});

export const resolveChainMessage = endpoint({
  method: 'POST',
  path: '/api/v1/admin/settlement/chain-messages/:messageId/resolve',
  operationId: 'resolveChainMessage',
  tags: ['operations'],
  summary: 'Resolve a CHAIN message payments could not apply',
  description: `Marks a \`conflict\`, \`rejected\` or \`correction_unapplied\` CHAIN message as dealt with (it is not applied again: fix the transaction first, e.g. through a dispute or the reconciler, then resolve). \`reason\` is kept with who acted. 409 when it needs no operator or is resolved. ${SETTLEMENT_RUNBOOK}`,
  tier: 'admin',
  auth: OPERATOR,
  params: ChainMessageIdParams,
  body: OperatorActionBody,
  response: { 200: SettlementItem },
  errors: [404, 409],
});

export const listDisputedClaims = endpoint({
  method: 'GET',
  path: '/api/v1/admin/settlement/disputed-claims',
  operationId: 'listDisputedClaims',
  tags: ['operations'],
  summary: 'Plain transfers claimed by several platforms',
  description: `A plain ERC-20 transfer names no transaction, so raw transactions of different platforms with the same terms may each claim it with submit-hash: each completes, and the log is a disputed claim. Open ones by default (\`status=resolved\`: the resolved ones), newest first, with every claim and its transaction's status. A transfer made with the escrow's \`pay\` names its transaction and is never disputed. ${SETTLEMENT_RUNBOOK}`,
  tier: 'admin',
  auth: OPERATOR,
  querystring: DisputedClaimQuery,
  response: { 200: DisputedClaimList },
});

export const resolveDisputedClaim = endpoint({
  method: 'POST',
  path: '/api/v1/admin/settlement/disputed-claims/:id/resolve',
  operationId: 'resolveDisputedClaim',
  tags: ['operations'],
  summary: 'Resolve a disputed claim by naming the transaction the transfer paid',
  description: `\`rightfulTransactionId\` keeps its completion; every other claiming transaction still completed moves to \`failed\` (\`void_transfer\`, \`transaction.failed\` with \`reason\`, webhooks follow), in one database transaction with the resolution and who acted. 400 when \`rightfulTransactionId\` did not claim the transfer; 404 for an unknown claim; 409 when it is already resolved. ${SETTLEMENT_RUNBOOK}`,
  tier: 'admin',
  auth: OPERATOR,
  params: DisputedClaimIdParams,
  body: ResolveDisputedClaimBody,
  response: { 200: DisputedClaim },
  errors: [404, 409],
});

// OAuth 2.0 (spec "Payments API: OAuth"): clients (v1), RFC 8414 metadata, tokens, revocation, introspection

/** Token, revocation and introspection take JSON or a form (RFC 6749), documented and validated per Content-Type. */
const jsonOrForm = <J extends TSchema, F extends TSchema>(json: J, form: F) => ({
  content: { 'application/json': { schema: json }, 'application/x-www-form-urlencoded': { schema: form } },
});
/** JSON requests get the error envelope, form requests the RFC 6749 §5.2 error. */
const OAUTH_ERRORS = {
  400: Type.Union([Type.Ref(ErrorEnvelope), OAuthErrorResponse], {
    description: 'Envelope for JSON requests, RFC 6749 §5.2 error for form requests.',
  }),
  401: Type.Union([Type.Ref(ErrorEnvelope), OAuthErrorResponse], { description: 'Client authentication failed (invalid_client).' }),
};
/** Client authentication in the body (no scheme) or by HTTP Basic. */
const OAUTH_CLIENT: readonly Record<string, readonly string[]>[] = [{}, { clientBasic: [] }];

export const createOAuthClient = endpoint({
  method: 'POST',
  path: '/api/v1/oauth/clients',
  operationId: 'createOAuthClientV1',
  tags: ['oauth'],
  summary: 'Create an OAuth client',
  description:
    'A client of `platformId` (default: the calling platform). The secret is shown once. On v2, OAuth clients are managed on the Workspace API.',
  deprecated: true,
  tier: 'admin',
  auth: { scopes: ['admin:platform'] },
  body: CreateOAuthClientBody,
  response: { 201: OAuthClientWithSecret },
  errors: [404, 409],
});

export const revokeAllClientTokens = endpoint({
  method: 'POST',
  path: '/api/v1/oauth/clients/:clientId/revoke-all-tokens',
  operationId: 'revokeAllClientTokensV1',
  tags: ['oauth'],
  summary: "Revoke all of a client's tokens",
  description: 'Every unexpired token of the client stops working on every instance within a second; `count` says how many.',
  deprecated: true,
  tier: 'admin',
  auth: { scopes: ['admin:platform'] },
  params: OAuthClientIdParams,
  response: { 200: RevokeAllTokensResult },
  errors: [404],
});

export const oauthMetadata = endpoint({
  method: 'GET',
  path: '/.well-known/oauth-authorization-server',
  operationId: 'oauthMetadata',
  tags: ['oauth'],
  summary: 'Authorization server metadata (RFC 8414)',
  tier: 'public',
  auth: 'none',
  response: { 200: AuthorizationServerMetadata },
});

export const issueToken = endpoint({
  method: 'POST',
  path: '/api/v2/oauth/token',
  v1: ['/api/v1/oauth/token'],
  operationId: 'issueToken',
  tags: ['oauth'],
  summary: 'Obtain an access token (client credentials)',
  description: [
    'The OAuth 2.0 client credentials grant. Tokens live 3600 s; cache one until shortly before it expires, and on a 401 get a new one and retry once.',
    '',
    '- JSON (the spec): `{grant_type, client_id, client_secret, scope?}` answers the envelope `{success, data: {access_token, token_type, expires_in, scope}, meta}`; errors are the error envelope with `details.oauthError`.',
    '- `application/x-www-form-urlencoded` (RFC 6749): client authentication by HTTP Basic (client_secret_basic) or body fields (client_secret_post); answers the bare RFC 6749 §5.1 token response and §5.2 errors.',
    '',
    "`scope` is space-separated and must be a subset of the client's scopes (else `invalid_scope`); omitted, the token gets every scope of the client. Answers carry `Cache-Control: no-store`.",
  ].join('\n'),
  tier: 'public',
  auth: 'none',
  security: OAUTH_CLIENT,
  body: jsonOrForm(TokenRequest, TokenRequestForm),
  response: { 200: Type.Union([TokenEnvelope, TokenResponse]), ...OAUTH_ERRORS },
  errors: [403],
});

export const revokeToken = endpoint({
  method: 'POST',
  path: '/api/v2/oauth/revoke',
  v1: ['/api/v1/oauth/revoke'],
  operationId: 'revokeToken',
  tags: ['oauth'],
  summary: 'Revoke an access token (RFC 7009)',
  description:
    'The client that received the token revokes it; it stops working on every instance within a second. An unknown token, or one issued to another client, also answers 200 and changes nothing. Form requests get an empty `{}`; JSON requests the envelope.',
  tier: 'public',
  auth: 'client',
  security: OAUTH_CLIENT,
  body: jsonOrForm(TokenActionRequest, TokenActionRequestForm),
  response: { 200: Type.Union([SuccessEnvelope(Type.Object({})), Type.Object({})]), ...OAUTH_ERRORS },
});

export const introspectToken = endpoint({
  method: 'POST',
  path: '/api/v2/oauth/introspect',
  v1: ['/api/v1/oauth/introspect'],
  operationId: 'introspectToken',
  tags: ['oauth'],
  summary: 'Introspect an access token (RFC 7662)',
  description:
    'For resource servers: is this token active, for which platform and scopes. Authenticate as an OAuth client; tokens of another platform answer `{active: false}`. Form requests get the bare RFC 7662 answer; JSON requests the envelope.',
  tier: 'high',
  auth: 'client',
  security: OAUTH_CLIENT,
  body: jsonOrForm(TokenActionRequest, TokenActionRequestForm),
  response: { 200: Type.Union([SuccessEnvelope(IntrospectionResponse), IntrospectionResponse]), ...OAUTH_ERRORS },
});

// events: the platform's events as server-sent events (docs/api/events-stream.md), beyond the spec's operations

export const streamEvents = endpoint({
  method: 'GET',
  path: EVENT_STREAM_PATH,
  operationId: 'streamEvents',
  tags: ['events'],
  summary: 'Stream the platform’s events (server-sent events)',
  description: [
    'An extension beyond the spec’s list of v2 operations. Answers `200 text/event-stream` and keeps the connection open,',
    'sending each event of the calling token’s platform as it happens (never another platform’s), as',
    '`id: <stream position>`, `event: <type>`, `data: <the webhook delivery body {id, type, createdAt, data}>`.',
    'Transaction events need `read:transactions`, dispute and evidence events `read:disputes`; a token sees only the types it may read.',
    // The documented interval is the default: the contract is the same document whatever a deployment sets.
    `An idle stream gets a \`: heartbeat\` comment every ${EVENT_STREAM_HEARTBEAT_MS / 1000} s (\`EVENT_STREAM_HEARTBEAT_INTERVAL\`, 15 s by default). Reconnect with \`Last-Event-ID\` set to the last \`id:\``,
    'received to get every event after it (events stay replayable as long as the event stream keeps them, 30 days by default);',
    'without it the stream starts with the events from now on. The whole connection counts as one request of the standard tier.',
  ].join(' '),
  tier: 'standard',
  auth: { anyScope: ['read:transactions', 'read:disputes'] },
  querystring: EventStreamQuery,
  headers: EventStreamHeaders,
  response: {
    200: { description: 'The event stream.', content: { 'text/event-stream': { schema: EventStreamResponse } } },
  },
  errors: [503],
});

// checkout: hosted checkout sessions (docs/checkout.md), beyond the spec's operations

const CHECKOUT_DESIGN = 'Design: docs/checkout.md.';

export const createCheckoutSession = endpoint({
  method: 'POST',
  path: '/api/v2/checkout/sessions',
  operationId: 'createCheckoutSession',
  tags: ['checkout'],
  summary: 'Create a checkout session',
  description: `A session for a payment of \`amount\` to \`toAddress\` (the transaction create body's own fields: no sender, the payer's wallet names it), valid \`expiresInSeconds\` (30 minutes by default, at most 24 hours). Send the payer to \`url\`. Each field is validated as a transaction's would be (400 \`VALIDATION_ERROR\` naming it; an unknown \`templateId\` 404). A platform of a workspace is bounded by the workspace's enabled external wallet configs: a \`blockchainNetwork\` outside their \`allowedNetworks\`, or, when they list \`allowedTemplateIds\`, a \`templateId\` outside them (or none) and inline \`template\` terms, are 400 \`VALIDATION_ERROR\` naming that field. An idempotency key (body \`idempotencyKey\` or header \`Idempotency-Key\`) with the same parameters answers the first session with \`Idempotent-Replayed: true\`; with other parameters 422 \`IDEMPOTENCY_KEY_REUSED\`. ${CHECKOUT_DESIGN}`,
  tier: 'standard',
  auth: { scopes: ['move:transactions'] },
  headers: CreateTransactionHeaders,
  body: CreateCheckoutSessionBody,
  response: { 201: CheckoutSession },
  errors: [404, 422],
});

export const listCheckoutSessions = endpoint({
  method: 'GET',
  path: '/api/v2/checkout/sessions',
  operationId: 'listCheckoutSessions',
  tags: ['checkout'],
  summary: 'List checkout sessions',
  description: 'The platform’s sessions, newest first, `{data, pagination}`; `status`, `customerId` and `transactionId` filter them.',
  tier: 'standard',
  auth: { scopes: ['read:transactions'] },
  querystring: CheckoutSessionListQuery,
  response: { 200: CheckoutSessionList },
});

export const getCheckoutSession = endpoint({
  method: 'GET',
  path: '/api/v2/checkout/sessions/:id',
  operationId: 'getCheckoutSession',
  tags: ['checkout'],
  summary: 'Read a checkout session',
  description: "Another platform's session answers 404.",
  tier: 'high',
  auth: { scopes: ['read:transactions'] },
  params: IdParams,
  response: { 200: CheckoutSession },
  errors: [404],
});

export const expireCheckoutSession = endpoint({
  method: 'POST',
  path: '/api/v2/checkout/sessions/:id/expire',
  operationId: 'expireCheckoutSession',
  tags: ['checkout'],
  summary: 'Expire a checkout session',
  description: `An \`open\` session becomes \`expired\` at once (\`checkout.session.expired\`); an expired one answers as it is (200, no second event). A \`processing\` or \`complete\` session answers 409 \`INVALID_STATE_TRANSITION\` (its transaction exists; its escrow may be on its way on chain). ${CHECKOUT_DESIGN}`,
  tier: 'standard',
  auth: { scopes: ['move:transactions'] },
  params: IdParams,
  response: { 200: CheckoutSession },
  errors: [404, 409],
});

export const attachCheckoutPayer = endpoint({
  method: 'POST',
  path: '/api/v2/checkout/sessions/:id/payer',
  operationId: 'attachCheckoutPayer',
  tags: ['checkout'],
  summary: 'Name the payer of a checkout session (hosted page)',
  description: `Called by the hosted payment page, without a platform credential: the session id (a random UUID the platform hands only to its payer) is the capability. The payer's wallet names its address: the session's transaction is created (platform orchestration, external wallet) and the session becomes \`processing\`; the answer is what the wallet signs to lock the escrow. The same address again answers the same transaction; another address while \`processing\` 409 \`CONFLICT\`; an expired or complete session 409 \`INVALID_STATE_TRANSITION\`. Never shows the session's metadata or customer id. Public rate-limit tier. ${CHECKOUT_DESIGN}`,
  tier: 'public',
  auth: 'none',
  params: IdParams,
  body: AttachCheckoutPayerBody,
  response: { 200: CheckoutPayment },
  errors: [404, 409, 422],
});

export const getCheckoutPage = endpoint({
  method: 'GET',
  path: '/api/v2/checkout/sessions/:id/page',
  operationId: 'getCheckoutPage',
  tags: ['checkout'],
  summary: 'What the hosted page shows (hosted page)',
  description: `Read by the hosted payment page (\`/pay/{id}\`), without a platform credential (the session id is the capability, as for the payer call), and polled by it until the session is \`complete\`. The session as the payer sees it, the name and logo to show, the chain the wallet must be on, the hold terms, and once a payer is named its transaction's status, the payer's token balance and the EIP-3009 \`ReceiveWithAuthorization\` to sign (the token's EIP-712 domain read by the server, so that the page makes no RPC call). Never the session's metadata or customer id, nor any credential. High-frequency tier. \${CHECKOUT_DESIGN}`,
  tier: 'high',
  auth: 'none',
  params: IdParams,
  response: { 200: CheckoutPage },
  errors: [404],
});

export const authorizeCheckoutPayment = endpoint({
  method: 'POST',
  path: '/api/v2/checkout/sessions/:id/authorization',
  operationId: 'authorizeCheckoutPayment',
  tags: ['checkout'],
  summary: 'Fund the session with the payer’s signature (hosted page)',
  description: `Called by the hosted payment page, without a platform credential: the payer's signature of the page's \`payment.typedData\` goes to the relayer for the session's transaction, as \`POST /transactions/{id}/escrow-authorization\` would take it from the platform (every check before any gas; 422 \`AUTHORIZATION_REFUSED\` with \`details.reason\` and nothing sent). 202: relayed now; 200: the same signature again (the same relay, nothing sent twice). A session without a payer, expired or complete by another signature: 409. Answers the page's data. Public rate-limit tier. \${CHECKOUT_DESIGN}`,
  tier: 'public',
  auth: 'none',
  params: IdParams,
  body: CheckoutAuthorizationBody,
  response: { 202: CheckoutPage, 200: CheckoutPage },
  errors: [404, 409, 422, 429, 503],
});

// x402: Holdfast as an x402 v2 facilitator (docs/x402.md), beyond the spec's operations

const X402_DESIGN =
  "The x402 v2 facilitator protocol (shapes and reasons of @x402/core); the platform's bearer token authenticates the seller, and the platform pays the gas through Holdfast's relayer, metered in its daily relayer budget. Design: docs/x402.md.";

export const x402Supported = endpoint({
  method: 'GET',
  path: '/api/v2/x402/supported',
  operationId: 'x402Supported',
  tags: ['x402'],
  summary: 'x402: supported schemes and networks',
  description: `The schemes (\`exact\`: EIP-3009 to \`payTo\`; \`holdfast-escrow\`: locked in HoldfastEscrow) on each network with a relayer, in CAIP-2, each with its token (\`extra.asset\`, EIP-712 \`name\` and \`version\`), and the relayer addresses (\`signers\`). ${X402_DESIGN}`,
  tier: 'high',
  auth: { scopes: [] },
  response: { 200: X402SupportedResponse },
});

export const x402Verify = endpoint({
  method: 'POST',
  path: '/api/v2/x402/verify',
  operationId: 'x402Verify',
  tags: ['x402'],
  summary: 'x402: verify a payment',
  description: `Checks the payment against its requirements as the chain would (scheme, network, asset, payee, amount, the validity window, the payer's signature, the authorization's nonce unused, the payer's balance, a simulation from the relayer's account); sends nothing. An invalid payment is 200 \`{isValid: false, invalidReason}\` with the x402 reason. ${X402_DESIGN}`,
  tier: 'standard',
  auth: { scopes: ['move:transactions'] },
  body: X402Request,
  response: { 200: X402VerifyResponse },
  errors: [503],
});

export const x402Settle = endpoint({
  method: 'POST',
  path: '/api/v2/x402/settle',
  operationId: 'x402Settle',
  tags: ['x402'],
  summary: 'x402: settle a payment',
  description: `Verifies, records the payment as a Holdfast transaction of the platform (\`exact\`: raw, completed with its hash once mined and confirmed; \`holdfast-escrow\`: escrowed with the hold period, rescind, release, refund and disputes), and relays it. Waits up to X402_SETTLE_WAIT for the receipt: \`success\` with the hash; still mining, \`errorReason: settlement_pending\` with the hash and \`extra.holdfast.statusUrl\`. The same payload again (concurrently, or after a crash) answers the same on-chain transaction; an authorization used elsewhere is refused before any gas is spent (\`invalid_exact_evm_nonce_already_used\`). 429 RELAYER_BUDGET_EXHAUSTED when the platform's gas budget is spent. ${X402_DESIGN}`,
  tier: 'standard',
  auth: { scopes: ['move:transactions'] },
  body: X402Request,
  response: { 200: X402SettleResponse },
  errors: [429, 503],
});

export const x402Settlement = endpoint({
  method: 'GET',
  path: '/api/v2/x402/settlements/:transactionId',
  operationId: 'x402Settlement',
  tags: ['x402'],
  summary: 'x402: the settlement of a payment',
  description: `The settlement of an x402 payment by its Holdfast transaction (\`extra.holdfast.transactionId\` of a settle answer): \`pending\`, \`settled\`, \`failed\` or \`reorged\` (mined, then its block left the chain: reported, never re-sent), and the settle answer as it is now. Another platform's transaction answers 404. ${X402_DESIGN}`,
  tier: 'high',
  auth: { scopes: ['read:transactions'] },
  params: X402SettlementParams,
  response: { 200: X402Settlement },
  errors: [404],
});

export const x402PayCheckout = endpoint({
  method: 'GET',
  path: '/api/v2/x402/checkout/:id',
  operationId: 'x402PayCheckout',
  tags: ['x402'],
  summary: 'x402: pay a checkout session (machine client)',
  description: `A checkout session's \`x402Url\`: an x402 resource. Without \`PAYMENT-SIGNATURE\`, 402 with the session's \`holdfast-escrow\` requirements (body and \`PAYMENT-REQUIRED\` header); the buyer names itself at \`extra.payerUrl\`, signs the \`ReceiveWithAuthorization\` of \`extra.pageUrl\` (as the hosted page does) and sends it back: 200 with the session once its escrow is locked (\`PAYMENT-RESPONSE\`), 402 with \`error\` when refused or still mining (the same header again answers the same on-chain transaction). No credential: the session id is the capability, as for the hosted page; the session's platform pays the gas. Public rate-limit tier. ${X402_DESIGN}`,
  tier: 'public',
  auth: 'none',
  params: X402CheckoutParams,
  headers: X402CheckoutHeaders,
  response: { 200: X402CheckoutPaid, 402: X402PaymentRequired },
  errors: [404, 503],
});

// test helpers: a test clock for a sandbox or local platform's own transactions (docs/test-clock.md), beyond the spec's operations

export const advanceTransactionHold = endpoint({
  method: 'POST',
  path: '/api/v2/test_helpers/transactions/:id/advance_hold',
  operationId: 'advanceTransactionHold',
  tags: ['test_helpers'],
  summary: 'Test clock: end the hold period now',
  description:
    "For a sandbox credential's platform, or any platform of a `local` deployment (else 403 `FORBIDDEN`, `details.reason: live_platform`): ends the hold period of an escrowed or in_review platform transaction now. The transaction's `holdDeadline` becomes now (the sender can no longer rescind), the chain's clock is moved to the escrow's on-chain hold deadline when it is behind (`evm_setNextBlockTimestamp` and `evm_mine` of a development chain such as anvil: every escrow on that chain ages with it), and an attested release is due at once, so `transaction.completed` follows without a dispute. A chain whose clock cannot be moved (a public testnet) is 409 `CONFLICT` with `details.reason: chain_clock_fixed` and nothing is changed: give such transactions a short hold instead (`template.holdPeriodSeconds`). Another status is 409 `INVALID_STATE_TRANSITION`. Repeating it while the transaction is held answers 200 with the transaction as it is.",
  tier: 'standard',
  auth: { scopes: ['move:transactions'] },
  params: IdParams,
  response: { 200: TransactionOperationResult },
  errors: [403, 404, 409, 503],
});

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
} from '../x402.js';
import { resource } from './define.js';

// x402: Holdfast as an x402 v2 facilitator (docs/x402.md), beyond the spec's operations

const X402_DESIGN =
  "The x402 v2 facilitator protocol (shapes and reasons of @x402/core); the platform's bearer token authenticates the seller, and the platform pays the gas through Holdfast's relayer, metered in its daily relayer budget. Design: docs/x402.md.";

const endpoint = resource({ tags: ['x402'] });

export const x402Supported = endpoint('GET /api/v2/x402/supported', {
  operationId: 'x402Supported',
  summary: 'x402: supported schemes and networks',
  description: `The schemes (\`exact\`: EIP-3009 to \`payTo\`; \`holdfast-escrow\`: locked in HoldfastEscrow) on each network with a relayer, in CAIP-2, each with its token (\`extra.asset\`, EIP-712 \`name\` and \`version\`), and the relayer addresses (\`signers\`). ${X402_DESIGN}`,
  tier: 'high',
  access: { scopes: [] },
  response: { 200: X402SupportedResponse },
});

export const x402Verify = endpoint('POST /api/v2/x402/verify', {
  operationId: 'x402Verify',
  summary: 'x402: verify a payment',
  description: `Checks the payment against its requirements as the chain would (scheme, network, asset, payee, amount, the validity window, the payer's signature, the authorization's nonce unused, the payer's balance, a simulation from the relayer's account); sends nothing. An invalid payment is 200 \`{isValid: false, invalidReason}\` with the x402 reason. ${X402_DESIGN}`,
  tier: 'standard',
  access: { scopes: ['move:transactions'] },
  body: X402Request,
  response: { 200: X402VerifyResponse },
  errors: [503],
});

export const x402Settle = endpoint('POST /api/v2/x402/settle', {
  operationId: 'x402Settle',
  summary: 'x402: settle a payment',
  description: `Verifies, records the payment as a Holdfast transaction of the platform (\`exact\`: raw, completed with its hash once mined and confirmed; \`holdfast-escrow\`: escrowed with the hold period, rescind, release, refund and disputes), and relays it. Waits up to X402_SETTLE_WAIT for the receipt: \`success\` with the hash; still mining, \`errorReason: settlement_pending\` with the hash and \`extra.holdfast.statusUrl\`. The same payload again (concurrently, or after a crash) answers the same on-chain transaction; an authorization used elsewhere is refused before any gas is spent (\`invalid_exact_evm_nonce_already_used\`). 429 RELAYER_BUDGET_EXHAUSTED when the platform's gas budget is spent. ${X402_DESIGN}`,
  tier: 'standard',
  access: { scopes: ['move:transactions'] },
  body: X402Request,
  response: { 200: X402SettleResponse },
  errors: [429, 503],
});

export const x402Settlement = endpoint('GET /api/v2/x402/settlements/:transactionId', {
  operationId: 'x402Settlement',
  summary: 'x402: the settlement of a payment',
  description: `The settlement of an x402 payment by its Holdfast transaction (\`extra.holdfast.transactionId\` of a settle answer): \`pending\`, \`settled\`, \`failed\` or \`reorged\` (mined, then its block left the chain: reported, never re-sent), and the settle answer as it is now. Another platform's transaction answers 404. ${X402_DESIGN}`,
  tier: 'high',
  access: { scopes: ['read:transactions'] },
  params: X402SettlementParams,
  response: { 200: X402Settlement },
  errors: [404],
});

export const x402PayCheckout = endpoint('GET /api/v2/x402/checkout/:id', {
  operationId: 'x402PayCheckout',
  summary: 'x402: pay a checkout session (machine client)',
  description: `A checkout session's \`x402Url\`: an x402 resource. Without \`PAYMENT-SIGNATURE\`, 402 with the session's \`holdfast-escrow\` requirements (body and \`PAYMENT-REQUIRED\` header); the buyer names itself at \`extra.payerUrl\`, signs the \`ReceiveWithAuthorization\` of \`extra.pageUrl\` (as the hosted page does) and sends it back: 200 with the session once its escrow is locked (\`PAYMENT-RESPONSE\`), 402 with \`error\` when refused or still mining (the same header again answers the same on-chain transaction). No credential: the session id is the capability, as for the hosted page; the session's platform pays the gas. Public rate-limit tier. ${X402_DESIGN}`,
  tier: 'public',
  access: 'none',
  params: X402CheckoutParams,
  headers: X402CheckoutHeaders,
  response: { 200: X402CheckoutPaid, 402: X402PaymentRequired },
  errors: [404, 503],
});

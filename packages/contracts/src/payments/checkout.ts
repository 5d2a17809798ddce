import { type Static, Type } from '@sinclair/typebox';
import {
  CHECKOUT_SESSION_STATUSES,
  ChainAddress,
  CurrencySchema,
  DateTime,
  DecimalString,
  Metadata,
  NetworkSchema,
  StringEnum,
  Uuid,
} from '../common/domain.js';
import { Nullable } from '../common/fragments.js';
import { PageQuery, PaginationMeta } from '../common/pagination.js';
import { EmbeddedTemplate } from './controls.js';
import { EscrowInstructions, IdempotencyKey } from './transactions.js';

/*
 * Checkout sessions (issue 29 item 3, docs/checkout.md): a platform asks for a payment of an amount
 * to its address and sends the payer to the hosted page (`url`); the payer's wallet names the
 * sender, the session's transaction is created then, and the session completes once that
 * transaction is `escrowed`.
 */

export const CheckoutSessionStatusSchema = StringEnum(CHECKOUT_SESSION_STATUSES, {
  description:
    '`open`: waiting for the payer. `processing`: the payer named its address and the transaction exists, its escrow not yet locked. `complete`: the transaction is `escrowed` (terminal). `expired`: `expiresAt` passed or the platform expired it before any payer (terminal).',
});

/** Default and longest lifetime of a session (seconds). */
export const CHECKOUT_SESSION_DEFAULT_EXPIRY_SECONDS = 30 * 60;
export const CHECKOUT_SESSION_MAX_EXPIRY_SECONDS = 24 * 60 * 60;
export const CHECKOUT_SESSION_MIN_EXPIRY_SECONDS = 60;

const ReturnUrl = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: 2048,
    description: `Where the hosted page sends the payer ${what}: an absolute https URL (http too in local).`,
  });

/** POST /api/v2/checkout/sessions: the transaction create body's own fields (no sender: the payer's wallet names it). */
export const CreateCheckoutSessionBody = Type.Object(
  {
    amount: Type.Union([Type.Number(), Type.String({ maxLength: 40 })], {
      description: 'As a transaction’s `amount`: between 0.01 and 1,000,000, a JSON number or an exact decimal string.',
    }),
    currency: Type.Optional(CurrencySchema),
    blockchainNetwork: Type.Optional(NetworkSchema),
    toAddress: Type.String({ ...ChainAddress, description: `Receiver address. ${ChainAddress.description}` }),
    templateId: Type.Optional(Uuid),
    template: Type.Optional(EmbeddedTemplate),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    metadata: Type.Optional(Metadata),
    successUrl: ReturnUrl('once the escrow is locked'),
    cancelUrl: ReturnUrl('when it gives up'),
    expiresInSeconds: Type.Optional(
      Type.Integer({
        minimum: CHECKOUT_SESSION_MIN_EXPIRY_SECONDS,
        maximum: CHECKOUT_SESSION_MAX_EXPIRY_SECONDS,
        default: CHECKOUT_SESSION_DEFAULT_EXPIRY_SECONDS,
        description: 'Lifetime of the session: 60 seconds to 24 hours, 30 minutes by default.',
      }),
    ),
    idempotencyKey: Type.Optional(IdempotencyKey),
  },
  { additionalProperties: false },
);
export type CreateCheckoutSessionBody = Static<typeof CreateCheckoutSessionBody>;

export const CheckoutSession = Type.Object(
  {
    id: Uuid,
    platformId: Uuid,
    status: CheckoutSessionStatusSchema,
    url: Type.String({ description: 'The hosted payment page of this session (`{PAYMENTS_PUBLIC_URL}/pay/{id}`).' }),
    x402Url: Type.String({
      description:
        'The same payment for a machine client (x402 v2): answers 402 with the `holdfast-escrow` requirements of the session, and pays it as the hosted page does (docs/x402.md).',
    }),
    amount: DecimalString,
    currency: CurrencySchema,
    blockchainNetwork: NetworkSchema,
    toAddress: Type.String(),
    fromAddress: Nullable(Type.String({ description: 'The payer’s address, once it named one.' })),
    templateId: Nullable(Uuid),
    customerId: Nullable(Type.String()),
    metadata: Metadata,
    successUrl: Type.String(),
    cancelUrl: Type.String(),
    expiresAt: DateTime,
    transactionId: Nullable(Uuid),
    idempotencyKey: Nullable(Type.String()),
    completedAt: Nullable(DateTime),
    expiredAt: Nullable(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'CheckoutSession' },
);
export type CheckoutSession = Static<typeof CheckoutSession>;

export const CheckoutSessionListQuery = Type.Object(
  {
    ...PageQuery.properties,
    status: Type.Optional(CheckoutSessionStatusSchema),
    customerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    transactionId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
export type CheckoutSessionListQuery = Static<typeof CheckoutSessionListQuery>;

export const CheckoutSessionList = Type.Object(
  { data: Type.Array(CheckoutSession), pagination: Type.Object(PaginationMeta.properties) },
  { $id: 'CheckoutSessionList', description: 'Newest first.' },
);
export type CheckoutSessionList = Static<typeof CheckoutSessionList>;

/** POST /api/v2/checkout/sessions/{id}/payer: the payer's wallet names the sender. */
export const AttachCheckoutPayerBody = Type.Object(
  { fromAddress: Type.String({ ...ChainAddress, description: `The payer’s address (the sender). ${ChainAddress.description}` }) },
  { additionalProperties: false },
);
export type AttachCheckoutPayerBody = Static<typeof AttachCheckoutPayerBody>;

/** What the hosted page sees of a session: no metadata or customer id (they are the platform's). */
export const CheckoutPayment = Type.Object(
  {
    session: Type.Object({
      id: Uuid,
      status: CheckoutSessionStatusSchema,
      amount: DecimalString,
      currency: CurrencySchema,
      blockchainNetwork: NetworkSchema,
      toAddress: Type.String(),
      fromAddress: Nullable(Type.String()),
      successUrl: Type.String(),
      cancelUrl: Type.String(),
      expiresAt: DateTime,
      transactionId: Nullable(Uuid),
    }),
    escrow: Nullable(EscrowInstructions),
  },
  {
    $id: 'CheckoutPayment',
    description: 'The session as the payer sees it and what its wallet signs to lock the escrow.',
  },
);
export type CheckoutPayment = Static<typeof CheckoutPayment>;

/*
 * The hosted payer page (`/pay/{id}`, issue 29 item 4): what it shows and what the payer's wallet
 * signs, answered by the server so that the page makes no RPC call of its own (its
 * Content-Security-Policy allows `connect-src 'self'` only, and WalletConnect's relay and Verify
 * hosts besides for a session whose workspace configured a WalletConnect projectId).
 */

const TypedDataField = Type.Object({ name: Type.String(), type: Type.String() });

/** The EIP-3009 `ReceiveWithAuthorization` the page passes to `eth_signTypedData_v4` as it is (numbers as decimal strings). */
export const CheckoutTypedData = Type.Object(
  {
    domain: Type.Object({
      name: Type.Optional(Type.String()),
      version: Type.Optional(Type.String()),
      chainId: Type.Optional(Type.Integer()),
      verifyingContract: Type.Optional(Type.String()),
      salt: Type.Optional(Type.String()),
    }),
    types: Type.Object({
      EIP712Domain: Type.Array(TypedDataField),
      ReceiveWithAuthorization: Type.Array(TypedDataField),
    }),
    primaryType: Type.Literal('ReceiveWithAuthorization'),
    message: Type.Object({
      from: Type.String(),
      to: Type.String(),
      value: Type.String({ pattern: '^[0-9]+$' }),
      validAfter: Type.String({ pattern: '^[0-9]+$' }),
      validBefore: Type.String({ pattern: '^[0-9]+$' }),
      nonce: Type.String(),
    }),
  },
  { description: "The token's own EIP-712 domain (read from its eip712Domain()), the escrow as `to`, the nonce of the escrow's terms." },
);
export type CheckoutTypedData = Static<typeof CheckoutTypedData>;

/** GET /api/v2/checkout/sessions/{id}/page: everything the hosted page shows and signs; never the platform's credentials, metadata or customer id. */
export const CheckoutPage = Type.Object(
  {
    ...CheckoutPayment.properties,
    platform: Type.Object({
      name: Type.String({ description: "The name the payer sees: the workspace's external wallet `appName`, else the platform's name." }),
      logoUrl: Nullable(Type.String({ description: 'An https logo (`appLogoUrl`), or null for the default mark.' })),
    }),
    wallets: Type.Object({
      walletConnectProjectId: Nullable(Type.String({ description: 'The WalletConnect project id, when one is configured (adapter).' })),
      allowedNetworks: Type.Array(Type.String()),
    }),
    chain: Type.Object({
      id: Type.Integer({ description: 'The EIP-155 chain id the wallet must be on.' }),
      name: Type.String({ description: 'The network as the payer reads it (Base Sepolia).' }),
    }),
    terms: Type.Object({
      holdDeadline: Nullable(DateTime),
      holdPeriodSeconds: Nullable(Type.Integer({ minimum: 0 })),
      rescindAllowed: Type.Boolean(),
    }),
    payment: Nullable(
      Type.Object({
        transactionStatus: Type.String(),
        amountBaseUnits: Nullable(Type.String()),
        balanceBaseUnits: Nullable(Type.String({ description: "The payer's token balance (null when the chain did not answer)." })),
        typedData: Nullable(CheckoutTypedData),
        relay: Nullable(Type.Object({ status: Type.String(), txHash: Type.String() })),
      }),
    ),
  },
  { $id: 'CheckoutPage', description: 'What the hosted page shows of a session and what the payer signs.' },
);
export type CheckoutPage = Static<typeof CheckoutPage>;

/** POST /api/v2/checkout/sessions/{id}/authorization: the payer's signature of the page's `payment.typedData`. */
export const CheckoutAuthorizationBody = Type.Object(
  { signature: Type.String({ pattern: '^0x[0-9a-fA-F]+$', minLength: 132, maxLength: 20000 }) },
  { additionalProperties: false },
);
export type CheckoutAuthorizationBody = Static<typeof CheckoutAuthorizationBody>;

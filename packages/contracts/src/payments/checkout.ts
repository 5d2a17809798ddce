import { type Static, Type } from '@sinclair/typebox';
import {
  CHECKOUT_SESSION_STATUSES,
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
    toAddress: Type.String({ minLength: 1, maxLength: 200, description: 'Receiver address.' }),
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
  { fromAddress: Type.String({ minLength: 1, maxLength: 200, description: 'The payer’s address (the sender).' }) },
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

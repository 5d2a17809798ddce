import { type Static, Type } from '@sinclair/typebox';
import { StringEnum } from '../common/domain.js';

/*
 * Payments API: Holdfast as an x402 v2 facilitator (docs/x402.md). The request and answer shapes are
 * the x402 v2 specification's (`@x402/core` types: PaymentRequirements, PaymentPayload,
 * VerifyResponse, SettleResponse, SupportedResponse); networks are CAIP-2 (`eip155:84532`). Objects
 * the protocol lets grow (`extra`, `extensions`, the scheme's `payload`) stay open.
 */

const Caip2 = Type.String({ pattern: '^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$', description: 'A CAIP-2 network id (`eip155:84532`)' });
const Extra = Type.Record(Type.String(), Type.Unknown());

/** The scheme `exact` pays `payTo` directly; `holdfast-escrow` locks the payment in HoldfastEscrow (docs/x402.md). */
export const X402_SCHEMES = ['exact', 'holdfast-escrow'] as const;
export type X402Scheme = (typeof X402_SCHEMES)[number];

export const X402PaymentRequirements = Type.Object(
  {
    scheme: Type.String({ minLength: 1, maxLength: 64 }),
    network: Caip2,
    asset: Type.String({ minLength: 1, maxLength: 200, description: 'The token contract' }),
    amount: Type.String({ pattern: '^[0-9]{1,78}$', description: "In the token's base units" }),
    payTo: Type.String({ minLength: 1, maxLength: 200 }),
    maxTimeoutSeconds: Type.Integer({ minimum: 0 }),
    extra: Type.Optional(Extra),
  },
  { description: "What the seller's server asked for (x402 PaymentRequirements)." },
);
export type X402PaymentRequirements = Static<typeof X402PaymentRequirements>;

const ResourceInfo = Type.Object(
  { url: Type.String({ maxLength: 4096 }), description: Type.Optional(Type.String()), mimeType: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

export const X402PaymentPayload = Type.Object(
  {
    x402Version: Type.Integer({ minimum: 1 }),
    resource: Type.Optional(ResourceInfo),
    accepted: X402PaymentRequirements,
    payload: Type.Record(Type.String(), Type.Unknown(), {
      description:
        "The scheme's payload: for `exact` on EVM `{signature, authorization: {from, to, value, validAfter, validBefore, nonce}}`",
    }),
    extensions: Type.Optional(Extra),
  },
  { description: "What the buyer's client signed (x402 PaymentPayload)." },
);
export type X402PaymentPayload = Static<typeof X402PaymentPayload>;

/** POST /x402/verify and /x402/settle. */
export const X402Request = Type.Object(
  {
    x402Version: Type.Integer({ minimum: 1 }),
    paymentPayload: X402PaymentPayload,
    paymentRequirements: X402PaymentRequirements,
  },
  { $id: 'X402Request', description: 'An x402 VerifyRequest or SettleRequest.' },
);
export type X402Request = Static<typeof X402Request>;

/** Holdfast's side of an x402 answer, under `extra.holdfast`. */
export const X402HoldfastExtra = Type.Object({
  transactionId: Type.Optional(Type.String({ format: 'uuid', description: 'The Holdfast transaction of the payment' })),
  transactionStatus: Type.Optional(Type.String({ description: "The Holdfast transaction's status" })),
  relayId: Type.Optional(Type.String({ format: 'uuid' })),
  statusUrl: Type.Optional(Type.String({ description: 'Poll it for the settlement of a pending answer' })),
  reason: Type.Optional(Type.String({ description: "Holdfast's own reason of a refusal (the relayer's check that refused it)" })),
});

export const X402VerifyResponse = Type.Object(
  {
    isValid: Type.Boolean(),
    invalidReason: Type.Optional(Type.String()),
    invalidMessage: Type.Optional(Type.String()),
    payer: Type.Optional(Type.String()),
    extra: Type.Optional(Type.Object({ holdfast: Type.Optional(X402HoldfastExtra) })),
  },
  { $id: 'X402VerifyResponse', description: 'x402 VerifyResponse: `isValid`, or `invalidReason` (x402 reason strings).' },
);
export type X402VerifyResponse = Static<typeof X402VerifyResponse>;

export const X402SettleResponse = Type.Object(
  {
    success: Type.Boolean(),
    errorReason: Type.Optional(Type.String()),
    errorMessage: Type.Optional(Type.String()),
    payer: Type.Optional(Type.String()),
    transaction: Type.String({ description: 'The on-chain transaction hash ("" when nothing was sent)' }),
    network: Type.String(),
    amount: Type.Optional(Type.String()),
    extra: Type.Optional(Type.Object({ holdfast: Type.Optional(X402HoldfastExtra) })),
  },
  {
    $id: 'X402SettleResponse',
    description:
      'x402 SettleResponse. `success` once the transfer (or the escrow lock) is mined; `errorReason: settlement_pending` with the hash while it is mining (settle the same payload again, or poll `extra.holdfast.statusUrl`); `settlement_reorged` when the mined transaction left the chain.',
  },
);
export type X402SettleResponse = Static<typeof X402SettleResponse>;

export const X402SupportedResponse = Type.Object(
  {
    kinds: Type.Array(
      Type.Object({
        x402Version: Type.Integer(),
        scheme: Type.String(),
        network: Type.String(),
        extra: Type.Optional(Extra),
      }),
    ),
    extensions: Type.Array(Type.String()),
    signers: Type.Record(Type.String(), Type.Array(Type.String())),
  },
  { $id: 'X402SupportedResponse', description: 'x402 SupportedResponse: the schemes and networks, and the relayer addresses that submit.' },
);
export type X402SupportedResponse = Static<typeof X402SupportedResponse>;

export const X402_SETTLEMENT_STATUSES = ['pending', 'settled', 'failed', 'reorged'] as const;

export const X402SettlementParams = Type.Object({ transactionId: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

export const X402Settlement = Type.Object(
  {
    status: StringEnum(X402_SETTLEMENT_STATUSES, {
      description:
        '`pending` (sent, not mined), `settled` (mined), `failed` (reverted, or never mined), `reorged` (it was mined, and the block left the chain: never re-sent by Holdfast)',
    }),
    settlement: X402SettleResponse,
  },
  { $id: 'X402Settlement', description: 'The settlement of an x402 payment, by its Holdfast transaction.' },
);
export type X402Settlement = Static<typeof X402Settlement>;

/** An x402 PaymentRequired: what a resource asks for (answered with 402, and base64 in the `PAYMENT-REQUIRED` header). */
export const X402PaymentRequired = Type.Object(
  {
    x402Version: Type.Integer(),
    error: Type.Optional(Type.String()),
    resource: ResourceInfo,
    accepts: Type.Array(X402PaymentRequirements),
  },
  { $id: 'X402PaymentRequired', description: 'x402 PaymentRequired (also base64 JSON in the PAYMENT-REQUIRED header).' },
);
export type X402PaymentRequired = Static<typeof X402PaymentRequired>;

export const X402CheckoutParams = Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false });
export const X402CheckoutHeaders = Type.Object({
  'payment-signature': Type.Optional(
    Type.String({ maxLength: 16384, description: "The buyer's x402 PaymentPayload, base64 JSON (x402 v2 header)" }),
  ),
});

/** GET /x402/checkout/{id} once paid: the session as the payer sees it, and the settlement (also base64 in PAYMENT-RESPONSE). */
export const X402CheckoutPaid = Type.Object(
  {
    session: Type.Object({
      id: Type.String({ format: 'uuid' }),
      status: Type.String(),
      amount: Type.String(),
      currency: Type.String(),
      toAddress: Type.String(),
      fromAddress: Type.Union([Type.String(), Type.Null()]),
      transactionId: Type.Union([Type.String(), Type.Null()]),
    }),
    settlement: X402SettleResponse,
  },
  { $id: 'X402CheckoutPaid' },
);
export type X402CheckoutPaid = Static<typeof X402CheckoutPaid>;

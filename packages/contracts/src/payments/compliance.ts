import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Metadata, StringEnum, Uuid } from '../common/domain.js';

/**
 * Compliance verifications (spec "Verification (compliance)", "Payments API: compliance"): a
 * record that one of a platform's users is being, or was, verified by the identity provider.
 * docs/api/compliance.md describes the statuses and the provider's signed callback.
 */
export const VERIFICATION_TYPES = ['identity', 'document', 'address', 'phone', 'email'] as const;
export type VerificationType = (typeof VERIFICATION_TYPES)[number];
export const VerificationTypeSchema = StringEnum(VERIFICATION_TYPES);

/**
 * pending -> approved | rejected | needs_review | expired; needs_review -> approved | rejected |
 * expired; approved -> expired. rejected and expired are terminal (the platform creates a new
 * verification to try again).
 */
export const VERIFICATION_STATUSES = ['pending', 'approved', 'rejected', 'needs_review', 'expired'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];
export const VerificationStatusSchema = StringEnum(VERIFICATION_STATUSES);

export const RISK_RATINGS = ['low', 'medium', 'high'] as const;
export const RiskRatingSchema = StringEnum(RISK_RATINGS);

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

/** `userId` is the platform's own identifier of its user, any text. */
const UserId = Type.String({ minLength: 1, maxLength: 255, description: "The platform's own identifier of its user." });

export const Verification = Type.Object(
  {
    id: Uuid,
    platformId: Uuid,
    userId: Type.String(),
    type: VerificationTypeSchema,
    status: VerificationStatusSchema,
    level: nullable(Type.String({ description: "The provider's verification level, once it reported one." })),
    riskRating: Type.Union([RiskRatingSchema, Type.Null()]),
    provider: Type.String({ description: 'The identity provider that runs the inquiry.' }),
    externalInquiryId: nullable(Type.String({ description: "The provider's inquiry id." })),
    externalSessionToken: nullable(
      Type.String({ description: "Hand this to the provider's client SDK so that the user completes the inquiry." }),
    ),
    metadata: Metadata,
    rejectionReason: nullable(Type.String()),
    verifiedAt: Type.Union([DateTime, Type.Null()]),
    expiresAt: Type.Union([DateTime, Type.Null()]),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { description: 'A compliance verification of one of your users.' },
);
export type Verification = Static<typeof Verification>;

export const CreateVerificationBody = Type.Object(
  {
    userId: UserId,
    type: VerificationTypeSchema,
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 50, description: 'Returned as sent.' })),
  },
  { additionalProperties: false },
);
export type CreateVerificationBody = Static<typeof CreateVerificationBody>;

export const CheckVerificationBody = Type.Object({ userId: UserId, type: VerificationTypeSchema }, { additionalProperties: false });
export type CheckVerificationBody = Static<typeof CheckVerificationBody>;

/**
 * The statuses the identity provider reports for an inquiry. `pending` (the user has not finished)
 * changes nothing.
 */
export const PROVIDER_INQUIRY_STATUSES = ['pending', 'approved', 'rejected', 'needs_review', 'expired'] as const;

/** Header of the provider's callback: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`. */
export const IDENTITY_PROVIDER_SIGNATURE_HEADER = 'x-identity-provider-signature';
/** How far the signed timestamp may be from our clock, seconds. */
export const IDENTITY_PROVIDER_SIGNATURE_TOLERANCE_SECONDS = 300;
/** The callback's headers: the signature (checked over the raw body before parsing). */
export const IdentityProviderCallbackHeaders = Type.Object({ [IDENTITY_PROVIDER_SIGNATURE_HEADER]: Type.Optional(Type.String()) });

/**
 * The provider's callback body. Fields Holdfast does not know are accepted and ignored (the
 * provider may add some; refusing would make it retry for ever).
 */
export const IdentityProviderCallback = Type.Object(
  {
    eventId: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The provider's event id; a replay of a processed one changes nothing.",
    }),
    inquiryId: Type.String({ minLength: 1, maxLength: 200, description: 'The `externalInquiryId` of a verification.' }),
    status: StringEnum(PROVIDER_INQUIRY_STATUSES),
    occurredAt: Type.Optional(DateTime),
    level: Type.Optional(Type.String({ maxLength: 100 })),
    riskRating: Type.Optional(RiskRatingSchema),
    rejectionReason: Type.Optional(Type.String({ maxLength: 1000 })),
    verifiedAt: Type.Optional(DateTime),
    expiresAt: Type.Optional(DateTime),
  },
  { additionalProperties: true },
);
export type IdentityProviderCallback = Static<typeof IdentityProviderCallback>;

export const CALLBACK_OUTCOMES = ['applied', 'unchanged', 'ignored', 'duplicate'] as const;

export const IdentityProviderCallbackResult = Type.Object({
  received: Type.Literal(true),
  eventId: Type.String(),
  outcome: StringEnum(CALLBACK_OUTCOMES, {
    description:
      '`applied`: the verification moved; `unchanged`: it was already in that status; `ignored`: a move the status rules do not allow (an out-of-order event) or a `pending` report; `duplicate`: this event was processed before.',
  }),
  verificationId: Uuid,
  status: VerificationStatusSchema,
});
export type IdentityProviderCallbackResult = Static<typeof IdentityProviderCallbackResult>;

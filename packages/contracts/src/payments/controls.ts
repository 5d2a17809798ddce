import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ChainAddress, DateTime, StringEnum, Uuid } from '../common/domain.js';
import { Nullable } from '../common/fragments.js';

/*
 * Payments API: controls (spec "Transaction" template fields, "Controls (K)"). A template is a list
 * of controls a transaction runs by phase and order; docs/controls.md describes each type.
 */

export const CONTROL_TYPES = ['amount_limit', 'allow_list', 'deny_list', 'two_factor', 'vendor_sms', 'risk_review'] as const;
export type ControlType = (typeof CONTROL_TYPES)[number];
export const ControlTypeSchema = StringEnum(CONTROL_TYPES);

/** `pre_escrow` runs at creation, `pre_release` when a release is attested; `post_release` is refused with 400 (nothing can run after a release). */
export const CONTROL_PHASES = ['pre_escrow', 'pre_release', 'post_release'] as const;
export type ControlPhase = (typeof CONTROL_PHASES)[number];
export const ControlPhaseSchema = StringEnum(CONTROL_PHASES, {
  description:
    '`pre_escrow` runs at creation, `pre_release` when a release is attested (checks that decide on their own only). `post_release` is refused (400 on `executionPhase`): nothing a control decides can change a release that happened.',
});

/** An exact decimal amount in a control's config: a JSON number or a decimal string. */
const ConfigAmount = Type.Union([Type.String({ pattern: '^\\d+(\\.\\d+)?$' }), Type.Number({ minimum: 0 })]);
const ApplyTo = StringEnum(['from', 'to', 'both'] as const, {
  description: 'Which address of the transaction the list applies to (default `both`).',
});
// Shape only: a template is used on every network, so the network's own rule cannot be checked here.
const Addresses = Type.Array(ChainAddress, { minItems: 1, maxItems: 1000 });
const Phone = Type.String({ pattern: '^\\+[1-9]\\d{6,14}$', description: 'E.164 phone number, e.g. `+14155550123`.' });

/** The `config` each control type accepts (extra keys are refused so a typo does not disable a rule). */
export const CONTROL_CONFIG_SCHEMAS: Record<ControlType, TSchema> = {
  amount_limit: Type.Object(
    { min: Type.Optional(ConfigAmount), max: Type.Optional(ConfigAmount) },
    { additionalProperties: false, minProperties: 1 },
  ),
  allow_list: Type.Object({ addresses: Addresses, applyTo: Type.Optional(ApplyTo) }, { additionalProperties: false }),
  deny_list: Type.Object({ addresses: Addresses, applyTo: Type.Optional(ApplyTo) }, { additionalProperties: false }),
  two_factor: Type.Object({ phoneNumber: Type.Optional(Phone) }, { additionalProperties: false }),
  vendor_sms: Type.Object({ phoneNumber: Type.Optional(Phone) }, { additionalProperties: false }),
  risk_review: Type.Object(
    {
      always: Type.Optional(Type.Boolean({ description: 'Review every transaction.' })),
      minAmount: Type.Optional(ConfigAmount),
    },
    { additionalProperties: false },
  ),
};

export const Control = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100, description: 'Unique within the template.' }),
    type: ControlTypeSchema,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    executionPhase: ControlPhaseSchema,
    executionOrder: Type.Integer({ minimum: 0, maximum: 10000, description: 'Lower runs first within a phase.' }),
    config: Type.Record(Type.String(), Type.Unknown(), { description: 'Per type: docs/controls.md.' }),
    isRequired: Type.Optional(Type.Boolean({ default: true, description: 'A failed required control fails the transaction.' })),
    isActive: Type.Optional(Type.Boolean({ default: true, description: 'An inactive control is skipped.' })),
  },
  { additionalProperties: false },
);
export type Control = Static<typeof Control>;

const Controls = Type.Array(Control, { maxItems: 50 });

/** The `template` of the create-transaction body (spec "Transaction"; prefer `templateId`). */
export const EmbeddedTemplate = Type.Object(
  {
    templateId: Type.Optional(Type.String({ maxLength: 100 })),
    templateName: Type.String({ minLength: 1, maxLength: 200 }),
    templateVersion: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Integer({ minimum: 0 })])),
    controls: Controls,
    holdPeriodSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 63072000,
        description: 'Hold period of the transaction (the sender may rescind until it ends).',
      }),
    ),
    rescind: Type.Optional(
      Type.Object(
        {
          allowed: Type.Optional(Type.Boolean()),
          requiresReason: Type.Optional(Type.Boolean()),
          notifyRecipient: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false, description: 'Rescind rules of the transaction (docs/transactions.md).' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type EmbeddedTemplate = Static<typeof EmbeddedTemplate>;

/** POST /api/v1/controls/templates (beyond the spec: the template library templateId refers to). */
export const CreateControlTemplateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    version: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    controls: Controls,
  },
  { additionalProperties: false },
);
export type CreateControlTemplateBody = Static<typeof CreateControlTemplateBody>;

export const ControlTemplate = Type.Object({
  id: Uuid,
  platformId: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  version: Type.Integer(),
  controls: Type.Array(Control),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ControlTemplate = Static<typeof ControlTemplate>;

/** Body of the two code verifications (the spec leaves it open). */
export const VerifyControlCodeBody = Type.Object(
  {
    transactionId: Uuid,
    code: Type.String({ pattern: '^\\d{6}$', description: 'The 6-digit code sent by SMS.' }),
  },
  { additionalProperties: false },
);
export type VerifyControlCodeBody = Static<typeof VerifyControlCodeBody>;

/** The verification answer, shaped like the spec's verification record (type `phone`). */
export const ControlVerification = Type.Object({
  id: Uuid,
  platformId: Uuid,
  userId: Type.String({ description: "The transaction's customerId, else its fromAddress." }),
  type: Type.Literal('phone'),
  status: StringEnum(['approved', 'rejected', 'expired', 'pending'] as const),
  level: Nullable(Type.String()),
  riskRating: Nullable(Type.String()),
  provider: Type.String({ description: 'The SMS gateway that sent the code.' }),
  externalInquiryId: Nullable(Type.String()),
  externalSessionToken: Nullable(Type.String()),
  metadata: Type.Object({
    transactionId: Uuid,
    transactionStatus: Type.String(),
    controlId: Type.String(),
    controlType: StringEnum(['two_factor', 'vendor_sms'] as const),
    recipient: Type.String({ description: 'The masked phone number.' }),
    attempts: Type.Integer(),
  }),
  rejectionReason: Nullable(Type.String()),
  verifiedAt: Nullable(DateTime),
  expiresAt: DateTime,
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type ControlVerification = Static<typeof ControlVerification>;

/** POST /api/v1/controls/reviews/{transactionId} (beyond the spec: the risk-review decision). */
export const RiskReviewDecisionBody = Type.Object(
  {
    decision: StringEnum(['approve', 'reject'] as const),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  { additionalProperties: false },
);
export type RiskReviewDecisionBody = Static<typeof RiskReviewDecisionBody>;

import { Type } from '@sinclair/typebox';
import { Uuid } from '../../common/domain.js';
import {
  ControlTemplate,
  ControlVerification,
  CreateControlTemplateBody,
  RiskReviewDecisionBody,
  VerifyControlCodeBody,
} from '../controls.js';
import { PaymentsTransaction } from '../transactions.js';
import { IdParams, resource } from './define.js';

// controls (spec "Controls (K)"), and, beyond the spec, the template library and risk-review decisions (v1)

const CONTROL_CODE_DESCRIPTION =
  "Checks the 6-digit code the transaction's control sent by SMS. A right code answers the verification (`status: approved`) and moves the transaction from `pending_user_action` back to `pending`, then runs the controls after it. A wrong code answers 400 `INVALID_CODE` with `details.attemptsRemaining`; after the last attempt, or once the code expired (400 `INVALID_CODE`, `details.reason: expired`), a required control fails the transaction. 409 when the transaction has no open code of this kind; 404 for another platform's transaction.";

const endpoint = resource({ tags: ['controls'] });

// Both code checks answer the same way; only the code's channel differs.
const VERIFY_CONTROL_CODE = {
  description: CONTROL_CODE_DESCRIPTION,
  tier: 'standard',
  access: { scopes: ['write:transactions'] },
  body: VerifyControlCodeBody,
  response: { 200: ControlVerification },
  errors: [404, 409],
} as const;

export const verifyTwoFactor = endpoint('POST /api/v2/controls/verify-2fa', {
  v1: ['/api/v1/controls/verify-2fa'],
  operationId: 'verifyTwoFactor',
  summary: 'Verify a two-factor code',
  ...VERIFY_CONTROL_CODE,
});

export const verifyVendorSms = endpoint('POST /api/v2/controls/vendor-sms/verify', {
  v1: ['/api/v1/controls/verify-vendor-sms'],
  operationId: 'verifyVendorSms',
  summary: 'Verify a vendor SMS code',
  ...VERIFY_CONTROL_CODE,
});

export const createControlTemplate = endpoint('POST /api/v1/controls/templates', {
  operationId: 'createControlTemplateV1',
  summary: 'Create a control template',
  description:
    "Beyond the spec: the template library a transaction's `templateId` refers to (v1 only; v2 transactions use the `templateId` of templates created here). See docs/controls.md for each control type's `config`.",
  deprecated: true,
  tier: 'standard',
  access: { scopes: ['write:templates'] },
  body: CreateControlTemplateBody,
  response: { 201: ControlTemplate },
});

export const listControlTemplates = endpoint('GET /api/v1/controls/templates', {
  operationId: 'listControlTemplatesV1',
  summary: "List the platform's control templates",
  description: 'Beyond the spec (v1 only). Newest first, at most 500.',
  deprecated: true,
  tier: 'standard',
  access: { anyScope: ['read:templates', 'write:templates'] },
  response: { 200: Type.Array(ControlTemplate) },
});

export const getControlTemplate = endpoint('GET /api/v1/controls/templates/:id', {
  operationId: 'getControlTemplateV1',
  summary: 'Read a control template',
  description: "Beyond the spec (v1 only). Another platform's template answers 404.",
  deprecated: true,
  tier: 'standard',
  access: { anyScope: ['read:templates', 'write:templates'] },
  params: IdParams,
  response: { 200: ControlTemplate },
  errors: [404],
});

export const decideRiskReview = endpoint('POST /api/v1/controls/reviews/:transactionId', {
  operationId: 'decideRiskReviewV1',
  summary: 'Decide a risk review',
  description:
    'Beyond the spec (v1 only, operators): approve (back to `pending`, then the controls after the review) or reject (`failed`, `transaction.failed` with the reason) a transaction in `risk_review`. 409 `INVALID_STATE_TRANSITION` when it is not in review.',
  deprecated: true,
  tier: 'admin',
  access: { scopes: ['admin:platform'] },
  params: Type.Object({ transactionId: Uuid }),
  body: RiskReviewDecisionBody,
  response: { 200: PaymentsTransaction },
  errors: [404, 409],
});

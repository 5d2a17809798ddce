import {
  ControlTemplate,
  ControlVerification,
  CreateControlTemplateBody,
  PaymentsTransaction,
  RiskReviewDecisionBody,
  Uuid,
  VerifyControlCodeBody,
} from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../auth/plugin.js';
import type { ControlsService, UserActionType } from './service.js';

const VERIFY_ANSWERS = { 200: ControlVerification, ...errorResponses(404, 409) };

/**
 * Controls (spec "Controls (K)", v2 `controls/verify-2fa` and `controls/vendor-sms/verify`), and,
 * beyond the spec, the template library (v1) and risk-review decisions (v1, operator).
 */
export function controlsRoutes(service: ControlsService) {
  return async (app: HttpApp) => {
    const verifications: { v: 'v1' | 'v2'; path: string; type: UserActionType; operationId: string; summary: string }[] = [
      {
        v: 'v1',
        path: '/api/v1/controls/verify-2fa',
        type: 'two_factor',
        operationId: 'verifyTwoFactorV1',
        summary: 'Verify a two-factor code',
      },
      {
        v: 'v2',
        path: '/api/v2/controls/verify-2fa',
        type: 'two_factor',
        operationId: 'verifyTwoFactor',
        summary: 'Verify a two-factor code',
      },
      {
        v: 'v1',
        path: '/api/v1/controls/verify-vendor-sms',
        type: 'vendor_sms',
        operationId: 'verifyVendorSmsV1',
        summary: 'Verify a vendor SMS code',
      },
      {
        v: 'v2',
        path: '/api/v2/controls/vendor-sms/verify',
        type: 'vendor_sms',
        operationId: 'verifyVendorSms',
        summary: 'Verify a vendor SMS code',
      },
    ];
    for (const r of verifications) {
      app.post(
        r.path,
        {
          config: { tier: 'standard', access: { scopes: ['write:transactions'] } },
          schema: {
            tags: ['controls'],
            summary: r.summary,
            description:
              "Checks the 6-digit code the transaction's control sent by SMS. A right code answers the verification (`status: approved`) and moves the transaction from `pending_user_action` back to `pending`, then runs the controls after it. A wrong code answers 400 `INVALID_CODE` with `details.attemptsRemaining`; after the last attempt, or once the code expired (400 `INVALID_CODE`, `details.reason: expired`), a required control fails the transaction. 409 when the transaction has no open code of this kind; 404 for another platform's transaction.",
            operationId: r.operationId,
            deprecated: r.v === 'v1',
            body: VerifyControlCodeBody,
            response: VERIFY_ANSWERS,
          },
        },
        async (request) => service.verifyCode(principalOf(request), r.type, request.body),
      );
    }

    app.post(
      '/api/v1/controls/templates',
      {
        config: { tier: 'standard', access: { scopes: ['write:templates'] } },
        schema: {
          tags: ['controls'],
          summary: 'Create a control template',
          description:
            "Beyond the spec: the template library a transaction's `templateId` refers to (v1 only; v2 transactions use the `templateId` of templates created here). See docs/controls.md for each control type's `config`.",
          operationId: 'createControlTemplateV1',
          deprecated: true,
          body: CreateControlTemplateBody,
          response: { 201: ControlTemplate },
        },
      },
      async (request, reply) => reply.code(201).send(await service.createTemplate(principalOf(request), request.body)),
    );

    app.get(
      '/api/v1/controls/templates',
      {
        config: { tier: 'standard', access: { anyScope: ['read:templates', 'write:templates'] } },
        schema: {
          tags: ['controls'],
          summary: "List the platform's control templates",
          description: 'Beyond the spec (v1 only). Newest first, at most 500.',
          operationId: 'listControlTemplatesV1',
          deprecated: true,
          response: { 200: Type.Array(ControlTemplate) },
        },
      },
      async (request) => service.listTemplates(principalOf(request)),
    );

    app.get(
      '/api/v1/controls/templates/:id',
      {
        config: { tier: 'standard', access: { anyScope: ['read:templates', 'write:templates'] } },
        schema: {
          tags: ['controls'],
          summary: 'Read a control template',
          description: "Beyond the spec (v1 only). Another platform's template answers 404.",
          operationId: 'getControlTemplateV1',
          deprecated: true,
          params: Type.Object({ id: Uuid }),
          response: { 200: ControlTemplate, ...errorResponses(404) },
        },
      },
      async (request) => service.getTemplate(principalOf(request), request.params.id),
    );

    app.post(
      '/api/v1/controls/reviews/:transactionId',
      {
        config: { tier: 'admin', access: { scopes: ['admin:platform'] } },
        schema: {
          tags: ['controls'],
          summary: 'Decide a risk review',
          description:
            'Beyond the spec (v1 only, operators): approve (back to `pending`, then the controls after the review) or reject (`failed`, `transaction.failed` with the reason) a transaction in `risk_review`. 409 `INVALID_STATE_TRANSITION` when it is not in review.',
          operationId: 'decideRiskReviewV1',
          deprecated: true,
          params: Type.Object({ transactionId: Uuid }),
          body: RiskReviewDecisionBody,
          response: { 200: PaymentsTransaction, ...errorResponses(404, 409) },
        },
      },
      async (request) => service.decideReview(principalOf(request), request.params.transactionId, request.body),
    );
  };
}

import {
  CheckVerificationBody,
  CreateVerificationBody,
  IDENTITY_PROVIDER_SIGNATURE_HEADER,
  IdentityProviderCallback,
  IdentityProviderCallbackResult,
  Uuid,
  Verification,
} from '@holdfast/contracts';
import { captureRawBody, errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { API_VERSIONS, type ApiVersion, operationId, v2Contract } from '../../http/versions.js';
import { principalOf } from '../auth/index.js';
import type { ComplianceService } from './service.js';

const IdParams = Type.Object({ id: Uuid });

/** v1 keeps the spec's doubled prefix exactly; v2 drops it (PAYMENTS_V2_OPERATIONS, area compliance). */
const PREFIX: Record<ApiVersion, string> = { v1: '/api/v1/api/v1/compliance', v2: '/api/v2/compliance' };

const signatureHeader = (request: FastifyRequest) => {
  const value = request.headers[IDENTITY_PROVIDER_SIGNATURE_HEADER];
  return typeof value === 'string' ? value : undefined;
};

/** Compliance verifications (spec "Payments API: compliance"), on v1 and v2. */
export function complianceRoutes(service: ComplianceService) {
  return async (app: HttpApp) => {
    for (const v of API_VERSIONS) {
      const base = PREFIX[v];

      app.post(
        `${base}/verifications`,
        {
          config: { tier: 'standard', access: { scopes: v2Contract('POST', '/compliance/verifications').access.scopes } },
          schema: {
            tags: ['compliance'],
            summary: 'Create a verification',
            description:
              "Opens an inquiry at the identity provider for one of your users and answers the verification, `pending`, with the provider's `externalInquiryId` and `externalSessionToken` (hand the token to the provider's SDK). The provider's callbacks move its status. When the provider refuses or cannot be reached (502 `INTEGRATION_PROVIDER_ERROR`, `details.retryable` says whether to try again), nothing is stored.",
            operationId: operationId('createVerification', v),
            deprecated: v === 'v1',
            body: CreateVerificationBody,
            response: { 201: Verification, ...errorResponses(502) },
          },
        },
        async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
      );

      app.post(
        `${base}/verifications/check`,
        {
          config: { tier: 'standard', access: { scopes: v2Contract('POST', '/compliance/verifications/check').access.scopes } },
          schema: {
            tags: ['compliance'],
            summary: 'Check a verification',
            description:
              'Your latest verification of the user and type (the most recently created, whatever its status); 404 when there is none. Changes nothing.',
            operationId: operationId('checkVerification', v),
            deprecated: v === 'v1',
            body: CheckVerificationBody,
            response: { 200: Verification, ...errorResponses(404) },
          },
        },
        async (request) => service.check(principalOf(request), request.body),
      );

      app.get(
        `${base}/verifications/:id`,
        {
          config: { tier: 'high', access: { scopes: v2Contract('GET', '/compliance/verifications/{id}').access.scopes } },
          schema: {
            tags: ['compliance'],
            summary: 'Read a verification',
            description: "One of your platform's verifications; another platform's answers 404.",
            operationId: operationId('getVerification', v),
            deprecated: v === 'v1',
            params: IdParams,
            response: { 200: Verification, ...errorResponses(404) },
          },
        },
        async (request) => service.get(principalOf(request), request.params.id),
      );

      app.post(
        `${base}/webhooks/identity-provider`,
        {
          config: { tier: 'public' },
          // The signature is checked over the exact bytes, before the body is parsed.
          preParsing: [
            captureRawBody(),
            async (request) => service.verifyCallback(signatureHeader(request), request.rawBody ?? Buffer.alloc(0)),
          ],
          schema: {
            tags: ['compliance'],
            summary: 'Identity provider callback',
            description: [
              'Called by the identity provider, not by platforms: no credential, but the body must be signed.',
              '`X-Identity-Provider-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed by IDENTITY_PROVIDER_WEBHOOK_SECRET>`;',
              'a missing, malformed, wrong or stale (more than 300 s off) signature answers 401 and changes nothing.',
              'A processed `eventId` answers 200 `duplicate` again and changes nothing; an unknown inquiry answers 404 (the provider retries). See docs/api/compliance.md.',
            ].join(' '),
            operationId: operationId('identityProviderCallback', v),
            deprecated: v === 'v1',
            security: [],
            headers: Type.Object({ [IDENTITY_PROVIDER_SIGNATURE_HEADER]: Type.Optional(Type.String()) }),
            body: IdentityProviderCallback,
            response: { 200: IdentityProviderCallbackResult, ...errorResponses(401, 404) },
          },
        },
        async (request) => service.handleCallback(request.body),
      );
    }
  };
}

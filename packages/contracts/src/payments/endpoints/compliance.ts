import {
  CheckVerificationBody,
  CreateVerificationBody,
  IdentityProviderCallback,
  IdentityProviderCallbackHeaders,
  IdentityProviderCallbackResult,
  Verification,
} from '../compliance.js';
import { IdParams, resource } from './define.js';

// compliance (spec "Payments API: compliance"): v1 keeps the spec's doubled prefix exactly, v2 drops it

const endpoint = resource({ tags: ['compliance'] });

export const createVerification = endpoint('POST /api/v2/compliance/verifications', {
  v1: ['/api/v1/api/v1/compliance/verifications'],
  operationId: 'createVerification',
  summary: 'Create a verification',
  description:
    "Opens an inquiry at the identity provider for one of your users and answers the verification, `pending`, with the provider's `externalInquiryId` and `externalSessionToken` (hand the token to the provider's SDK). The provider's callbacks move its status. When the provider refuses or cannot be reached (502 `INTEGRATION_PROVIDER_ERROR`, `details.retryable` says whether to try again), nothing is stored.",
  tier: 'standard',
  access: { scopes: ['write:compliance'] },
  body: CreateVerificationBody,
  response: { 201: Verification },
  errors: [502],
});

export const checkVerification = endpoint('POST /api/v2/compliance/verifications/check', {
  v1: ['/api/v1/api/v1/compliance/verifications/check'],
  operationId: 'checkVerification',
  summary: 'Check a verification',
  description:
    'Your latest verification of the user and type (the most recently created, whatever its status); 404 when there is none. Changes nothing.',
  tier: 'standard',
  access: { scopes: ['write:compliance'] },
  body: CheckVerificationBody,
  response: { 200: Verification },
  errors: [404],
});

export const getVerification = endpoint('GET /api/v2/compliance/verifications/:id', {
  v1: ['/api/v1/api/v1/compliance/verifications/:id'],
  operationId: 'getVerification',
  summary: 'Read a verification',
  description: "One of your platform's verifications; another platform's answers 404.",
  tier: 'high',
  access: { scopes: ['read:compliance'] },
  params: IdParams,
  response: { 200: Verification },
  errors: [404],
});

export const identityProviderCallback = endpoint('POST /api/v2/compliance/webhooks/identity-provider', {
  v1: ['/api/v1/api/v1/compliance/webhooks/identity-provider'],
  operationId: 'identityProviderCallback',
  summary: 'Identity provider callback',
  description: [
    'Called by the identity provider, not by platforms: no credential, but the body must be signed.',
    '`X-Identity-Provider-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed by IDENTITY_PROVIDER_WEBHOOK_SECRET>`;',
    'a missing, malformed, wrong or stale (more than 300 s off) signature answers 401 and changes nothing.',
    'A processed `eventId` answers 200 `duplicate` again and changes nothing; an unknown inquiry answers 404 (the provider retries). See docs/api/compliance.md.',
  ].join(' '),
  tier: 'public',
  access: 'none',
  security: [],
  headers: IdentityProviderCallbackHeaders,
  body: IdentityProviderCallback,
  response: { 200: IdentityProviderCallbackResult },
  errors: [401, 404],
});

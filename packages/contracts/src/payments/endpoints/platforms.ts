import { Type } from '@sinclair/typebox';
import {
  ApiKeyCreated,
  CreateApiKeyBody,
  Platform,
  PlatformListQuery,
  RegenerateApiKeyBody,
  ScopeCatalogue,
  UpdatePlatformBody,
  VerifyApiKeyResult,
} from '../access.js';
import { IdParams, resource } from './define.js';

// platforms and API keys (spec "Payments API: platform and keys"); API keys are v1 credentials, the reads also on v2

const endpoint = resource({ tags: ['platforms'] });

export const createApiKey = endpoint('POST /api/v1/auth/api-key', {
  operationId: 'createApiKeyV1',
  summary: 'Create a platform and its API key',
  description: 'The key is shown once in this answer; Holdfast stores only its hash. Without `scopes`, the key gets the read-only scopes.',
  tier: 'admin',
  access: { scopes: ['admin:platform'] },
  body: CreateApiKeyBody,
  response: { 201: ApiKeyCreated },
});

export const regenerateApiKey = endpoint('POST /api/v1/auth/api-key/regenerate', {
  operationId: 'regenerateApiKeyV1',
  summary: "Regenerate a platform's API key",
  description:
    'Issues a new key (shown once) and revokes the old one at once, on every instance within a second. Your own platform with `manage:api-keys`, any platform with `admin:platform`.',
  tier: 'admin',
  access: { anyScope: ['manage:api-keys', 'admin:platform'] },
  body: RegenerateApiKeyBody,
  response: { 200: ApiKeyCreated },
  errors: [404],
});

export const verifyApiKey = endpoint('POST /api/v1/auth/verify', {
  operationId: 'verifyApiKeyV1',
  summary: 'Verify an API key',
  description:
    'Says whether the key in `X-API-Key` is valid: `valid` is true only for the current key of an active platform. An unknown key answers `valid: false` with null ids.',
  tier: 'public',
  access: 'none',
  security: [{ apiKey: [] }],
  response: { 200: VerifyApiKeyResult },
  errors: [401],
});

export const listScopes = endpoint('GET /api/v2/auth/scopes', {
  v1: ['/api/v1/auth/scopes'],
  operationId: 'listScopes',
  summary: 'List the scopes',
  description: 'Every scope, what it grants, its Workspace API form, and whether API keys and v2 accept it.',
  tier: 'public',
  access: 'none',
  response: { 200: ScopeCatalogue },
});

export const getOwnPlatform = endpoint('GET /api/v2/auth/platform/me', {
  v1: ['/api/v1/auth/platform/me'],
  operationId: 'getOwnPlatform',
  summary: 'The platform of the calling credential',
  tier: 'standard',
  access: { scopes: [] },
  response: { 200: Platform },
});

export const listPlatforms = endpoint('GET /api/v2/auth/platforms', {
  v1: ['/api/v1/auth/platforms'],
  operationId: 'listPlatforms',
  summary: 'List platforms',
  description: 'Every platform, newest first, active or not; `workspaceId` narrows to one workspace.',
  tier: 'admin',
  access: { scopes: ['admin:platform'] },
  querystring: PlatformListQuery,
  response: { 200: Type.Array(Platform) },
});

export const getPlatform = endpoint('GET /api/v2/auth/platform/:id', {
  v1: ['/api/v1/auth/platform/:id'],
  operationId: 'getPlatform',
  summary: 'Read a platform',
  description: 'Your own platform with `read:platform`; any platform with `admin:platform`. Others answer 404.',
  tier: 'admin',
  access: { anyScope: ['read:platform', 'admin:platform'] },
  params: IdParams,
  response: { 200: Platform },
  errors: [404],
});

export const updatePlatform = endpoint('PUT /api/v2/auth/platform/:id', {
  v1: ['/api/v1/auth/platform/:id'],
  operationId: 'updatePlatform',
  summary: 'Update a platform',
  description:
    'Your own platform with `write:platform` (name, webhookUrl, settings); any platform and also `scopes` and `isActive` with `admin:platform`. `isActive: false` stops the key and revokes its tokens at once. New scopes apply to the key at once.',
  tier: 'admin',
  access: { anyScope: ['write:platform', 'admin:platform'] },
  params: IdParams,
  body: UpdatePlatformBody,
  response: { 200: Platform },
  errors: [404],
});

export const deactivatePlatform = endpoint('DELETE /api/v2/auth/platform/:id', {
  v1: ['/api/v1/auth/platform/:id'],
  operationId: 'deactivatePlatform',
  summary: 'Deactivate a platform',
  description:
    'Soft delete: the platform stays readable with `isActive: false`, its API key stops working and its OAuth tokens are revoked, on every instance within a second. `PUT` with `isActive: true` brings the key back (not the tokens).',
  tier: 'admin',
  access: { scopes: ['admin:platform'] },
  params: IdParams,
  response: { 204: Type.Null({ description: 'Deactivated' }) },
  errors: [404],
});

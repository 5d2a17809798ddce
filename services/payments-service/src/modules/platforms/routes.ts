import {
  ApiKeyCreated,
  CreateApiKeyBody,
  Platform,
  RegenerateApiKeyBody,
  SCOPE_DESCRIPTIONS,
  SCOPES,
  ScopeCatalogue,
  toWorkspaceScope,
  UpdatePlatformBody,
  Uuid,
  V1_SCOPES,
  VerifyApiKeyResult,
} from '@holdfast/contracts';
import { errorResponses, type HttpApp } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import { API_VERSIONS, operationId } from '../../http/versions.js';
import { principalOf } from '../auth/plugin.js';
import type { PlatformsService } from './service.js';

const IdParams = Type.Object({ id: Uuid });
/** v2 operation ids are the plain names; v1 ones end in V1 and are marked deprecated. */
const deprecated = (v: 'v1' | 'v2') => v === 'v1';

const SCOPE_CATALOGUE = SCOPES.map((scope) => ({
  scope,
  workspaceForm: toWorkspaceScope(scope),
  description: SCOPE_DESCRIPTIONS[scope],
  apiKeys: (V1_SCOPES as readonly string[]).includes(scope),
  v2: !(['cancel:transactions', 'rescind:transactions'] as string[]).includes(scope),
}));

/** Platforms and API keys (spec "Payments API: platform and keys"); reads also on v2. */
export function platformRoutes(service: PlatformsService) {
  return async (app: HttpApp) => {
    app.post(
      '/api/v1/auth/api-key',
      {
        config: { tier: 'admin', access: { scopes: ['admin:platform'] } },
        schema: {
          tags: ['platforms'],
          summary: 'Create a platform and its API key',
          description:
            'The key is shown once in this answer; Holdfast stores only its hash. Without `scopes`, the key gets the read-only scopes.',
          operationId: 'createApiKeyV1',
          body: CreateApiKeyBody,
          response: { 201: ApiKeyCreated },
        },
      },
      async (request, reply) => reply.code(201).send(await service.create(principalOf(request), request.body)),
    );

    app.post(
      '/api/v1/auth/api-key/regenerate',
      {
        config: { tier: 'admin', access: { anyScope: ['manage:api-keys', 'admin:platform'] } },
        schema: {
          tags: ['platforms'],
          summary: "Regenerate a platform's API key",
          description:
            'Issues a new key (shown once) and revokes the old one at once, on every instance within a second. Your own platform with `manage:api-keys`, any platform with `admin:platform`.',
          operationId: 'regenerateApiKeyV1',
          body: RegenerateApiKeyBody,
          response: { 200: ApiKeyCreated, ...errorResponses(404) },
        },
      },
      async (request) => service.regenerate(principalOf(request), request.body.platformId),
    );

    app.post(
      '/api/v1/auth/verify',
      {
        config: { tier: 'public' },
        schema: {
          tags: ['platforms'],
          summary: 'Verify an API key',
          description:
            'Says whether the key in `X-API-Key` is valid: `valid` is true only for the current key of an active platform. An unknown key answers `valid: false` with null ids.',
          operationId: 'verifyApiKeyV1',
          security: [{ apiKey: [] }],
          response: { 200: VerifyApiKeyResult, ...errorResponses(401) },
        },
      },
      async (request) => {
        const header = request.headers['x-api-key'];
        return service.verify(typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined);
      },
    );

    for (const v of API_VERSIONS) {
      app.get(
        `/api/${v}/auth/scopes`,
        {
          config: { tier: 'public' },
          schema: {
            tags: ['platforms'],
            summary: 'List the scopes',
            description: 'Every scope, what it grants, its Workspace API form, and whether API keys and v2 accept it.',
            operationId: operationId('listScopes', v),
            deprecated: deprecated(v),
            response: { 200: ScopeCatalogue },
          },
        },
        async () => SCOPE_CATALOGUE,
      );

      app.get(
        `/api/${v}/auth/platform/me`,
        {
          config: { tier: 'standard', access: { scopes: [] } },
          schema: {
            tags: ['platforms'],
            summary: 'The platform of the calling credential',
            operationId: operationId('getOwnPlatform', v),
            deprecated: deprecated(v),
            response: { 200: Platform },
          },
        },
        async (request) => service.me(principalOf(request)),
      );

      app.get(
        `/api/${v}/auth/platforms`,
        {
          config: { tier: 'admin', access: { scopes: ['admin:platform'] } },
          schema: {
            tags: ['platforms'],
            summary: 'List platforms',
            description: 'Every platform, newest first, active or not; `workspaceId` narrows to one workspace.',
            operationId: operationId('listPlatforms', v),
            deprecated: deprecated(v),
            querystring: Type.Object({ workspaceId: Type.Optional(Uuid) }, { additionalProperties: false }),
            response: { 200: Type.Array(Platform) },
          },
        },
        async (request) => service.list(principalOf(request), request.query),
      );

      app.get(
        `/api/${v}/auth/platform/:id`,
        {
          config: { tier: 'admin', access: { anyScope: ['read:platform', 'admin:platform'] } },
          schema: {
            tags: ['platforms'],
            summary: 'Read a platform',
            description: 'Your own platform with `read:platform`; any platform with `admin:platform`. Others answer 404.',
            operationId: operationId('getPlatform', v),
            deprecated: deprecated(v),
            params: IdParams,
            response: { 200: Platform, ...errorResponses(404) },
          },
        },
        async (request) => service.get(principalOf(request), request.params.id),
      );

      app.put(
        `/api/${v}/auth/platform/:id`,
        {
          config: { tier: 'admin', access: { anyScope: ['write:platform', 'admin:platform'] } },
          schema: {
            tags: ['platforms'],
            summary: 'Update a platform',
            description:
              'Your own platform with `write:platform` (name, webhookUrl, settings); any platform and also `scopes` and `isActive` with `admin:platform`. `isActive: false` stops the key and revokes its tokens at once. New scopes apply to the key at once.',
            operationId: operationId('updatePlatform', v),
            deprecated: deprecated(v),
            params: IdParams,
            body: UpdatePlatformBody,
            response: { 200: Platform, ...errorResponses(404) },
          },
        },
        async (request) => service.update(principalOf(request), request.params.id, request.body),
      );

      app.delete(
        `/api/${v}/auth/platform/:id`,
        {
          config: { tier: 'admin', access: { scopes: ['admin:platform'] } },
          schema: {
            tags: ['platforms'],
            summary: 'Deactivate a platform',
            description:
              'Soft delete: the platform stays readable with `isActive: false`, its API key stops working and its OAuth tokens are revoked, on every instance within a second. `PUT` with `isActive: true` brings the key back (not the tokens).',
            operationId: operationId('deactivatePlatform', v),
            deprecated: deprecated(v),
            params: IdParams,
            response: { 204: Type.Null({ description: 'Deactivated' }), ...errorResponses(404) },
          },
        },
        async (request, reply) => {
          await service.deactivate(principalOf(request), request.params.id);
          return reply.code(204).send(null);
        },
      );
    }
  };
}

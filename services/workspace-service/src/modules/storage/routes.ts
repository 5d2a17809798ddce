import { AVATAR_TYPES } from '@holdfast/contracts';
import { errorResponses, type HttpApp, notFound } from '@holdfast/http-kit';
import { Type } from '@sinclair/typebox';
import type { AvatarStore } from './avatars.js';

/** `GET /avatars/{file}`: uploaded avatars, public (their names are unguessable), cached for a year. */
export function avatarFileRoutes(avatars: AvatarStore) {
  return async (app: HttpApp) => {
    app.get(
      '/avatars/:file',
      {
        config: { tier: 'high', access: 'public' },
        schema: {
          tags: ['files'],
          summary: 'An uploaded avatar image',
          description:
            'Avatar paths (`avatarPath` of users and workspaces) point here. The file never changes: a new upload gets a new name.',
          operationId: 'getAvatar',
          params: Type.Object({ file: Type.String({ pattern: '^[0-9a-f-]{36}\\.(png|jpg|webp|gif)$' }) }),
          response: {
            200: {
              description: 'The image',
              content: Object.fromEntries(
                Object.keys(AVATAR_TYPES).map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
              ),
            },
            ...errorResponses(404),
          },
        },
      },
      async (request, reply) => {
        const file = await avatars.read(request.params.file);
        if (!file) throw notFound('Avatar');
        return reply
          .header('content-type', file.contentType)
          .header('cache-control', 'public, max-age=31536000, immutable')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'")
          .send(file.data);
      },
    );
  };
}

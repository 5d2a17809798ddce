import { workspaceEndpoints as api, notFound } from '@holdfast/contracts';
import { type HttpApp, route, serveRoutes } from '@holdfast/http-kit';
import { WORKSPACE_SURFACE } from '../../http/surface.js';
import type { AvatarStore } from './avatars.js';

/** `GET /avatars/{file}`: uploaded avatars, public (their names are unguessable), cached for a year. */
export function avatarFileRoutes(avatars: AvatarStore) {
  return async (app: HttpApp) => {
    serveRoutes(app, WORKSPACE_SURFACE, [
      route(api.getAvatar, async (request, reply) => {
        const file = await avatars.read(request.params.file);
        if (!file) throw notFound('Avatar');
        return reply
          .header('content-type', file.contentType)
          .header('cache-control', 'public, max-age=31536000, immutable')
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'")
          .send(file.data);
      }),
    ]);
  };
}

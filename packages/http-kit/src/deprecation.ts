import type { FastifyInstance } from 'fastify';
import { AppError } from './errors.js';

/** A deprecated surface (Payments v1, the unversioned Workspace routes) and its sunset. */
export interface DeprecatedSurface {
  /** Does this request URL belong to the surface? */
  matches: (url: string) => boolean;
  /** `Sunset` header value, exactly as the spec writes it. */
  sunset: string;
  /** `Link` header value for a request URL (its successor). */
  link: (url: string) => string;
  /** After the sunset: answer 410 `API_VERSION_SUNSET` (the deprecation headers still sent). */
  enforced: boolean;
  successor: string;
}

export function registerDeprecations(app: FastifyInstance, surfaces: DeprecatedSurface[]): void {
  app.addHook('onRequest', async (request, reply) => {
    const surface = surfaces.find((s) => s.matches(request.url));
    if (!surface) return;
    reply.header('Deprecation', 'true');
    reply.header('Sunset', surface.sunset);
    reply.header('Link', surface.link(request.url));
    if (surface.enforced) {
      throw new AppError('API_VERSION_SUNSET', `This API version was retired on ${surface.sunset}; use ${surface.successor}`, {
        sunset: surface.sunset,
        successor: surface.successor,
      });
    }
  });
}

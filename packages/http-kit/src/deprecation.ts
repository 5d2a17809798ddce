import { AppError } from '@holdfast/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';

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

/** The 410 of an enforced sunset, or nothing when the request's surface still answers. */
export function sunsetError(surfaces: DeprecatedSurface[], request: FastifyRequest): AppError | undefined {
  const surface = surfaces.find((s) => s.matches(request.url));
  if (!surface?.enforced) return undefined;
  return new AppError('API_VERSION_SUNSET', `This API version was retired on ${surface.sunset}; use ${surface.successor}`, {
    sunset: surface.sunset,
    successor: surface.successor,
  });
}

/**
 * Every answer of a deprecated surface carries `Deprecation`, `Sunset` and `Link` (set first
 * thing, so errors carry them too). An enforced sunset answers 410 from a route hook that runs
 * after the rate limiter, so the 410 also carries the X-RateLimit-* headers; unknown URLs of the
 * surface get the same 410 from the not-found handler (`sunsetError`).
 */
export function registerDeprecations(app: FastifyInstance, surfaces: DeprecatedSurface[]): void {
  app.addHook('onRequest', (request, reply, done) => {
    const surface = surfaces.find((s) => s.matches(request.url));
    if (surface) {
      reply.header('Deprecation', 'true');
      reply.header('Sunset', surface.sunset);
      reply.header('Link', surface.link(request.url));
    }
    done();
  });
  app.addHook('onRoute', (route) => {
    if (!surfaces.some((s) => s.enforced && s.matches(route.url))) return;
    const enforce = async (request: FastifyRequest) => {
      const error = sunsetError(surfaces, request);
      if (error) throw error;
    };
    route.onRequest = [...[route.onRequest ?? []].flat(), enforce] as typeof route.onRequest;
  });
}

import type { FastifyRequest } from 'fastify';

/**
 * `preValidation` of routes whose whole body is optional (every field is): a request without a
 * body is validated (and handled) as `{}`.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  request.body ??= {};
}

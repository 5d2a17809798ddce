import { SuccessEnvelope, workspaceEndpoints } from '@holdfast/contracts';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';

// The OpenAPI security requirements live with the endpoint catalogue in @holdfast/contracts.
export const { BEARER, CUSTOMER_BEARER, INTERNAL_KEY, WORKSPACE_KEY } = workspaceEndpoints;

/** `{success: true, data, meta}` around a payload (list answers carry `meta.pagination`). */
export function ok<T extends TSchema>(data: T, description?: string) {
  return SuccessEnvelope(data, description ? { description } : {});
}

/**
 * `preValidation` of routes whose whole body is optional (every field is): a request without a
 * body is validated (and handled) as `{}`.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  request.body ??= {};
}

export { NoContent } from '@holdfast/contracts';

import { SuccessEnvelope } from '@holdfast/contracts';
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';

/** OpenAPI security of routes that need a Workspace access token. */
export const BEARER = [{ bearer: [] }];
/** OpenAPI security of the customer self-service routes (a customer access token). */
export const CUSTOMER_BEARER = [{ customerBearer: [] }];
/** OpenAPI security of service-to-service routes (`X-Internal-API-Key`). */
export const INTERNAL_KEY = [{ internalApiKey: [] }];
/** OpenAPI security of the workspace-key routes (`X-API-Key`: a Payments API key of the workspace). */
export const WORKSPACE_KEY = [{ workspaceKey: [] }];

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

/** A 204 answer: no body. */
export const NoContent = Type.Null({ description: 'No content' });

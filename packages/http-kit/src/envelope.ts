import { type ErrorEnvelope, ErrorEnvelope as ErrorEnvelopeSchema, type ErrorObject, type PaginationMeta } from '@holdfast/contracts';
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';

/** The standard success envelope `{success, data, meta}` for the Workspace API and token answers. */
export function envelope<T>(request: FastifyRequest, data: T, pagination?: PaginationMeta) {
  return {
    success: true as const,
    data,
    meta: { timestamp: new Date().toISOString(), requestId: request.id, ...(pagination ? { pagination } : {}) },
  };
}

export function errorEnvelope(error: ErrorObject, requestId: string): ErrorEnvelope {
  return { success: false, data: null, error, meta: { timestamp: new Date().toISOString(), requestId } };
}

/** Reference to the shared error envelope schema (registered once per app, a component in OpenAPI). */
export const ErrorResponse = Type.Ref(ErrorEnvelopeSchema);

/** `errorResponses(401, 404)` -> the response map entries for those statuses, all the error envelope. */
export function errorResponses<const S extends readonly number[]>(...statuses: S): Record<S[number], TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorResponse])) as Record<S[number], TSchema>;
}

import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ErrorObject } from './errors.js';
import { PaginationMeta } from './pagination.js';

export const ResponseMeta = Type.Object(
  {
    timestamp: Type.String({ format: 'date-time' }),
    requestId: Type.String(),
    pagination: Type.Optional(PaginationMeta),
  },
  { $id: 'ResponseMeta' },
);
export type ResponseMeta = Static<typeof ResponseMeta>;

/** `{success: true, data, meta}`: the Workspace API's and token responses' success shape. */
export function SuccessEnvelope<T extends TSchema>(data: T, options: { description?: string } = {}) {
  return Type.Object(
    {
      success: Type.Literal(true),
      data,
      meta: ResponseMeta,
    },
    options,
  );
}
export type SuccessEnvelope<T> = { success: true; data: T; meta: ResponseMeta };

/** A 204 answer: no body. */
export const NoContent = Type.Null({ description: 'No content' });

/** The one error shape of every surface (Payments API errors included, per the operator contract). */
export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    data: Type.Null(),
    error: ErrorObject,
    meta: Type.Object({ timestamp: Type.String({ format: 'date-time' }), requestId: Type.String() }),
  },
  {
    $id: 'ErrorEnvelope',
    description: 'Every 4xx and 5xx answer of every Holdfast API.',
    examples: [
      {
        success: false,
        data: null,
        error: { code: 'NOT_FOUND', message: 'Transaction not found', statusCode: 404 },
        meta: { timestamp: '2026-11-21T10:00:00.000Z', requestId: 'req_6f1c2a' },
      },
    ],
  },
);
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

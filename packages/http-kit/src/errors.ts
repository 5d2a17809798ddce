import { AppError, type ErrorCode, type ErrorObject, errorStatus, type FieldError } from '@holdfast/contracts';

export { AppError };

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const unauthorized = (message = 'Missing or invalid credentials') => new AppError('UNAUTHORIZED', message);
export const forbidden = (message = 'Insufficient permissions') => new AppError('FORBIDDEN', message);
export const conflict = (message: string, details?: Record<string, unknown>) => new AppError('CONFLICT', message, details);

/** `VALIDATION_ERROR` naming each bad field, for checks a schema cannot express. */
export function validationError(errors: FieldError[]): AppError {
  const message = errors.map((e) => `${e.field} ${e.reason}`).join('; ');
  return new AppError('VALIDATION_ERROR', message || 'Invalid request', { errors });
}

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Ajv's `/legs/0/amount` + keyword params -> `legs.0.amount`, one entry per bad field. */
export function fieldErrorsFromAjv(issues: AjvIssue[], context: string | undefined): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of issues) {
    const segments = issue.instancePath.split('/').filter(Boolean);
    let reason = issue.message ?? 'is invalid';
    if (issue.keyword === 'required') {
      segments.push(String(issue.params.missingProperty));
      reason = 'is required';
    } else if (issue.keyword === 'additionalProperties') {
      segments.push(String(issue.params.additionalProperty));
      reason = 'is not a known parameter';
    } else if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
      reason = `must be one of: ${issue.params.allowedValues.join(', ')}`;
    }
    const field = segments.length > 0 ? segments.join('.') : (context ?? 'body');
    // anyOf/oneOf wrappers repeat what their branches said; keep the first, most specific reason.
    if (seen.has(field)) continue;
    seen.add(field);
    errors.push({ field, reason });
  }
  return errors;
}

/** The Fastify error codes that are the client's fault, and what they become. */
const FASTIFY_CODES: Record<string, { code: ErrorCode; message?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is larger than the limit' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Unsupported Content-Type; send application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'VALIDATION_ERROR', message: 'Content-Length does not match the body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'INVALID_JSON', message: 'Body is empty but Content-Type is application/json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'INVALID_JSON', message: 'Body is not valid JSON' },
  FST_ERR_VALIDATION: { code: 'VALIDATION_ERROR' },
};

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  503: 'SERVICE_UNAVAILABLE',
};

interface FastifyishError {
  code?: string;
  statusCode?: number;
  message: string;
  validation?: AjvIssue[];
  validationContext?: string;
}

/** Any thrown value -> the public error object. Unknown errors become a bare 500 (details only in logs). */
export function toErrorObject(error: unknown): ErrorObject {
  if (error instanceof AppError) return error.toObject();
  const e = error as FastifyishError;
  if (e && Array.isArray(e.validation)) {
    const errors = fieldErrorsFromAjv(e.validation, e.validationContext);
    return {
      code: 'VALIDATION_ERROR',
      message: errors.map((x) => `${x.field} ${x.reason}`).join('; '),
      statusCode: 400,
      details: { errors },
    };
  }
  if (e && typeof e.code === 'string' && e.code in FASTIFY_CODES) {
    const mapped = FASTIFY_CODES[e.code]!;
    return { code: mapped.code, message: mapped.message ?? e.message, statusCode: errorStatus(mapped.code) };
  }
  if (error instanceof SyntaxError && e.statusCode === 400) {
    return { code: 'INVALID_JSON', message: 'Body is not valid JSON', statusCode: 400 };
  }
  // Other client errors raised by Fastify or its plugins (their messages are written for clients).
  const byStatus = e && typeof e.statusCode === 'number' ? STATUS_CODES[e.statusCode] : undefined;
  if (byStatus) return { code: byStatus, message: e.message || byStatus, statusCode: errorStatus(byStatus) };
  return { code: 'INTERNAL_ERROR', message: 'Internal server error', statusCode: 500 };
}

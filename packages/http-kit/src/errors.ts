import {
  AppError,
  boundedFieldErrors,
  boundedText,
  type ErrorCode,
  type ErrorObject,
  errorStatus,
  type FieldError,
  MAX_ERROR_TEXT,
  MAX_FIELD_ERRORS,
} from '@holdfast/contracts';

/**
 * @deprecated The error helpers live in `@holdfast/contracts` beside the codes (issue 35); this
 * re-export stays for one step so branches written against the kit still compile. Import them from
 * `@holdfast/contracts`: the architecture test fails on a service importing them from here.
 */
export { boundedText, conflict, forbidden, notFound, unauthorized, validationError } from '@holdfast/contracts';

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
  FST_ERR_BAD_URL: { code: 'VALIDATION_ERROR', message: 'The URL has invalid percent-encoding' },
  FST_ERR_INVALID_URL: { code: 'VALIDATION_ERROR', message: 'The URL is not valid' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'URI_TOO_LONG', message: 'A path parameter is longer than 100 characters' },
};

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMIT_EXCEEDED',
  431: 'HEADERS_TOO_LARGE',
  503: 'SERVICE_UNAVAILABLE',
};

interface FastifyishError {
  code?: string;
  statusCode?: number;
  message: string;
  validation?: AjvIssue[];
  validationContext?: string;
}

/**
 * Any thrown value -> the public error object, bounded in size. Unknown errors become a bare 500
 * (details only in logs).
 */
export function toErrorObject(error: unknown): ErrorObject {
  const object = unboundedErrorObject(error);
  const errors = object.details?.errors;
  if (object.code === 'VALIDATION_ERROR' && Array.isArray(errors) && errors.length > MAX_FIELD_ERRORS) {
    const bounded = boundedFieldErrors(errors as FieldError[]);
    return { ...object, message: bounded.message, details: { ...object.details, ...bounded.details } };
  }
  return { ...object, message: boundedText(object.message, MAX_MESSAGE) };
}

/** Longest `error.message`: room for `MAX_FIELD_ERRORS` bounded field errors. */
const MAX_MESSAGE = MAX_FIELD_ERRORS * (2 * MAX_ERROR_TEXT + 3) + 32;

function unboundedErrorObject(error: unknown): ErrorObject {
  if (error instanceof AppError) return error.toObject();
  const e = error as FastifyishError;
  if (e && Array.isArray(e.validation)) {
    const bounded = boundedFieldErrors(fieldErrorsFromAjv(e.validation, e.validationContext));
    return { code: 'VALIDATION_ERROR', message: bounded.message, statusCode: 400, details: bounded.details };
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
  if (isDependencyOutage(error)) {
    return { code: 'SERVICE_UNAVAILABLE', message: 'A service this request needs is unavailable; retry shortly', statusCode: 503 };
  }
  return { code: 'INTERNAL_ERROR', message: 'Internal server error', statusCode: 500 };
}

/** postgres.js connection failures, PostgreSQL's "connection exception" and shutdown codes, and a standby's refusal to write. */
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  '57P01',
  '57P02',
  '57P03',
  // read_only_sql_transaction: the server reached is (still) a standby, during a failover.
  '25006',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/**
 * A request that failed because PostgreSQL (or another dependency) is down or restarting, not
 * because of a bug: it changed nothing (its transaction never committed), so 503 says "retry",
 * with the same Idempotency-Key. Looks through drizzle's wrapping (`cause`).
 */
export function isDependencyOutage(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string' && OUTAGE_CODES.has(e.code)) return true;
    e = e.cause as typeof e;
  }
  return false;
}

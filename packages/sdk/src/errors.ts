/**
 * Every failure the SDK reports is a HoldfastError: an error answer of the API (its envelope's
 * `code`, `message`, `statusCode`, `details` and the `X-Request-Id`), a network failure, or a
 * webhook that fails verification. One subclass per family, so callers can `instanceof` the family
 * and `switch` on `code` within it.
 */
export class HoldfastError extends Error {
  /** The API's error code (`VALIDATION_ERROR`, `NOT_FOUND`...; docs/errors.md) or the SDK's own (`NETWORK_ERROR`...). */
  readonly code: string;
  /** The HTTP status, or `null` when no answer came (network error, time-out) or none applies. */
  readonly statusCode: number | null;
  /** The answer's `X-Request-Id` (quote it to support), when an answer came. */
  readonly requestId: string | null;
  readonly details: Record<string, unknown> | undefined;
  /** `Retry-After` of the answer, in seconds, when it had one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: {
    code: string;
    message: string;
    statusCode?: number | null;
    requestId?: string | null;
    details?: Record<string, unknown> | undefined;
    retryAfterSeconds?: number | undefined;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code;
    this.statusCode = init.statusCode ?? null;
    this.requestId = init.requestId ?? null;
    this.details = init.details;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

/** 400, 413, 415, 422: the request was refused as it is; nothing changed. `details.errors` names the fields. */
export class ValidationError extends HoldfastError {}
/** 401 and 403: no, a bad, an expired or a revoked credential, a missing scope or role. */
export class AuthError extends HoldfastError {}
/** 404: the resource does not exist, or belongs to someone else. */
export class NotFoundError extends HoldfastError {}
/** 409 (and 410): the resource's state forbids it now (duplicate, state transition, idempotency key in use). */
export class ConflictError extends HoldfastError {}
/** 429: too many requests; `retryAfterSeconds` says when to try again. */
export class RateLimitError extends HoldfastError {}
/** No answer: connection refused or dropped, DNS, time-out. `statusCode` is null. */
export class ConnectionError extends HoldfastError {}
/** A webhook delivery that fails verification (`code`: `WEBHOOK_SIGNATURE_INVALID`, `WEBHOOK_TIMESTAMP_STALE`, `WEBHOOK_HEADERS_MISSING`, `WEBHOOK_BODY_INVALID`, `WEBHOOK_RAW_BODY_REQUIRED`). */
export class WebhookVerificationError extends HoldfastError {}

const BY_STATUS: Record<number, typeof HoldfastError> = {
  400: ValidationError,
  401: AuthError,
  403: AuthError,
  404: NotFoundError,
  409: ConflictError,
  410: ConflictError,
  413: ValidationError,
  415: ValidationError,
  422: ValidationError,
  429: RateLimitError,
};

/** The error of an API answer, from its status and its envelope (or whatever body came). */
export function errorFromAnswer(status: number, body: unknown, headers: Headers): HoldfastError {
  const envelope = body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null;
  const oauth = body as { error?: unknown; error_description?: unknown } | null;
  const error = typeof envelope?.error === 'object' && envelope.error !== null ? envelope.error : undefined;
  const code =
    typeof error?.code === 'string' ? error.code : typeof oauth?.error === 'string' ? oauth.error.toUpperCase() : `HTTP_${status}`;
  const message =
    typeof error?.message === 'string'
      ? error.message
      : typeof oauth?.error_description === 'string'
        ? oauth.error_description
        : `The API answered ${status}`;
  const Family = BY_STATUS[status] ?? HoldfastError;
  return new Family({
    code,
    message,
    statusCode: status,
    requestId: headers.get('x-request-id'),
    details: typeof error?.details === 'object' && error.details !== null ? (error.details as Record<string, unknown>) : undefined,
    retryAfterSeconds: retryAfterSeconds(headers.get('retry-after')),
  });
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

import { type Static, Type } from '@sinclair/typebox';

/**
 * The closed list of error codes. Every 4xx/5xx response of every Holdfast process carries one of
 * these in `error.code`, and each maps to exactly one HTTP status. Adding a code is a backward
 * compatible change; changing a code's status or meaning is not.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  TESTNET_NOT_ALLOWED_IN_PRODUCTION: 400,
  INVALID_EVENT_TYPES: 400,
  NO_ROTATION_IN_PROGRESS: 400,
  NOT_DISPUTABLE: 400,
  DISPUTE_RESOLVED: 400,
  HIGHEST_TIER_REACHED: 400,
  USER_HAS_NO_WORKSPACE: 400,
  WALLET_PROVIDER_NOT_CONFIGURED: 400,
  WALLET_ALREADY_LINKED: 400,
  INVALID_CODE: 400,
  CHAIN_RECEIPT_MISMATCH: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  TOKEN_EXPIRED: 401,
  FORBIDDEN: 403,
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  DUPLICATE_TRANSACTION: 409,
  INVALID_STATE_TRANSITION: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  CHAIN_TRANSACTION_PENDING: 409,
  ORCHESTRATION_TYPE_MISMATCH: 409,
  RESCIND_NOT_ALLOWED: 409,
  HOLD_PERIOD_ENDED: 409,
  RELEASE_BLOCKED_BY_CONTROL: 409,
  REQUEST_TIMEOUT: 408,
  API_VERSION_SUNSET: 410,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_KEY_REUSED: 422,
  AUTHORIZATION_REFUSED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  DEPLOYMENT_LIMIT_EXCEEDED: 429,
  RELAYER_BUDGET_EXHAUSTED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  WALLET_PROVIDER_ERROR: 502,
  INTEGRATION_PROVIDER_ERROR: 502,
  UPSTREAM_UNAVAILABLE: 503,
  CONTRACT_NOT_AVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const ErrorCodeSchema = Type.Union(
  ERROR_CODES.map((code) => Type.Literal(code)),
  { $id: 'ErrorCode', description: 'Closed list of error codes; see docs/errors.md.' },
);

/**
 * A VALIDATION_ERROR lists at most this many bad fields in `details.errors`; `details.more` counts
 * the rest, so an answer stays small whatever the body (10,000 bad items are 20 + `more: 9980`).
 */
export const MAX_FIELD_ERRORS = 20;
/** Longest field path or reason echoed in an error; longer ones end in `…`. */
export const MAX_ERROR_TEXT = 200;

export const FieldError = Type.Object(
  {
    field: Type.String({ description: 'Path of the offending field, dotted (`legs.0.amount`); `body` for the whole body.' }),
    reason: Type.String(),
  },
  { $id: 'FieldError' },
);
export type FieldError = Static<typeof FieldError>;

export const ErrorObject = Type.Object(
  {
    code: Type.Unsafe<ErrorCode>(Type.String({ description: 'One of the closed list of error codes (docs/errors.md).' })),
    message: Type.String(),
    statusCode: Type.Integer({ minimum: 400, maximum: 599 }),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  {
    $id: 'ErrorObject',
    examples: [
      {
        code: 'VALIDATION_ERROR',
        message: 'body/amount must be >= 0.01',
        statusCode: 400,
        details: { errors: [{ field: 'amount', reason: 'must be >= 0.01' }] },
      },
    ],
  },
);
export type ErrorObject = Static<typeof ErrorObject>;

export function errorStatus(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

/**
 * The error every layer throws on purpose. Carries a code from the closed list; the status follows
 * from the code, so a route cannot answer 404 with `CONFLICT`.
 */
export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers, e.g. `Retry-After` on a 429. */
    readonly headers?: Record<string, string>,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'AppError';
    this.statusCode = errorStatus(code);
  }

  toObject(): ErrorObject {
    return { code: this.code, message: this.message, statusCode: this.statusCode, ...(this.details ? { details: this.details } : {}) };
  }
}

/** `NOT_FOUND` "<what> not found" (another tenant's resource answers this too: it does not exist for the caller). */
export const notFound = (what: string, details?: Record<string, unknown>) => new AppError('NOT_FOUND', `${what} not found`, details);
export const unauthorized = (message = 'Missing or invalid credentials') => new AppError('UNAUTHORIZED', message);
export const forbidden = (message = 'Insufficient permissions') => new AppError('FORBIDDEN', message);
export const conflict = (message: string, details?: Record<string, unknown>) => new AppError('CONFLICT', message, details);

/**
 * `VALIDATION_ERROR` naming each bad field, for checks a schema cannot express. The message is
 * "<field> <reason>; ..." unless `message` says the whole problem better (a rule across fields).
 */
export function validationError(errors: FieldError[], message?: string): AppError {
  const bounded = boundedFieldErrors(errors);
  return new AppError('VALIDATION_ERROR', message === undefined ? bounded.message : boundedText(message), bounded.details);
}

/** Text echoed in an error, cut at `MAX_ERROR_TEXT` characters. */
export function boundedText(text: string, max = MAX_ERROR_TEXT): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * At most `MAX_FIELD_ERRORS` field errors, each cut to `MAX_ERROR_TEXT`, and how many more there
 * were: an error answer stays a few kilobytes whatever the request.
 */
export function boundedFieldErrors(all: FieldError[]): { message: string; details: { errors: FieldError[]; more?: number } } {
  const errors = all.slice(0, MAX_FIELD_ERRORS).map((e) => ({ field: boundedText(e.field), reason: boundedText(e.reason) }));
  const more = all.length - errors.length;
  const listed = errors.map((e) => `${e.field} ${e.reason}`).join('; ') || 'Invalid request';
  return {
    message: more > 0 ? `${listed}; and ${more} more` : listed,
    details: more > 0 ? { errors, more } : { errors },
  };
}

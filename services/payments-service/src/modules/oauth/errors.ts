import { AppError, type ErrorCode, type FieldError } from '@holdfast/contracts';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope';

const APP_CODES: Record<OAuthErrorCode, ErrorCode> = {
  invalid_request: 'VALIDATION_ERROR',
  invalid_client: 'UNAUTHORIZED',
  invalid_grant: 'VALIDATION_ERROR',
  unauthorized_client: 'FORBIDDEN',
  unsupported_grant_type: 'VALIDATION_ERROR',
  invalid_scope: 'VALIDATION_ERROR',
};

/**
 * An RFC 6749 §5.2 error. JSON requests get it as the usual error envelope (its code mapped to
 * ours, `details.oauthError` naming the RFC code); form-encoded requests get the bare RFC body.
 */
export class OAuthError extends AppError {
  constructor(
    readonly oauthCode: OAuthErrorCode,
    description: string,
    options: { field?: string; basicAuth?: boolean } = {},
  ) {
    const field = options.field;
    const errors: FieldError[] | undefined =
      APP_CODES[oauthCode] === 'VALIDATION_ERROR' ? [{ field: field ?? 'body', reason: description }] : undefined;
    super(
      APP_CODES[oauthCode],
      description,
      { oauthError: oauthCode, ...(errors ? { errors } : {}) },
      oauthCode === 'invalid_client' && options.basicAuth ? { 'WWW-Authenticate': 'Basic realm="holdfast"' } : undefined,
    );
    this.name = 'OAuthError';
  }

  /** RFC 6749: 401 for a failed client authentication, 400 for everything else. */
  get oauthStatus(): number {
    return this.oauthCode === 'invalid_client' ? 401 : 400;
  }
}

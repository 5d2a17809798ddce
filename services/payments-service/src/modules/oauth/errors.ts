import { AppError, type ErrorCode, validationError } from '@holdfast/contracts';

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
    // A VALIDATION_ERROR names its field like every other one (validationError's details).
    const fieldErrors =
      APP_CODES[oauthCode] === 'VALIDATION_ERROR'
        ? validationError([{ field: options.field ?? 'body', reason: description }], description).details
        : undefined;
    super(
      APP_CODES[oauthCode],
      description,
      { oauthError: oauthCode, ...fieldErrors },
      oauthCode === 'invalid_client' && options.basicAuth ? { 'WWW-Authenticate': 'Basic realm="holdfast"' } : undefined,
    );
    this.name = 'OAuthError';
  }

  /** RFC 6749: 401 for a failed client authentication, 400 for everything else. */
  get oauthStatus(): number {
    return this.oauthCode === 'invalid_client' ? 401 : 400;
  }
}

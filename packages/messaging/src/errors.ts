/**
 * How a consumer's handler says what should happen to a message it could not process.
 * Retryable: redelivered later (nak with a delay). Non-retryable: dropped for good (term), logged.
 * Any other error is treated as retryable, bounded by the consumer's max deliveries.
 */
export class RetryableError extends Error {
  constructor(
    message: string,
    readonly delayMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'RetryableError';
  }
}

export class NonRetryableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'NonRetryableError';
  }
}

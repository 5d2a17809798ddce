export { type AnswerInTransaction, type Idempotency, registerIdempotency } from './plugin.js';
export { createIdempotencyRepository, IDEMPOTENCY_LEASE_SECONDS, type IdempotencyRepository } from './repository.js';

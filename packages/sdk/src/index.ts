export type { DeliveredEvent, EventType } from '@holdfast/contracts';
export {
  AuthError,
  ConflictError,
  ConnectionError,
  HoldfastError,
  NotFoundError,
  RateLimitError,
  ValidationError,
  WebhookVerificationError,
} from './errors.js';
export type { EventStreamOptions, StreamedEvent, StreamStatus } from './event-stream.js';
export type {
  components as PaymentsComponents,
  operations as PaymentsOperations,
  paths as PaymentsPaths,
} from './generated/payments-openapi.js';
export type {
  components as WorkspaceComponents,
  operations as WorkspaceOperations,
  paths as WorkspacePaths,
} from './generated/workspace-openapi.js';
export type { AnswerOf, HttpMethod, MethodsOf, OperationAt, RequestInit } from './operations.js';
export { type Page, PageIterator } from './pagination.js';
export * from './payments.js';
export { SDK_VERSION, type TransportOptions } from './transport.js';
export * from './webhooks.js';
export * from './workspace.js';
export * from './x402.js';

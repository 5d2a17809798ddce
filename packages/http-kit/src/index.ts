export { MAX_FIELD_ERRORS, PAGE_MAX } from '@holdfast/contracts';
export { createHttpApp, DEFAULT_BODY_LIMIT, type HttpApp, type HttpAppOptions, type OpenApiInfo } from './app.js';
export * from './client-address.js';
export type { DeprecatedSurface } from './deprecation.js';
export { type EndpointHandler, type EndpointOptions, emptyBodyAsObject, endpointSchema } from './endpoint.js';
export { ErrorResponse, envelope, errorEnvelope, errorResponses } from './envelope.js';
export {
  boundedText,
  conflict,
  fieldErrorsFromAjv,
  forbidden,
  isDependencyOutage,
  notFound,
  toErrorObject,
  unauthorized,
  validationError,
} from './errors.js';
export type { ReadinessBody, ReadinessCheck } from './health.js';
export { chainRpcCheck, probeReadiness } from './health.js';
export { FREE_FORM_MAX_BYTES, FREE_FORM_MAX_DEPTH, isStorableText, UNSTORABLE_TEXT_REASON } from './input-rules.js';
export { numberSourceOf, parseJsonKeepingNumbers } from './json-body.js';
export { registerCountGauge } from './metrics.js';
export { RATE_LIMIT_TIERS, type RateLimitSettings, type RateLimitTier } from './rate-limit.js';
export { captureRawBody } from './raw-body.js';
export type { RouteAccess, RouteAccessForms } from './route-access.js';
export { type Paged, paged, type Route, type RouteHandler, type RouteSurface, route, type ServedOperation, serveRoutes } from './routes.js';
export { type ServiceHandle, startForTest } from './service.js';
export { type Closer, exitOnUnhandled, type RunOptions, runUntilSignalled } from './shutdown.js';
export { type WaitOptions, waitForDependencies } from './starting.js';
export {
  createWindowCounter,
  type SharedWindowCounter,
  syncZone,
  type WindowCount,
  type WindowCounter,
  type WindowCounterOptions,
  type WindowIncrement,
  type WindowStore,
} from './window-counter.js';

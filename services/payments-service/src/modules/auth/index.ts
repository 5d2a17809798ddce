// The authentication layer other payments modules build on (see docs/engineering.md, "Payments
// authentication"): declare `config: { access: { scopes: [...] } }` on a route, read the caller
// with `principalOf(request)`.

export {
  credentialHash,
  keyHint,
  keyMatchesEnvironment,
  looksLikeAccessToken,
  looksLikeApiKey,
  looksLikeClientId,
  newAccessToken,
  newApiKey,
  newClientId,
  newClientSecret,
  secretMatches,
} from './credentials.js';
export type { InvalidationFeed } from './invalidation-feed.js';
export { principalOf, type RouteAuth, rateLimitCredentialOf, registerAuth } from './plugin.js';
export type { PlatformBilling } from './principal.js';
export { type CredentialKind, hasScope, type Principal } from './principal.js';
export { recordInvalidation } from './repository.js';
export { type Authenticator, createAuthenticator } from './service.js';

// The authentication layer other payments modules build on (see docs/engineering.md, "Payments
// authentication"): declare `config: { access: { scopes: [...] } }` on a route, read the caller
// with `principalOf(request)`.

export { principalOf, type RouteAuth, rateLimitCredentialOf, registerAuth } from './plugin.js';
export { type CredentialKind, hasScope, type Principal } from './principal.js';
export { type Authenticator, createAuthenticator } from './service.js';

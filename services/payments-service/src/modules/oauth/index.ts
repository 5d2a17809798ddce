// The public face of the oauth module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export type { OAuthRepository } from './repository.js';
export { checkClientScopes, checkWithinPlatform, type OAuthService } from './service.js';

// The public face of the access module: what other modules use of it. Another module imports
// from here, never from its files (the architecture test fails on that).

export { type Actor, type Caller, type CustomerPrincipal, requireActor, requireCustomer, requireWorkspaceKey } from './caller.js';
export { createTimingEqualiser, hashPassword, passwordPolicyErrors, verifyPassword } from './passwords.js';
export {
  ADMIN_ROLES,
  adminReadScope,
  assertWorkspaceAccess,
  assertWorkspaceAdmin,
  isSuperAdmin,
  ownWorkspaceId,
  type ReadScope,
} from './policy.js';
export type { PrincipalCache, PrincipalChanges } from './principal-cache.js';
export { issueRefreshToken, loginLockedError, refreshTokenHash, refuseRefresh, rotateRefreshToken } from './refresh-tokens.js';
export {
  type AccessClaims,
  type AccessTokens,
  assertSessionLive,
  type CustomerClaims,
  type CustomerTokens,
  newVerificationCode,
} from './tokens.js';

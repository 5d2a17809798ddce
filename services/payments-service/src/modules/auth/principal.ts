import type { BillingConfig, PlatformFinality, Scope } from '@holdfast/contracts';

/** A platform's billing defaults: `settings.billing` (`enabled`, `feeType`, `feePercentage`, `fixedFee`). */
export type PlatformBilling = BillingConfig & { enabled?: boolean };

export type CredentialKind = 'api_key' | 'oauth_token';

/**
 * Who is calling: the platform a verified API key or access token acts for. Handlers scope every
 * read and write to `platformId`.
 */
export interface Principal {
  kind: CredentialKind;
  platformId: string;
  platformName: string;
  /** The workspace the platform belongs to, when it belongs to one. */
  workspaceId: string | null;
  sandbox: boolean;
  /** Effective scopes: the platform's for a key; for a token, its scopes still held by its client and covered by its platform's. */
  scopes: readonly Scope[];
  /**
   * The platform's billing defaults (`settings.billing`) read with the credential, so a cached
   * credential spares creation a read: every platform change invalidates its cached credentials
   * (docs/adr/0026). Undefined when not read with the credential: read it from the platform.
   */
  billing?: PlatformBilling | null;
  /** The platform's finality rule (`settings.finality`), read with the credential like `billing`. */
  finality?: PlatformFinality | null;
  /** The API key's row id (kind api_key). */
  keyId?: string;
  /** The OAuth client's public id `hf_client_…` (kind oauth_token). */
  clientId?: string;
  /** The OAuth client's row id (kind oauth_token). */
  clientPk?: string;
  /** The access token's row id (kind oauth_token). */
  tokenId?: string;
  /** When the access token expires, ms since the epoch (kind oauth_token). */
  expiresAtMs?: number;
}

export function hasScope(principal: Pick<Principal, 'scopes'>, scope: Scope): boolean {
  return principal.scopes.includes(scope);
}

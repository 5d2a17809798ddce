import { defineEndpoint, type Endpoint } from '../common/endpoint.js';
import type { Scope } from './access.js';

/** Rate-limit tier of an operation (spec "Limits"); mirrors @holdfast/http-kit's tiers. */
export type OperationTier = 'public' | 'standard' | 'high' | 'admin';

/**
 * Who may call an operation: every one of `scopes` (none listed: any credential), one of
 * `anyScope`, OAuth client authentication (`client`, checked by the handler) or no credential at
 * all (`none`).
 */
export type PaymentsAuth = { readonly scopes: readonly Scope[] } | { readonly anyScope: readonly Scope[] } | 'client' | 'none';

/** A v1 path of an operation; its operationId is the v2 one suffixed `V1` unless it names its own. */
export type V1Path = string | { readonly path: string; readonly operationId: string };

/**
 * A Payments API endpoint (Fastify-style paths, `/api/v2/transactions/:id`): the contract of
 * `Endpoint` plus its rate-limit tier and who may call (`access`, as in the Workspace catalogue). A v2 endpoint that succeeds v1 operations
 * lists their paths in `v1`: the service serves each as a deprecated twin with the same schemas
 * (operationId suffixed `V1`), taking `v1Access` where v1 accepted other scopes. An endpoint that
 * exists only on v1 has its v1 path as `path`.
 */
export interface PaymentsEndpoint extends Endpoint {
  tier: OperationTier;
  access: PaymentsAuth;
  /**
   * Takes an optional `Idempotency-Key` header, kept by the service for operations that have no key
   * of their own (docs/idempotency.md): the key's first success is replayed to every retry.
   */
  idempotent?: true;
  v1?: readonly V1Path[];
  v1Access?: PaymentsAuth;
}

/** Declares a Payments API endpoint, keeping its literal types (see `defineEndpoint`). */
export const definePaymentsEndpoint = <const E extends PaymentsEndpoint>(endpoint: E): E => defineEndpoint(endpoint);

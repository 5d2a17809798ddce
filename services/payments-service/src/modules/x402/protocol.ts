/**
 * The x402 v2 reason strings Holdfast answers (docs/x402.md). The `exact` EVM ones are those of
 * `@x402/evm`'s own facilitator, so a seller's logs read the same whoever settles; the generic ones
 * are the specification's.
 */
export const X402_REASONS = {
  version: 'invalid_x402_version',
  unsupportedScheme: 'unsupported_scheme',
  network: 'invalid_network',
  payload: 'invalid_payload',
  requirements: 'invalid_payment_requirements',
  transactionState: 'invalid_transaction_state',
  /** Sent, not mined yet: the hash is in `transaction`; settling the same payload again answers it (x402 core retries once). */
  pending: 'settlement_pending',
  /** Holdfast's: mined, then its block left the chain. Reported, never re-sent. */
  reorged: 'settlement_reorged',
} as const;

/** `exact` on EVM, keyed by the relayer's own refusal reasons where it checks the same thing. */
export const EXACT_REASONS = {
  scheme: 'invalid_exact_evm_scheme',
  networkMismatch: 'invalid_exact_evm_network_mismatch',
  missingDomain: 'invalid_exact_evm_missing_eip712_domain',
  tokenName: 'invalid_exact_evm_token_name_mismatch',
  tokenVersion: 'invalid_exact_evm_token_version_mismatch',
  recipient: 'invalid_exact_evm_recipient_mismatch',
  value: 'invalid_exact_evm_authorization_value',
  transactionFailed: 'invalid_exact_evm_transaction_failed',
  // The relayer's checks (modules/relayer, `refused(reason)`):
  invalid_signature: 'invalid_exact_evm_signature',
  expired: 'invalid_exact_evm_payload_authorization_valid_before',
  expires_too_soon: 'invalid_exact_evm_payload_authorization_valid_before',
  not_yet_valid: 'invalid_exact_evm_payload_authorization_valid_after',
  nonce_used: 'invalid_exact_evm_nonce_already_used',
  insufficient_balance: 'invalid_exact_evm_insufficient_balance',
  simulation_reverted: 'invalid_exact_evm_transaction_simulation_failed',
  token_unsupported: 'invalid_exact_evm_eip3009_not_supported',
  terms_mismatch: 'invalid_exact_evm_payload_authorization_value_mismatch',
} as const;

/** CAIP-2 of an EVM chain. */
export const caip2Of = (chainId: number) => `eip155:${chainId}`;

/** The Holdfast network of a CAIP-2 id among the served ones, or undefined. */
export function networkOfCaip2(caip2: string, served: readonly { network: string; caip2: string }[]): string | undefined {
  return served.find((s) => s.caip2 === caip2)?.network;
}

/** Holdfast's escrow scheme: the payment is locked in HoldfastEscrow (hold, rescind, release, refund, disputes), not paid out. */
export const ESCROW_SCHEME = 'holdfast-escrow';

/** A `holdfast-escrow` refusal: the relayer's reason under the scheme's prefix (`invalid_holdfast_escrow_nonce_used`). */
export const escrowReason = (reason: string) => `invalid_holdfast_escrow_${reason || 'payload'}`;

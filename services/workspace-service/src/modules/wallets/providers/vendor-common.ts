import type { AddressFormat, AppEnv, CustodyProviderType, Network, WalletAccount } from '@holdfast/contracts';
import type { Dispatcher } from 'undici';
import { ProviderError } from './adapter.js';

/** What every custody adapter is built from, besides its credentials. */
export interface VendorAdapterDeps {
  timeoutMs: number;
  appEnv: AppEnv;
  /**
   * The outbound policy's guarded dispatcher (wallet-providers/service.ts passes it: a tenant's
   * `baseUrl` must not reach our own network). Undici's global dispatcher when absent (adapter tests).
   */
  dispatcher?: Dispatcher | undefined;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** Where new addresses go when the caller names no network: testnets outside production. */
export function defaultNetworkFor(format: AddressFormat, appEnv: AppEnv): Network {
  if (format === 'ADDRESS_FORMAT_SOLANA') return appEnv === 'production' ? 'solana' : 'solana-devnet';
  return appEnv === 'production' ? 'base' : 'base-sepolia';
}

export function formatOfNetwork(network: Network): AddressFormat {
  return network.startsWith('solana') ? 'ADDRESS_FORMAT_SOLANA' : 'ADDRESS_FORMAT_ETHEREUM';
}

/**
 * An account as a vendor reported it, checked: an address that is not an address of its format is
 * a malformed answer, never something we store or show.
 */
export function vendorAccount(provider: CustodyProviderType, address: string, format: AddressFormat, path: string | null): WalletAccount {
  const ok = format === 'ADDRESS_FORMAT_ETHEREUM' ? EVM_ADDRESS.test(address) : SOLANA_ADDRESS.test(address);
  if (!ok) throw new ProviderError(provider, 'malformed_response', undefined, `not an address of ${format}`);
  return {
    address,
    addressFormat: format,
    curve: format === 'ADDRESS_FORMAT_ETHEREUM' ? 'CURVE_SECP256K1' : 'CURVE_ED25519',
    path,
  };
}

/** A decimal string a vendor sent, checked (never a float). */
export function vendorDecimal(provider: CustodyProviderType, value: string): string {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new ProviderError(provider, 'malformed_response', undefined, 'not a decimal amount');
  return value;
}

/** `1500000` with 6 decimals -> `1.5` (exact). */
export function unitsToDecimal(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const fraction = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** A timestamp a vendor sent, as ISO 8601; something that is not a date is a malformed answer. */
export function vendorDate(provider: CustodyProviderType, value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ProviderError(provider, 'malformed_response', undefined, 'not a timestamp');
  return new Date(ms).toISOString();
}

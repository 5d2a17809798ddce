import type { Network } from '@holdfast/contracts';
import { checksumAddress } from 'viem';

// Addresses per network (docs/transactions.md#addresses): what the request schemas' shape (ChainAddress) cannot
// know, because it needs the network: EVM or Solana, and the EIP-55 checksum of a mixed-case EVM
// address (a typo in a checksummed address is caught instead of paying a wrong receiver).

const EVM = /^0x[0-9a-fA-F]{40}$/;
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export const isSolanaNetwork = (network: Network): boolean => network.startsWith('solana');

/** Bytes a base58 text decodes to (leading `1`s are zero bytes); undefined when not base58. */
function base58Length(text: string): number | undefined {
  const bytes: number[] = [];
  for (const char of text) {
    let carry = BASE58.indexOf(char);
    if (carry < 0) return undefined;
    for (let i = 0; i < bytes.length; i++) {
      carry += bytes[i]! * 58;
      bytes[i] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  let zeros = 0;
  while (text[zeros] === '1') zeros++;
  return bytes.length + zeros;
}

/** Why `address` is not an address of `network`, or undefined when it is. */
export function addressProblem(network: Network, address: string): string | undefined {
  if (isSolanaNetwork(network)) {
    return base58Length(address) === 32 ? undefined : `must be a Solana address of ${network} (base58 of 32 bytes)`;
  }
  if (!EVM.test(address)) return `must be an EVM address of ${network} (0x and 40 hex digits)`;
  const digits = address.slice(2);
  // EIP-55: all lower or all upper case carries no checksum; mixed case must be the checksum.
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return undefined;
  return checksumAddress(address as `0x${string}`) === address
    ? undefined
    : 'has mixed case but is not EIP-55 checksummed: check it for a typo, or send it in lower case';
}

/** Field errors for the addresses given (field -> address; undefined skipped), in order. */
export function addressErrors(network: Network, fields: Record<string, string | undefined | null>): { field: string; reason: string }[] {
  const errors: { field: string; reason: string }[] = [];
  for (const [field, address] of Object.entries(fields)) {
    if (address === undefined || address === null) continue;
    const reason = addressProblem(network, address);
    if (reason) errors.push({ field, reason });
  }
  return errors;
}

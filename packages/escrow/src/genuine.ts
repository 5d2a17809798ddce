import {
  holdfastEscrowAbi,
  holdfastEscrowDeployedBytecode,
  holdfastEscrowImmutableRanges,
  holdfastEscrowReleases,
} from '@holdfast/contracts/escrow';
import { type Address, getAddress, type PublicClient } from 'viem';
import { isCodeOf } from './local.js';
import { MAX_PERIOD, MIN_PERIOD } from './model.js';

/** Why a contract is not a Holdfast escrow (null: it is one). */
export type NotGenuineReason = 'code' | 'periods';

/** Every runtime code HoldfastEscrow has had: the current one first, then the earlier releases. */
const ESCROW_CODES = [
  { deployedBytecode: holdfastEscrowDeployedBytecode, immutableRanges: holdfastEscrowImmutableRanges },
  ...holdfastEscrowReleases,
];

export interface EscrowGenuineness {
  reason: NotGenuineReason | null;
  expiryPeriod: bigint | null;
  freezePeriod: bigint | null;
}

/**
 * Whether the contract at `address` is HoldfastEscrow as its constructor allows it to be: the
 * runtime code of the current release or an earlier one (`holdfastEscrowReleases`, for dedicated
 * escrows deployed before a change) byte for byte except the compiler's immutable ranges, and those immutables (the
 * expiry and freeze periods) within the constructor's bounds. Code that skips the constructor (a
 * hand-written init that returns the runtime code) can set periods of 0, and then anyone could
 * `claimExpired` at once: the code alone proves nothing about them.
 */
export async function escrowGenuineness(client: PublicClient, address: Address): Promise<EscrowGenuineness> {
  const at = getAddress(address);
  const code = await client.getCode({ address: at });
  if (!ESCROW_CODES.some((c) => isCodeOf(code, c.deployedBytecode, c.immutableRanges))) {
    return { reason: 'code', expiryPeriod: null, freezePeriod: null };
  }
  const [expiryPeriod, freezePeriod] = await Promise.all([
    client.readContract({ address: at, abi: holdfastEscrowAbi, functionName: 'expiryPeriod' }),
    client.readContract({ address: at, abi: holdfastEscrowAbi, functionName: 'freezePeriod' }),
  ]);
  const within = (p: bigint) => p >= MIN_PERIOD && p <= MAX_PERIOD;
  return { reason: within(expiryPeriod) && within(freezePeriod) ? null : 'periods', expiryPeriod, freezePeriod };
}

import {
  holdfastEscrowDeployedBytecode,
  holdfastEscrowImmutableRanges,
  mockUsdcDeployedBytecode,
  mockUsdcImmutableRanges,
} from '@holdfast/contracts/escrow';
import { type Address, getAddress, type Hash, type Hex, type PublicClient } from 'viem';
import { type HDAccount, mnemonicToAccount } from 'viem/accounts';
import { type DeployClients, type Deployment, deployEscrow, deployMockUsdc } from './deploy.js';

/** anvil's dev mnemonic; its accounts are funded with 10000 ETH on every fresh anvil. Local chains only. */
export const ANVIL_DEV_MNEMONIC = 'test test test test test test test test test test test junk';
/**
 * The account that deploys the local contracts: anvil's dev account #9
 * (0xa0Ee7A142d267C1f36714E4a8F75612F20a79720). Tests and people use #0 to #3 for payments, so #9's
 * nonce on a fresh chain is always 0 and 1 at deployment time: MockUSDC and the escrow land at the same
 * addresses on every fresh chain.
 */
export const LOCAL_DEPLOYER_INDEX = 9;

export function localDeployerAccount(): HDAccount {
  return mnemonicToAccount(ANVIL_DEV_MNEMONIC, { addressIndex: LOCAL_DEPLOYER_INDEX });
}

/** A deployment as recorded in a JSON file (block number as a decimal string). */
export interface DeploymentRecord {
  address: Address;
  transactionHash: Hash;
  blockNumber: string;
}

/** The local contracts of one chain, as `./scripts/start` keeps them in `.holdfast/local-chain.json`. */
export interface LocalContracts {
  chainId: number;
  deployer: Address;
  mockUsdc: DeploymentRecord;
  escrow: DeploymentRecord;
}

/**
 * Where the local deployer puts the contracts on a fresh chain (its nonces 0 and 1): fixed, so
 * container set-ups can configure them up front. Transaction hashes are not fixed (they depend on
 * gas prices); they are not needed to recognise the contracts.
 */
export const LOCAL_CONTRACTS: LocalContracts = {
  chainId: 84532,
  deployer: '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
  mockUsdc: { address: '0x700b6A60ce7EaaEA56F065753d8dcB9653dbAD35', transactionHash: '0x', blockNumber: '1' },
  escrow: { address: '0xA15BB66138824a1c7167f5E85b957d04Dd34E468', transactionHash: '0x', blockNumber: '2' },
};

export function toRecord(deployment: Deployment): DeploymentRecord {
  return { address: deployment.address, transactionHash: deployment.transactionHash, blockNumber: deployment.blockNumber.toString() };
}

/** A byte range of runtime code (offset and length in bytes), as solc's `immutableReferences`. */
export interface CodeRange {
  readonly start: number;
  readonly length: number;
}

/**
 * Whether `code` (found at an address) is the runtime code of `artifact`: the same bytes exactly,
 * except inside `immutables` (the compiler's immutable ranges, zero in the artifact and written by
 * the constructor). Any other difference, one byte anywhere, is another contract. What the
 * immutables hold (an escrow's periods) is not proven by the code: read and check them.
 */
export function isCodeOf(code: Hex | undefined, artifact: Hex, immutables: readonly CodeRange[]): boolean {
  if (!code || code.length !== artifact.length) return false;
  const a = code.toLowerCase();
  const b = artifact.toLowerCase();
  let from = 2;
  for (const { start, length } of immutables) {
    const at = 2 + start * 2;
    if (a.slice(from, at) !== b.slice(from, at)) return false;
    from = at + length * 2;
  }
  return a.slice(from) === b.slice(from);
}

async function holds(
  publicClient: PublicClient,
  record: DeploymentRecord | undefined,
  artifact: Hex,
  immutables: readonly CodeRange[],
): Promise<boolean> {
  if (!record) return false;
  return isCodeOf(await publicClient.getCode({ address: record.address }), artifact, immutables);
}

/**
 * MockUSDC and the escrow contract on a local chain: the recorded ones when the chain still holds their
 * code (a persisted anvil state), else freshly deployed by the wallet's account. Never deploys twice
 * on a chain that has them; redeploys after the chain was reset or a contract's source changed.
 */
export async function ensureLocalContracts(
  clients: DeployClients & { recorded?: LocalContracts | undefined },
): Promise<{ contracts: LocalContracts; deployed: boolean }> {
  const { publicClient, walletClient, recorded } = clients;
  const chainId = await publicClient.getChainId();
  if (
    recorded?.chainId === chainId &&
    (await holds(publicClient, recorded.mockUsdc, mockUsdcDeployedBytecode, mockUsdcImmutableRanges)) &&
    (await holds(publicClient, recorded.escrow, holdfastEscrowDeployedBytecode, holdfastEscrowImmutableRanges))
  ) {
    return { contracts: recorded, deployed: false };
  }
  const mockUsdc = await deployMockUsdc({ publicClient, walletClient });
  const escrow = await deployEscrow({ publicClient, walletClient });
  return {
    contracts: {
      chainId,
      deployer: getAddress(walletClient.account.address),
      mockUsdc: toRecord(mockUsdc),
      escrow: toRecord(escrow),
    },
    deployed: true,
  };
}

/** The `ESCROW_CONTRACTS` entry of a deployment: `network=address@deploymentBlock`. */
export function escrowContractsEntry(network: string, escrow: DeploymentRecord | Deployment): string {
  return `${network}=${escrow.address}@${escrow.blockNumber.toString()}`;
}

/** The `TOKEN_CONTRACTS` entry of a token: `network:SYMBOL=address`. */
export function tokenContractsEntry(network: string, symbol: string, token: { address: Address }): string {
  return `${network}:${symbol}=${token.address}`;
}

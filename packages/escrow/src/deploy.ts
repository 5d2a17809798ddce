import { holdfastEscrowAbi, holdfastEscrowBytecode, mockUsdcAbi, mockUsdcBytecode } from '@holdfast/contracts/escrow';
import {
  type Abi,
  type Account,
  type Address,
  BaseError,
  type Chain,
  decodeErrorResult,
  getAddress,
  type Hash,
  type Hex,
  isHex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { DEFAULT_EXPIRY_PERIOD, DEFAULT_FREEZE_PERIOD } from './model.js';

export interface DeployClients {
  /** Signs and pays for the deployment; its account becomes the deployer. */
  walletClient: WalletClient<Transport, Chain, Account>;
  /** Waits for the receipt. */
  publicClient: PublicClient;
}

export interface EscrowConstructorArgs {
  /** Seconds after the hold deadline from which anyone may release to the receiver; default 180 days. */
  expiryPeriod?: bigint;
  /** Seconds a dispute freeze keeps that escape closed; default 90 days. */
  freezePeriod?: bigint;
}

export interface Deployment {
  address: Address;
  transactionHash: Hash;
  blockNumber: bigint;
  gasUsed: bigint;
}

/** A deployment the chain refused or reverted; `errorName`/`errorArgs` are set when the constructor's custom error was decoded. */
export class DeploymentError extends Error {
  override readonly name = 'DeploymentError';
  constructor(
    message: string,
    readonly errorName?: string,
    readonly errorArgs?: readonly unknown[],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Deploys MockUSDC (6 decimals, anyone may mint): local chains and test networks only. */
export function deployMockUsdc({ walletClient, publicClient }: DeployClients): Promise<Deployment> {
  return deploy(publicClient, 'MockUSDC', mockUsdcAbi, () =>
    walletClient.deployContract({ abi: mockUsdcAbi, bytecode: mockUsdcBytecode, args: [] }),
  );
}

/** Deploys HoldfastEscrow (e.g. a workspace's dedicated escrow) and waits for it to be mined. */
export function deployEscrow({
  walletClient,
  publicClient,
  expiryPeriod = DEFAULT_EXPIRY_PERIOD,
  freezePeriod = DEFAULT_FREEZE_PERIOD,
}: DeployClients & EscrowConstructorArgs): Promise<Deployment> {
  return deploy(publicClient, 'HoldfastEscrow', holdfastEscrowAbi, () =>
    walletClient.deployContract({ abi: holdfastEscrowAbi, bytecode: holdfastEscrowBytecode, args: [expiryPeriod, freezePeriod] }),
  );
}

async function deploy(publicClient: PublicClient, name: string, abi: Abi, send: () => Promise<Hash>): Promise<Deployment> {
  let hash: Hash;
  try {
    hash = await send();
  } catch (error) {
    // viem cannot decode a constructor's custom error by itself (no function in the request): do it here.
    const decoded = decodeRevert(error, abi);
    if (!decoded) throw error;
    throw new DeploymentError(
      `${name} deployment refused: ${decoded.errorName}(${decoded.args.join(', ')})`,
      decoded.errorName,
      decoded.args,
      {
        cause: error,
      },
    );
  }
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  // A reverted deployment still has a receipt; without this check the caller would store a dead address.
  if (receipt.status !== 'success' || !receipt.contractAddress) {
    throw new DeploymentError(`${name} deployment ${hash} reverted`);
  }
  return {
    address: getAddress(receipt.contractAddress),
    transactionHash: hash,
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
  };
}

function decodeRevert(error: unknown, abi: Abi): { errorName: string; args: readonly unknown[] } | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const withData = error.walk((e) => isHex((e as { data?: unknown }).data) && (e as { data: Hex }).data.length >= 10);
  const data = (withData as { data?: Hex } | null)?.data;
  if (!data) return undefined;
  try {
    const decoded = decodeErrorResult({ abi, data });
    return { errorName: decoded.errorName, args: decoded.args ?? [] };
  } catch {
    return undefined;
  }
}

import { mockUsdcAbi } from '@holdfast/contracts/escrow';
import { type Anvil, type AnvilOptions, startAnvil } from '@holdfast/test-fixtures';
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  type Hash,
  type HttpTransport,
  http,
  maxUint256,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { evmChain } from './chain.js';
import { deployEscrow, deployMockUsdc } from './deploy.js';
import { localDeployerAccount } from './local.js';

export type ChainWallet = WalletClient<HttpTransport, Chain, Account>;

/** A private anvil with MockUSDC and the escrow deployed, the world the chain tests act in. */
export interface ChainWorld {
  /** The name given to startChainWorld: it names the chain (and so the errors) of this world. */
  name: string;
  anvil: Anvil;
  /** The network the world stands for in the configuration (`base-sepolia` unless told). */
  network: string;
  chain: Chain;
  /** Without caches: the chain moves under the tests. */
  publicClient: PublicClient<HttpTransport, Chain>;
  /** A wallet that signs locally for the account (viem then estimates first: a revert fails with its decoded error). */
  wallet: (account: Account) => ChainWallet;
  usdc: Address;
  escrow: Address;
  deploymentBlock: bigint;
  /** CHAIN_RPC_URLS, ESCROW_CONTRACTS and TOKEN_CONTRACTS of a process that uses this world. */
  env: { CHAIN_RPC_URLS: string; ESCROW_CONTRACTS: string; TOKEN_CONTRACTS: string };
  /** The receipt of a sent transaction, reverted or not. */
  mined: (hash: Promise<Hash> | Hash) => Promise<TransactionReceipt>;
  /** The receipt of a sent transaction; throws when it reverted. */
  succeeded: (hash: Promise<Hash> | Hash) => Promise<TransactionReceipt>;
  /** Mints `amount` MockUSDC to the account and approves the escrow for all it holds. */
  fund: (account: Account, amount: bigint) => Promise<void>;
  /** MockUSDC balance of an address. */
  balance: (address: Address) => Promise<bigint>;
  /** The latest block's timestamp. */
  now: () => Promise<bigint>;
  stop: () => Promise<void>;
}

/**
 * Starts an anvil (or takes the given one) and deploys MockUSDC and the escrow from the local
 * deployer, as ./scripts/start does. `name` names the world in its chain and errors, so that a
 * file with two worlds (a reset, a second network) tells them apart.
 */
export async function startChainWorld(name: string, options: { anvil?: Anvil | AnvilOptions; network?: string } = {}): Promise<ChainWorld> {
  const given = options.anvil && 'rpcUrl' in options.anvil ? options.anvil : undefined;
  const anvil = given ?? (await startAnvil(options.anvil as AnvilOptions | undefined));
  const network = options.network ?? 'base-sepolia';
  const chain = evmChain({ id: anvil.chainId, name: `${name} (anvil as ${network})`, rpcUrl: anvil.rpcUrl });
  const transport = http(anvil.rpcUrl);
  const publicClient = createPublicClient({ chain, transport, cacheTime: 0, pollingInterval: 50 });
  const wallet = (account: Account): ChainWallet => createWalletClient({ account, chain, transport, cacheTime: 0, pollingInterval: 50 });
  const deployer = wallet(localDeployerAccount());
  const usdc = await deployMockUsdc({ walletClient: deployer, publicClient: publicClient as PublicClient });
  const escrow = await deployEscrow({ walletClient: deployer, publicClient: publicClient as PublicClient });

  const mined = async (hash: Promise<Hash> | Hash) => publicClient.waitForTransactionReceipt({ hash: await hash });
  const succeeded = async (hash: Promise<Hash> | Hash) => {
    const receipt = await mined(hash);
    if (receipt.status !== 'success') throw new Error(`${name}: transaction ${receipt.transactionHash} reverted`);
    return receipt;
  };
  return {
    name,
    anvil,
    network,
    chain,
    publicClient,
    wallet,
    usdc: usdc.address,
    escrow: escrow.address,
    deploymentBlock: escrow.blockNumber,
    env: {
      CHAIN_RPC_URLS: `${network}=${anvil.rpcUrl}`,
      ESCROW_CONTRACTS: `${network}=${escrow.address}@${escrow.blockNumber}`,
      TOKEN_CONTRACTS: `${network}:MockUSDC=${usdc.address}`,
    },
    mined,
    succeeded,
    async fund(account, amount) {
      const w = wallet(account);
      await succeeded(w.writeContract({ address: usdc.address, abi: mockUsdcAbi, functionName: 'mint', args: [account.address, amount] }));
      await succeeded(
        w.writeContract({ address: usdc.address, abi: mockUsdcAbi, functionName: 'approve', args: [escrow.address, maxUint256] }),
      );
    },
    balance: (address) =>
      publicClient.readContract({ address: usdc.address, abi: mockUsdcAbi, functionName: 'balanceOf', args: [address] }),
    now: async () => (await publicClient.getBlock({ blockTag: 'latest' })).timestamp,
    stop: () => anvil.stop(),
  };
}

import { type Deployment, deployMockUsdc, mockUsdcAbi } from '@holdfast/escrow';
import { ANVIL_ACCOUNTS } from '@holdfast/test-fixtures';
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  type Hash,
  http,
  type PublicClient,
  parseEther,
  parseUnits,
  type TransactionReceipt,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { evmChain } from '../../src/modules/wallets/common/chains.js';

export interface AnvilClients {
  publicClient: PublicClient<Transport, Chain>;
  walletClient: WalletClient<Transport, Chain, Account>;
  mined: (hash: Promise<Hash> | Hash) => Promise<TransactionReceipt>;
  fund: (to: Address, ether: string) => Promise<TransactionReceipt>;
  deployMockUsdc: () => Promise<Deployment>;
  mintUsdc: (token: Address, to: Address, amount: string) => Promise<TransactionReceipt>;
}

/** Clients for a test anvil (as base-sepolia) that sign with anvil's dev accounts. */
export function anvilClients(rpcUrl: string, account = 0): AnvilClients {
  const chain = evmChain('base-sepolia', rpcUrl);
  const transport = http(rpcUrl);
  const publicClient: PublicClient<Transport, Chain> = createPublicClient({ chain, transport, cacheTime: 0, pollingInterval: 50 });
  const walletClient = createWalletClient({
    account: privateKeyToAccount(ANVIL_ACCOUNTS[account as 0].privateKey),
    chain,
    transport,
    cacheTime: 0,
    pollingInterval: 50,
  });
  const mined = async (hash: Promise<Hash> | Hash) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${receipt.transactionHash} reverted`);
    return receipt;
  };
  return {
    publicClient,
    walletClient,
    mined,
    fund: (to: Address, ether: string) => mined(walletClient.sendTransaction({ to, value: parseEther(ether) })),
    deployMockUsdc: () => deployMockUsdc({ walletClient, publicClient }),
    mintUsdc: (token: Address, to: Address, amount: string) =>
      mined(walletClient.writeContract({ address: token, abi: mockUsdcAbi, functionName: 'mint', args: [to, parseUnits(amount, 6)] })),
  };
}

/** A dedicated escrow deployment as the Workspace API answers it: active on base-sepolia, mined. */
export const DEPLOYED_ESCROW = {
  deploymentId: expect.any(String),
  contractAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
  transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
  status: 'active',
  network: 'base-sepolia',
  gasUsed: expect.any(Number),
  blockNumber: expect.any(Number),
};

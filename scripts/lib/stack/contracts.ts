// The local chain's contracts: MockUSDC and the escrow, deployed by anvil's dev account #9 on the anvil
// this command started (never on a chain of CHAIN_RPC_URLS), and found again from .holdfast/local-chain.json
// when anvil's persisted state still holds them.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ensureLocalContracts,
  escrowContractsEntry,
  evmChain,
  type LocalContracts,
  localDeployerAccount,
  tokenContractsEntry,
} from '@holdfast/escrow';
import { createPublicClient, createWalletClient, http } from 'viem';
import { say } from './log.ts';

export interface LocalDeployment {
  /** For the processes: `ESCROW_CONTRACTS` and `TOKEN_CONTRACTS`. */
  env: { ESCROW_CONTRACTS: string; TOKEN_CONTRACTS: string };
  contracts: LocalContracts;
}

function clients(rpcUrl: string, chainId: number) {
  const chain = evmChain({ id: chainId, name: 'anvil', rpcUrl });
  const transport = http(rpcUrl);
  return {
    publicClient: createPublicClient({ chain, transport, cacheTime: 0, pollingInterval: 100 }),
    walletClient: createWalletClient({ account: localDeployerAccount(), chain, transport, pollingInterval: 100 }),
  };
}

/**
 * Deploys (or finds) the local contracts. `recordFile` is where the deployment is kept across runs;
 * without it (the smoke start's throw-away chain) nothing is read or written.
 */
export async function deployLocalContracts(options: {
  rpcUrl: string;
  network: string;
  chainId: number;
  recordFile?: string;
}): Promise<LocalDeployment> {
  const { publicClient, walletClient } = clients(options.rpcUrl, options.chainId);
  const recorded =
    options.recordFile && existsSync(options.recordFile)
      ? (JSON.parse(readFileSync(options.recordFile, 'utf8')) as LocalContracts)
      : undefined;
  const { contracts, deployed } = await ensureLocalContracts({ publicClient, walletClient, recorded });
  if (options.recordFile && deployed) writeFileSync(options.recordFile, `${JSON.stringify(contracts, null, 2)}\n`);
  say(
    `Contracts: MockUSDC ${contracts.mockUsdc.address}, HoldfastEscrow ${contracts.escrow.address} (block ${contracts.escrow.blockNumber}) ${
      deployed ? `deployed by anvil dev account #9 ${contracts.deployer}` : 'found on the chain (.holdfast/local-chain.json)'
    }`,
  );
  return {
    contracts,
    env: {
      ESCROW_CONTRACTS: escrowContractsEntry(options.network, contracts.escrow),
      TOKEN_CONTRACTS: tokenContractsEntry(options.network, 'MockUSDC', contracts.mockUsdc),
    },
  };
}

/** Where ./scripts/start keeps the local deployment. */
export function localDeploymentFile(root: string): string {
  return join(root, '.holdfast', 'local-chain.json');
}

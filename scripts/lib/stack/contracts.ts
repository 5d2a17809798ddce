// The local chain's contracts: MockUSDC and the escrow, deployed by anvil's dev account #9 on the anvil
// this command started (never on a chain of CHAIN_RPC_URLS), and found again from .holdfast/local-chain.json
// when anvil's persisted state still holds them.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ensureLocalContracts,
  escrowContractsEntry,
  holdfastEscrowAbi,
  type LocalContracts,
  localDeployerAccount,
  mockUsdcAbi,
  tokenContractsEntry,
  uuidToOnchainId,
} from '@holdfast/escrow';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createPublicClient, createWalletClient, defineChain, http, maxUint256, parseUnits } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { say } from './log.ts';

export interface LocalDeployment {
  /** For the processes: `ESCROW_CONTRACTS` and `TOKEN_CONTRACTS`. */
  env: { ESCROW_CONTRACTS: string; TOKEN_CONTRACTS: string };
  contracts: LocalContracts;
}

function clients(rpcUrl: string, chainId: number) {
  const chain = defineChain({
    id: chainId,
    name: 'anvil',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
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

/**
 * The smoke start's proof that the indexer works: a client-side wallet (anvil account #1) mints MockUSDC,
 * approves the escrow and locks a payment; the escrow.created event must reach the CHAIN stream.
 */
export async function smokeEscrow(options: {
  rpcUrl: string;
  chainId: number;
  network: string;
  deployment: LocalDeployment;
  natsUrl: string;
  prefix: string;
}): Promise<void> {
  const { publicClient } = clients(options.rpcUrl, options.chainId);
  const account = mnemonicToAccount('test test test test test test test test test test test junk', { addressIndex: 1 });
  const wallet = createWalletClient({ account, chain: publicClient.chain, transport: http(options.rpcUrl), pollingInterval: 100 });
  const { escrow, mockUsdc } = options.deployment.contracts;
  const amount = parseUnits('12.5', 6);
  const mined = async (hash: Promise<`0x${string}`>) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    if (receipt.status !== 'success') throw new Error(`smoke transaction ${receipt.transactionHash} reverted`);
    return receipt;
  };
  await mined(wallet.writeContract({ address: mockUsdc.address, abi: mockUsdcAbi, functionName: 'mint', args: [account.address, amount] }));
  await mined(
    wallet.writeContract({ address: mockUsdc.address, abi: mockUsdcAbi, functionName: 'approve', args: [escrow.address, maxUint256] }),
  );
  const id = randomUUID();
  const receipt = await mined(
    wallet.writeContract({
      address: escrow.address,
      abi: holdfastEscrowAbi,
      functionName: 'createEscrow',
      args: [uuidToOnchainId(id), localDeployerAccount().address, mockUsdc.address, amount, localDeployerAccount().address, 0n],
    }),
  );
  const nc = await connect({ servers: options.natsUrl.split(','), name: 'holdfast-smoke' });
  try {
    const jsm = await jetstreamManager(nc);
    const stream = `${options.prefix}CHAIN`.replaceAll('.', '_');
    const subject = `${options.prefix}chain.${options.network}.escrow.created`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const message = await jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(() => null);
      const event = message?.json<{ transactionId: string; transactionHash: string }>();
      if (event?.transactionId === id && event.transactionHash === receipt.transactionHash) break;
      if (Date.now() > deadline) throw new Error(`the indexer did not publish escrow.created for ${id} within 30 s`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await nc.close();
  }
}

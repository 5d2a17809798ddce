import {
  ChainEnv,
  CommonEnv,
  durationMs,
  type EscrowContract,
  EscrowContractsEnv,
  exitOnConfigError,
  loadConfig,
  networksWithoutRpc,
  parseChainRpcUrls,
  parseEscrowContracts,
  parseNetworkIntegers,
  portField,
  withDotEnv,
} from '@holdfast/config';
import { type AppEnv, CHAIN_IDS, type Network, StringEnum } from '@holdfast/contracts';
import { Type } from '@sinclair/typebox';

export const SERVICE_NAME = 'chain-indexer';

/**
 * Blocks to wait on top of a block before its events are published, outside `local` (docs/chain.md):
 * roughly half a minute on the L2s (2 s blocks on Base and OP, 0.25 s on Arbitrum) and two and a half
 * minutes on Ethereum, far beyond the reorgs those chains have seen. In `local` (anvil) it is 0.
 */
export const DEFAULT_CONFIRMATIONS: Partial<Record<Network, number>> = {
  ethereum: 12,
  'ethereum-sepolia': 12,
  base: 15,
  'base-sepolia': 15,
  optimism: 15,
  'optimism-sepolia': 15,
  arbitrum: 60,
  'arbitrum-sepolia': 60,
};

export const IndexerEnv = Type.Object({
  ...CommonEnv,
  ...ChainEnv,
  ...EscrowContractsEnv,
  INDEXER_PORT: portField(3004),
  CHAIN_CONFIRMATIONS: Type.Optional(
    Type.String({ description: 'network=confirmations pairs, comma-separated, e.g. base=20,ethereum=12' }),
  ),
  INDEXER_POLL_INTERVAL: Type.String({
    format: 'duration',
    default: '500ms',
    errorMessage: 'must be a duration such as 500ms or 2s',
  }),
  INDEXER_BLOCK_RANGE: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 2000,
    errorMessage: 'must be an integer from 1 to 100000 (blocks per eth_getLogs call)',
  }),
  INDEXER_ON_CHAIN_RESET: Type.Optional(StringEnum(['reindex', 'halt'], { description: 'must be reindex or halt' })),
});

export interface NetworkSettings {
  network: Network;
  chainId: number;
  rpcUrl: string;
  contracts: EscrowContract[];
  confirmations: number;
}

export type IndexerConfig = ReturnType<typeof resolve>;

function resolve(env: Record<string, string | undefined>) {
  let escrow: EscrowContract[] = [];
  let confirmations: Partial<Record<Network, number>> = {};
  const raw = loadConfig(IndexerEnv, env, (c) => {
    const problems: string[] = [];
    if (c.APP_ENV !== 'local' && !c.CHAIN_RPC_URLS) {
      problems.push(`CHAIN_RPC_URLS: is required when APP_ENV is ${c.APP_ENV}: the indexer needs a chain to follow (missing)`);
    }
    const parsedEscrow = parseEscrowContracts(c.ESCROW_CONTRACTS);
    const parsedConfirmations = parseNetworkIntegers('CHAIN_CONFIRMATIONS', c.CHAIN_CONFIRMATIONS, {
      min: 0,
      max: 10_000,
      what: 'confirmations',
    });
    escrow = parsedEscrow.value;
    confirmations = parsedConfirmations.value;
    const rpc = parseChainRpcUrls(c.CHAIN_RPC_URLS, c.APP_ENV);
    problems.push(...parsedEscrow.problems);
    // Without CHAIN_RPC_URLS outside local, the first line already says what is missing.
    if (c.CHAIN_RPC_URLS || c.APP_ENV === 'local') {
      problems.push(
        ...networksWithoutRpc(
          'ESCROW_CONTRACTS',
          escrow.map((e) => e.network),
          rpc,
        ),
      );
    }
    problems.push(...parsedConfirmations.problems);
    return problems;
  });
  const chainRpcUrls = parseChainRpcUrls(raw.CHAIN_RPC_URLS, raw.APP_ENV);
  const rpcNetworks: NetworkSettings[] = Object.entries(chainRpcUrls).map(([name, rpcUrl]) => {
    const network = name as Network;
    return {
      network,
      chainId: CHAIN_IDS[network] as number,
      rpcUrl,
      contracts: escrow.filter((e) => e.network === network),
      confirmations: confirmations[network] ?? defaultConfirmations(network, raw.APP_ENV),
    };
  });
  const networks = rpcNetworks.filter((n) => n.contracts.length > 0);
  return {
    ...raw,
    chainRpcUrls,
    networks,
    /** Every network of CHAIN_RPC_URLS: those without ESCROW_CONTRACTS are followed once a contract is registered there. */
    rpcNetworks,
    /** Networks of CHAIN_RPC_URLS without an escrow contract: watched for readiness only. */
    networksWithoutContracts: Object.keys(chainRpcUrls).filter((n) => !networks.some((s) => s.network === n)),
    pollIntervalMs: durationMs(raw.INDEXER_POLL_INTERVAL),
    blockRange: raw.INDEXER_BLOCK_RANGE,
    onChainReset: raw.INDEXER_ON_CHAIN_RESET ?? (raw.APP_ENV === 'local' ? 'reindex' : 'halt'),
    shutdownTimeoutMs: durationMs(raw.SHUTDOWN_TIMEOUT),
  };
}

function defaultConfirmations(network: Network, appEnv: AppEnv): number {
  if (appEnv === 'local') return 0;
  return DEFAULT_CONFIRMATIONS[network] ?? 12;
}

/** Validates an environment (tests pass their own). */
export function indexerConfigFrom(env: Record<string, string | undefined>): IndexerConfig {
  return resolve(env);
}

/** The only place chain-indexer reads process.env: a .env file under the real environment. */
export function loadIndexerConfig(): IndexerConfig {
  return exitOnConfigError(() => resolve(withDotEnv(process.env)), SERVICE_NAME);
}

import {
  ChainConfirmationsEnv,
  ChainEnv,
  ChainWsEnv,
  CommonEnv,
  chainWsUrls,
  confirmationsFor,
  durationMs,
  type EscrowContract,
  EscrowContractsEnv,
  exitOnConfigError,
  finalityFallbackDepths,
  loadConfig,
  natsCredentialProblems,
  networksWithoutRpc,
  parseChainRpcUrls,
  parseConfirmations,
  parseEscrowContracts,
  portField,
  requireAppEnv,
  withDotEnv,
} from '@holdfast/config';
import { CHAIN_IDS, type Network, StringEnum } from '@holdfast/contracts';
import { Type } from '@sinclair/typebox';

export const SERVICE_NAME = 'chain-indexer';

export const IndexerEnv = Type.Object({
  ...CommonEnv,
  ...ChainEnv,
  ...ChainWsEnv,
  ...EscrowContractsEnv,
  ...ChainConfirmationsEnv,
  INDEXER_PORT: portField(3004),
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
  /** Where new heads are subscribed to (eth_subscribe newHeads); undefined: polling only (CHAIN_WS_URLS=network=off). */
  wsUrl: string | undefined;
  contracts: EscrowContract[];
  confirmations: number;
  /** Depths counted for `safe`/`finalized` where the RPC serves no such tag (FINALITY_FALLBACK_DEPTHS). */
  finalityDepths: { safe: number; finalized: number };
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
    const parsedConfirmations = parseConfirmations(c.CHAIN_CONFIRMATIONS);
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
    if (c.CHAIN_WS_URLS) {
      problems.push(
        ...networksWithoutRpc(
          'CHAIN_WS_URLS',
          c.CHAIN_WS_URLS.split(',').map((pair) => pair.split('=')[0] as string),
          rpc,
        ),
      );
    }
    problems.push(...parsedConfirmations.problems);
    problems.push(...natsCredentialProblems(c));
    return problems;
  });
  const chainRpcUrls = parseChainRpcUrls(raw.CHAIN_RPC_URLS, raw.APP_ENV);
  const wsUrls = chainWsUrls(raw.CHAIN_WS_URLS, chainRpcUrls);
  const rpcNetworks: NetworkSettings[] = Object.entries(chainRpcUrls).map(([name, rpcUrl]) => {
    const network = name as Network;
    return {
      network,
      chainId: CHAIN_IDS[network] as number,
      rpcUrl,
      wsUrl: wsUrls[network],
      contracts: escrow.filter((e) => e.network === network),
      confirmations: confirmationsFor(network, raw.APP_ENV, confirmations),
      finalityDepths: finalityFallbackDepths(network),
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

/** Validates an environment (tests pass their own). */
export function indexerConfigFrom(env: Record<string, string | undefined>): IndexerConfig {
  return resolve(env);
}

/** The only place chain-indexer reads process.env: a .env file under the real environment. */
export function loadIndexerConfig(): IndexerConfig {
  return exitOnConfigError(() => resolve(requireAppEnv(withDotEnv(process.env))), SERVICE_NAME);
}

import { CHAIN_IDS, type Network } from '@holdfast/contracts';
import { type Chain, createPublicClient, defineChain, http, type PublicClient, type Transport } from 'viem';

/** Every EVM network Holdfast knows pays gas in ETH. */
export const EVM_NATIVE_SYMBOL = 'ETH';
export const SOLANA_NATIVE_SYMBOL = 'SOL';
export const SOLANA_NETWORKS: readonly Network[] = ['solana', 'solana-devnet', 'solana-testnet'];

export function isEvmNetwork(network: string): network is Network {
  return CHAIN_IDS[network as Network] !== undefined;
}

export function isSolanaNetwork(network: string): network is Network {
  return SOLANA_NETWORKS.includes(network as Network);
}

/** A viem chain for a configured network: its id from the contracts package, its RPC from configuration. */
export function evmChain(network: Network, rpcUrl: string): Chain {
  const id = CHAIN_IDS[network];
  if (id === undefined) throw new TypeError(`${network} is not an EVM network`);
  return defineChain({
    id,
    name: network,
    nativeCurrency: { name: 'Ether', symbol: EVM_NATIVE_SYMBOL, decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/** A public client that fails fast (one attempt, a deadline) and caches nothing: callers degrade on failure. */
export function evmPublicClient(network: Network, rpcUrl: string, timeoutMs: number): PublicClient<Transport, Chain> {
  return createPublicClient({
    chain: evmChain(network, rpcUrl),
    transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }),
    cacheTime: 0,
    pollingInterval: 250,
  });
}

/** The configured EVM network whose chain id this is. */
export function networkOfChainId(chainRpcUrls: Record<string, string>, chainId: number): Network | undefined {
  return Object.keys(chainRpcUrls).find((n) => CHAIN_IDS[n as Network] === chainId) as Network | undefined;
}

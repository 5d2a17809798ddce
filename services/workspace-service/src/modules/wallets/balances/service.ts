import type { AddressFormat, BalanceEntry, BalanceWarning, Network, WalletBalances } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';
import type { Address } from 'viem';
import { evmPublicClient, isEvmNetwork, isSolanaNetwork } from '../common/chains.js';
import type { TokenContract } from '../common/settings.js';
import { readEvmBalances } from './evm.js';
import { createSolanaRpc, type NetworkRead, readSolanaBalances } from './solana.js';

export interface BalanceReaderDeps {
  /** EVM networks (CHAIN_RPC_URLS). */
  chainRpcUrls: Record<string, string>;
  /** Solana networks (SOLANA_RPC_URLS). */
  solanaRpcUrls: Record<string, string>;
  tokenContracts: TokenContract[];
  timeoutMs: number;
  logger: Logger;
}

/** Reads in flight at once, so a workspace with many accounts does not flood an RPC. */
const CONCURRENT_READS = 8;

/** Runs the tasks, at most `limit` at a time, keeping their order in the results. */
async function pooled<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

export interface BalanceTarget {
  address: string;
  addressFormat: AddressFormat;
}

/**
 * Native and token balances of addresses on every configured network of their kind: Ethereum
 * addresses on each EVM network of CHAIN_RPC_URLS (viem), Solana addresses on each network of
 * SOLANA_RPC_URLS (JSON-RPC). A network, token or RPC that fails becomes a warning; this never throws
 * for a chain's sake.
 */
export function createBalanceReader(deps: BalanceReaderDeps) {
  const evmNetworks = Object.entries(deps.chainRpcUrls).filter(([n]) => isEvmNetwork(n)) as [Network, string][];
  const solanaNetworks = Object.entries(deps.solanaRpcUrls).filter(([n]) => isSolanaNetwork(n)) as [Network, string][];
  const clients = new Map(evmNetworks.map(([network, url]) => [network, evmPublicClient(network, url, deps.timeoutMs)]));
  const solana = new Map(solanaNetworks.map(([network, url]) => [network, createSolanaRpc(url, deps.timeoutMs)]));
  const decimals = new Map<string, number>();
  const tokensOf = (network: Network) => deps.tokenContracts.filter((t) => t.network === network);

  async function guarded(network: Network, address: string, read: () => Promise<NetworkRead>): Promise<NetworkRead> {
    try {
      return await read();
    } catch (error) {
      // A failure the readers did not classify is still only this network's problem.
      deps.logger.warn({ err: error, network }, 'balance read failed');
      return { entry: undefined, warnings: [{ code: 'RPC_UNAVAILABLE', message: 'the network could not be read', network, address }] };
    }
  }

  return {
    /** The networks balances are read on, by kind. */
    networks: () => ({ evm: evmNetworks.map(([n]) => n), solana: solanaNetworks.map(([n]) => n) }),

    read: async (targets: BalanceTarget[]): Promise<WalletBalances> => {
      const reads: (() => Promise<NetworkRead>)[] = [];
      for (const target of targets) {
        if (target.addressFormat === 'ADDRESS_FORMAT_ETHEREUM') {
          for (const [network] of evmNetworks) {
            const client = clients.get(network)!;
            reads.push(() =>
              guarded(network, target.address, () =>
                readEvmBalances(client, network, target.address as Address, tokensOf(network), deps.timeoutMs, decimals),
              ),
            );
          }
        } else {
          for (const [network] of solanaNetworks) {
            const rpc = solana.get(network)!;
            reads.push(() => guarded(network, target.address, () => readSolanaBalances(rpc, network, target.address, tokensOf(network))));
          }
        }
      }
      const results = await pooled(reads, CONCURRENT_READS);
      return {
        balances: results.map((r) => r.entry).filter((e): e is BalanceEntry => e !== undefined),
        warnings: results.flatMap((r) => r.warnings) satisfies BalanceWarning[],
      };
    },
  };
}
export type BalanceReader = ReturnType<typeof createBalanceReader>;

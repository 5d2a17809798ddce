import { type Chain, defineChain } from 'viem';

/** viem's description of the EVM chain `id` served at `rpcUrl`, whose currency is ETH (a local anvil, Base). */
export function evmChain(options: { id: number; name: string; rpcUrl: string }): Chain {
  return defineChain({
    id: options.id,
    name: options.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
}

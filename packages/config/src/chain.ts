import { type AppEnv, CHAIN_IDS, CURRENCIES, type Network } from '@holdfast/contracts';
import { Type } from '@sinclair/typebox';

/**
 * Where the contracts are on each chain. The variables are plain strings for the schema; their entries
 * are checked here so that each bad entry gets a line of its own (loadConfig's `refine`).
 */

/** The networks that have an EVM chain id (escrow contracts live only there). */
export const EVM_NETWORKS = Object.keys(CHAIN_IDS) as Network[];

export interface EscrowContract {
  network: Network;
  /** Lower-case hex; checksum it where it is shown. */
  address: `0x${string}`;
  /** The block of the deployment transaction: the indexer reads events from here. */
  deploymentBlock: bigint;
}

export interface TokenContract {
  network: Network;
  symbol: string;
  /** ERC-20 address (lower-case hex) on EVM networks, SPL mint (base58) on Solana networks. */
  address: string;
}

export interface Parsed<T> {
  value: T;
  /** One line per bad entry, already prefixed with the variable's name. */
  problems: string[];
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SOLANA_NETWORKS: readonly Network[] = ['solana', 'solana-devnet', 'solana-testnet'];
const SPL_MINT = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const ESCROW_EXAMPLE = 'base-sepolia=0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512@2';
const TOKEN_EXAMPLE = 'base-sepolia:MockUSDC=0x5FbDB2315678afecb367f032d93F642f64180aa3';
const TOKEN_SYMBOLS = CURRENCIES.filter((c) => c !== 'ETH');

function entries(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
}

function checkNetwork(name: string, entry: string, network: string, problems: string[]): network is Network {
  if (EVM_NETWORKS.includes(network as Network)) return true;
  problems.push(`${name}: "${entry}": ${JSON.stringify(network)} is not an EVM network (one of ${EVM_NETWORKS.join(', ')})`);
  return false;
}

/** The escrow contracts per network; read its entries with `parseEscrowContracts` in the process's `refine`. */
export const EscrowContractsEnv = {
  ESCROW_CONTRACTS: Type.Optional(
    Type.String({ description: `network=address@deploymentBlock entries, comma-separated, e.g. ${ESCROW_EXAMPLE}` }),
  ),
};

/** The ERC-20 behind each currency per network; read its entries with `parseTokenContracts`. */
export const TokenContractsEnv = {
  TOKEN_CONTRACTS: Type.Optional(Type.String({ description: `network:SYMBOL=address entries, comma-separated, e.g. ${TOKEN_EXAMPLE}` })),
};

/**
 * `ESCROW_CONTRACTS=base-sepolia=0xe7f1…0512@2,base=0x…@31337000`: the escrow contracts of each network
 * and the block each was deployed in. A network may have several (the shared one and dedicated ones).
 */
export function parseEscrowContracts(value: string | undefined): Parsed<EscrowContract[]> {
  const name = 'ESCROW_CONTRACTS';
  const problems: string[] = [];
  const contracts: EscrowContract[] = [];
  for (const entry of entries(value)) {
    const match = /^([^=@]+)=([^=@]+)@([^=@]+)$/.exec(entry);
    if (!match) {
      problems.push(`${name}: "${entry}": must be network=address@deploymentBlock, e.g. ${ESCROW_EXAMPLE}`);
      continue;
    }
    const [, network = '', address = '', block = ''] = match;
    if (!checkNetwork(name, entry, network, problems)) continue;
    if (!ADDRESS.test(address)) {
      problems.push(`${name}: "${entry}": ${JSON.stringify(address)} is not a 20-byte hex address (0x and 40 hex digits)`);
      continue;
    }
    if (!/^(0|[1-9][0-9]{0,15})$/.test(block)) {
      problems.push(`${name}: "${entry}": the deployment block ${JSON.stringify(block)} must be a block number (0 or a positive integer)`);
      continue;
    }
    const lower = address.toLowerCase() as `0x${string}`;
    if (contracts.some((c) => c.network === network && c.address === lower)) {
      problems.push(`${name}: "${entry}": ${address} is listed twice for ${network}`);
      continue;
    }
    contracts.push({ network, address: lower, deploymentBlock: BigInt(block) });
  }
  return { value: contracts, problems };
}

/** `TOKEN_CONTRACTS=base-sepolia:MockUSDC=0x5FbD…0aa3,base:USDC=0x8335…2913`: the ERC-20 behind each currency per network. */
export function parseTokenContracts(value: string | undefined): Parsed<TokenContract[]> {
  const name = 'TOKEN_CONTRACTS';
  const problems: string[] = [];
  const tokens: TokenContract[] = [];
  for (const entry of entries(value)) {
    const match = /^([^:=]+):([^:=]+)=([^:=]+)$/.exec(entry);
    if (!match) {
      problems.push(`${name}: "${entry}": must be network:SYMBOL=address, e.g. ${TOKEN_EXAMPLE}`);
      continue;
    }
    const [, network = '', symbol = '', address = ''] = match;
    const solana = SOLANA_NETWORKS.includes(network as Network);
    if (!solana && !checkNetwork(name, entry, network, problems)) continue;
    if (!TOKEN_SYMBOLS.includes(symbol as (typeof TOKEN_SYMBOLS)[number])) {
      problems.push(`${name}: "${entry}": ${JSON.stringify(symbol)} is not a token currency (one of ${TOKEN_SYMBOLS.join(', ')})`);
      continue;
    }
    if (solana ? !SPL_MINT.test(address) : !ADDRESS.test(address)) {
      problems.push(
        `${name}: "${entry}": ${JSON.stringify(address)} is not ${solana ? 'an SPL mint address (base58)' : 'a 20-byte hex address (0x and 40 hex digits)'}`,
      );
      continue;
    }
    if (tokens.some((t) => t.network === network && t.symbol === symbol)) {
      problems.push(`${name}: "${entry}": ${symbol} is given twice for ${network}`);
      continue;
    }
    tokens.push({ network: network as Network, symbol, address: solana ? address : address.toLowerCase() });
  }
  return { value: tokens, problems };
}

/**
 * `name=n` pairs with n an integer in [min, max], e.g. `CHAIN_CONFIRMATIONS=base=15,ethereum=20`;
 * networks must be EVM networks.
 */
export function parseNetworkIntegers(
  name: string,
  value: string | undefined,
  bounds: { min: number; max: number; what: string },
): Parsed<Partial<Record<Network, number>>> {
  const problems: string[] = [];
  const result: Partial<Record<Network, number>> = {};
  for (const entry of entries(value)) {
    const match = /^([^=]+)=([^=]*)$/.exec(entry);
    if (!match) {
      problems.push(`${name}: "${entry}": must be network=${bounds.what}, e.g. base=${bounds.min}`);
      continue;
    }
    const [, network = '', text = ''] = match;
    if (!checkNetwork(name, entry, network, problems)) continue;
    const n = Number(text);
    if (!/^[0-9]+$/.test(text) || n < bounds.min || n > bounds.max) {
      problems.push(`${name}: "${entry}": ${bounds.what} must be an integer from ${bounds.min} to ${bounds.max}`);
      continue;
    }
    if (network in result) {
      problems.push(`${name}: "${entry}": ${network} is given twice`);
      continue;
    }
    result[network] = n;
  }
  return { value: result, problems };
}

/**
 * Blocks to wait on top of a block before it is taken as final, outside `local` (docs/chain.md):
 * roughly half a minute on the L2s (2 s blocks on Base and OP, 0.25 s on Arbitrum) and two and a half
 * minutes on Ethereum, far beyond the reorgs those chains have seen. In `local` (anvil) it is 0.
 * The chain-indexer waits them before it publishes an event; payments before it moves a transaction
 * on a hash a client submitted (docs/settlement.md).
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

/** A network without a default of its own (none today: every EVM network has one). */
const FALLBACK_CONFIRMATIONS = 12;

/** `CHAIN_CONFIRMATIONS=base=20,ethereum=12`: read its entries with `parseConfirmations` in the process's `refine`. */
export const ChainConfirmationsEnv = {
  CHAIN_CONFIRMATIONS: Type.Optional(
    Type.String({ description: 'network=confirmations pairs, comma-separated, e.g. base=20,ethereum=12' }),
  ),
};

/** The overrides of `CHAIN_CONFIRMATIONS` per network (0 to 10000 each). */
export function parseConfirmations(value: string | undefined): Parsed<Partial<Record<Network, number>>> {
  return parseNetworkIntegers('CHAIN_CONFIRMATIONS', value, { min: 0, max: 10_000, what: 'confirmations' });
}

/** The confirmations of a network: its `CHAIN_CONFIRMATIONS` override, else 0 in `local`, else its default. */
export function confirmationsFor(network: Network, appEnv: AppEnv, overrides: Partial<Record<Network, number>> = {}): number {
  const override = overrides[network];
  if (override !== undefined) return override;
  if (appEnv === 'local') return 0;
  return DEFAULT_CONFIRMATIONS[network] ?? FALLBACK_CONFIRMATIONS;
}

/**
 * Where a network's RPC serves no `safe`/`finalized` block tag (an error for the tag), the indexer
 * takes these depths instead (docs/chain.md, levels; ADR 62): `safe` about when the block's data
 * is on L1 (an L2's batch, Ethereum's justified checkpoint), `finalized` about when L1 finalized it.
 * Every network here serves both tags today; the depths are the documented fallback.
 */
export const FINALITY_FALLBACK_DEPTHS: Partial<Record<Network, { safe: number; finalized: number }>> = {
  // 12 s blocks: one epoch (6.4 min) justified, two (12.8 min) finalized.
  ethereum: { safe: 32, finalized: 64 },
  'ethereum-sepolia': { safe: 32, finalized: 64 },
  // 2 s blocks: an L1 batch about every 2 minutes, L1 finality about 20 minutes later.
  base: { safe: 60, finalized: 600 },
  'base-sepolia': { safe: 60, finalized: 600 },
  optimism: { safe: 60, finalized: 600 },
  'optimism-sepolia': { safe: 60, finalized: 600 },
  // 0.25 s blocks: the same 2 and 20 minutes.
  arbitrum: { safe: 480, finalized: 4800 },
  'arbitrum-sepolia': { safe: 480, finalized: 4800 },
};

/** The fallback depths of a network (FINALITY_FALLBACK_DEPTHS; 64 and 128 for one not listed). */
export function finalityFallbackDepths(network: Network): { safe: number; finalized: number } {
  return FINALITY_FALLBACK_DEPTHS[network] ?? { safe: 64, finalized: 128 };
}

/** Networks named by entries that have no RPC (one line each). */
export function networksWithoutRpc(name: string, networks: Iterable<string>, rpcUrls: Record<string, string>): string[] {
  const missing = [...new Set(networks)].filter((n) => !(n in rpcUrls));
  return missing.map((n) => `${name}: ${n} has no RPC: add ${n}=<url> to CHAIN_RPC_URLS`);
}

import {
  durationMs,
  type EscrowContract,
  EscrowContractsEnv,
  parseChainRpcUrls,
  parseEscrowContracts,
  parseTokenContracts,
  type TokenContract,
  TokenContractsEnv,
} from '@holdfast/config';
import { type AppEnv, CONTRACT_NETWORKS, type ContractNetwork, type Network, TESTNETS } from '@holdfast/contracts';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { Type } from '@sinclair/typebox';
import { bytesToHex, getAddress, type Hex } from 'viem';

// The environment variables of the wallet features. Only config.ts reads the environment: it
// spreads WalletEnv into the service's schema and calls resolveWalletSettings on the result.

const SOLANA_NETWORK = '(solana|solana-devnet|solana-testnet)';
const URL = 'https?://[^,=\\s]+';
const list = (item: string) => `^${item}(,${item})*$`;

export const WalletEnv = {
  ...TokenContractsEnv,
  ...EscrowContractsEnv,
  SOLANA_RPC_URLS: Type.Optional(
    Type.String({
      pattern: list(`${SOLANA_NETWORK}=${URL}`),
      errorMessage: 'must be network=url pairs for solana, solana-devnet or solana-testnet, comma-separated',
    }),
  ),
  CONTRACT_DEPLOYER_PRIVATE_KEY: Type.Optional(
    Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', errorMessage: 'must be a private key: 0x and 64 hex digits' }),
  ),
  CONTRACT_DEPLOYMENTS_PER_DAY: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 5,
    errorMessage: 'must be an integer from 1 to 1000 (dedicated escrow deployments a workspace may start in 24 hours)',
  }),
  SIWE_DOMAIN: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9.-]+(:[0-9]{1,5})?$',
      errorMessage: 'must be the host (and port) customers sign in on, e.g. pay.example.com',
    }),
  ),
  SIWE_URI: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', errorMessage: 'must be an http(s) URL' })),
  SIWE_NONCE_TTL: Type.String({ format: 'duration', default: '10m', errorMessage: 'must be a duration such as 10m' }),
  WALLET_PROVIDER_TIMEOUT: Type.String({ format: 'duration', default: '10s', errorMessage: 'must be a duration such as 10s' }),
  CHAIN_RPC_TIMEOUT: Type.String({ format: 'duration', default: '5s', errorMessage: 'must be a duration such as 5s' }),
};

export type { TokenContract } from '@holdfast/config';

export interface WalletSettings {
  appEnv: AppEnv;
  /** EVM networks (CHAIN_RPC_URLS). */
  chainRpcUrls: Record<string, string>;
  /** Solana networks (SOLANA_RPC_URLS). */
  solanaRpcUrls: Record<string, string>;
  tokenContracts: TokenContract[];
  /** Shared escrow contracts per network (ESCROW_CONTRACTS). */
  sharedEscrows: Partial<Record<ContractNetwork, Hex>>;
  /** Pays for dedicated escrow deployments; undefined means deployments are unavailable. */
  deployerPrivateKey: Hex | undefined;
  /** Dedicated deployments a workspace may start in any 24 hours (CONTRACT_DEPLOYMENTS_PER_DAY). */
  deploymentsPerDay: number;
  siwe: { domain: string; uri: string; nonceTtlMs: number };
  providerTimeoutMs: number;
  chainRpcTimeoutMs: number;
  /** AES-256-GCM key for secrets at rest (DATA_ENCRYPTION_KEY), base64 or undefined in local. */
  dataEncryptionKey: string | undefined;
  /** Keys that still open older values (DATA_ENCRYPTION_KEYS_PREVIOUS, comma-separated). */
  dataEncryptionKeysPrevious: string | undefined;
}

/**
 * USDC as Circle documents it (developers.circle.com, "USDC contract addresses"). Used outside
 * `local`; in `local` base-sepolia is the local chain, where only TOKEN_CONTRACTS (MockUSDC) apply.
 */
export const DOCUMENTED_USDC: Partial<Record<Network, string>> = {
  ethereum: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
  base: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  optimism: '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85',
  arbitrum: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
  'ethereum-sepolia': '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
  'base-sepolia': '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  'optimism-sepolia': '0x5fd84259d66Cd46123540766Be93DFE6D43130D7',
  'arbitrum-sepolia': '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d',
  solana: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  'solana-devnet': '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
};

/** anvil's public development mnemonic; its accounts hold 10000 ETH on every fresh local chain. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
/** In `local`, dedicated escrows are paid by anvil dev account 8 (m/44'/60'/0'/0/8), which nothing else signs with. */
export const LOCAL_DEPLOYER_INDEX = 8;

export function anvilDevKey(index: number): Hex {
  const key = HDKey.fromMasterSeed(mnemonicToSeedSync(ANVIL_MNEMONIC)).derive(`m/44'/60'/0'/0/${index}`).privateKey;
  if (!key) throw new Error('no private key derived');
  return bytesToHex(key);
}

function pairs(text: string | undefined): [string, string][] {
  if (!text) return [];
  return text.split(',').map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), pair.slice(at + 1)];
  });
}

/** Documented USDC (outside local) overlaid by TOKEN_CONTRACTS (same network and symbol wins). */
export function tokenContractsFor(appEnv: AppEnv, configured: TokenContract[]): TokenContract[] {
  const defaults: TokenContract[] =
    appEnv === 'local'
      ? []
      : Object.entries(DOCUMENTED_USDC)
          .filter(([network]) => appEnv !== 'production' || !TESTNETS.includes(network as Network))
          .map(([network, address]) => ({ network: network as Network, symbol: 'USDC', address: address as string }));
  const key = (t: TokenContract) => `${t.network}:${t.symbol}`;
  const merged = new Map(defaults.map((t) => [key(t), t]));
  for (const token of configured) merged.set(key(token), token);
  return [...merged.values()];
}

interface RawWalletEnv {
  APP_ENV: AppEnv;
  CHAIN_RPC_URLS?: string | undefined;
  DATA_ENCRYPTION_KEY?: string | undefined;
  DATA_ENCRYPTION_KEYS_PREVIOUS?: string | undefined;
  SOLANA_RPC_URLS?: string | undefined;
  TOKEN_CONTRACTS?: string | undefined;
  ESCROW_CONTRACTS?: string | undefined;
  CONTRACT_DEPLOYER_PRIVATE_KEY?: string | undefined;
  CONTRACT_DEPLOYMENTS_PER_DAY: number;
  SIWE_DOMAIN?: string | undefined;
  SIWE_URI?: string | undefined;
  SIWE_NONCE_TTL: string;
  WALLET_PROVIDER_TIMEOUT: string;
  CHAIN_RPC_TIMEOUT: string;
}

/** The shared escrow of each network: the first ESCROW_CONTRACTS entry for it (the one ./scripts/start deploys). */
function sharedEscrowsOf(contracts: EscrowContract[]): Partial<Record<ContractNetwork, Hex>> {
  const shared: Partial<Record<ContractNetwork, Hex>> = {};
  for (const contract of contracts) {
    if ((CONTRACT_NETWORKS as readonly string[]).includes(contract.network)) {
      shared[contract.network as ContractNetwork] ??= getAddress(contract.address);
    }
  }
  return shared;
}

/** Entry problems of the contract variables, one line each (for config.ts's refine). */
export function walletContractProblems(raw: { TOKEN_CONTRACTS?: string | undefined; ESCROW_CONTRACTS?: string | undefined }): string[] {
  return [...parseTokenContracts(raw.TOKEN_CONTRACTS).problems, ...parseEscrowContracts(raw.ESCROW_CONTRACTS).problems];
}

export function resolveWalletSettings(raw: RawWalletEnv): WalletSettings {
  const local = raw.APP_ENV === 'local';
  const domain = raw.SIWE_DOMAIN ?? 'localhost:3002';
  return {
    appEnv: raw.APP_ENV,
    chainRpcUrls: parseChainRpcUrls(raw.CHAIN_RPC_URLS, raw.APP_ENV),
    solanaRpcUrls: Object.fromEntries(pairs(raw.SOLANA_RPC_URLS)),
    // EVM addresses shown checksummed, as wallets and explorers write them.
    tokenContracts: tokenContractsFor(
      raw.APP_ENV,
      parseTokenContracts(raw.TOKEN_CONTRACTS).value.map((t) =>
        t.address.startsWith('0x') ? { ...t, address: getAddress(t.address) } : t,
      ),
    ),
    sharedEscrows: sharedEscrowsOf(parseEscrowContracts(raw.ESCROW_CONTRACTS).value),
    deployerPrivateKey: (raw.CONTRACT_DEPLOYER_PRIVATE_KEY as Hex | undefined) ?? (local ? anvilDevKey(LOCAL_DEPLOYER_INDEX) : undefined),
    deploymentsPerDay: raw.CONTRACT_DEPLOYMENTS_PER_DAY,
    siwe: {
      domain,
      uri: raw.SIWE_URI ?? `${local ? 'http' : 'https'}://${domain}`,
      nonceTtlMs: durationMs(raw.SIWE_NONCE_TTL),
    },
    providerTimeoutMs: durationMs(raw.WALLET_PROVIDER_TIMEOUT),
    chainRpcTimeoutMs: durationMs(raw.CHAIN_RPC_TIMEOUT),
    dataEncryptionKey: raw.DATA_ENCRYPTION_KEY,
    dataEncryptionKeysPrevious: raw.DATA_ENCRYPTION_KEYS_PREVIOUS,
  };
}

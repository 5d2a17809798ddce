import { Kind, type Static, Type, TypeRegistry } from '@sinclair/typebox';

// A string enum that renders as `{type: string, enum: [...]}` in OpenAPI (a union of literals would
// render as a long anyOf); TypeBox's checker needs to know the custom kind.
if (!TypeRegistry.Has('StringEnum')) {
  TypeRegistry.Set<{ enum: string[] }>('StringEnum', (schema, value) => typeof value === 'string' && schema.enum.includes(value));
}

/** `StringEnum(['a','b'])` is `'a' | 'b'` for TypeScript and `enum` for JSON Schema. */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) {
  return Type.Unsafe<T[number]>({ [Kind]: 'StringEnum', type: 'string', enum: [...values], ...options });
}

export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });

const MAINNETS = ['ethereum', 'base', 'solana', 'optimism', 'arbitrum'] as const;
const TESTNET_NAMES = [
  'base-sepolia',
  'ethereum-sepolia',
  'optimism-sepolia',
  'arbitrum-sepolia',
  'solana-devnet',
  'solana-testnet',
] as const;
export const NETWORKS = [...MAINNETS, ...TESTNET_NAMES] as const;
export type Network = (typeof NETWORKS)[number];
export const NetworkSchema = StringEnum(NETWORKS);

/** Mainnet -> the testnet it is coerced to outside production. */
export const TESTNET_OF: Record<string, Network> = {
  ethereum: 'ethereum-sepolia',
  base: 'base-sepolia',
  solana: 'solana-devnet',
  optimism: 'optimism-sepolia',
  arbitrum: 'arbitrum-sepolia',
};
export const TESTNETS: readonly Network[] = TESTNET_NAMES;

/** EVM chain ids of the networks that have one. */
export const CHAIN_IDS: Partial<Record<Network, number>> = {
  ethereum: 1,
  base: 8453,
  optimism: 10,
  arbitrum: 42161,
  'base-sepolia': 84532,
  'ethereum-sepolia': 11155111,
  'optimism-sepolia': 11155420,
  'arbitrum-sepolia': 421614,
};

/**
 * A blockchain address as a request gives it: EVM `0x` + 40 hex digits, or Solana base58 (32 to 44
 * characters). The shape only: the network's own rule (EVM for EVM networks, with the EIP-55
 * checksum when the letters are mixed case; 32 bytes of base58 on Solana) is checked where the
 * network is known (`addressProblem` in @holdfast/escrow, docs/transactions.md#addresses).
 */
export const CHAIN_ADDRESS_PATTERN = '^(0x[0-9a-fA-F]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$';
export const ChainAddress = Type.String({
  pattern: CHAIN_ADDRESS_PATTERN,
  maxLength: 44,
  description: 'EVM: `0x` + 40 hex digits (EIP-55 checksum when mixed case). Solana: base58 of 32 bytes.',
});

export const CURRENCIES = ['USDC', 'USDT', 'ETH', 'MockUSDC', 'USDG'] as const;
export type Currency = (typeof CURRENCIES)[number];
export const CurrencySchema = StringEnum(CURRENCIES);

export const APP_ENVS = ['local', 'staging', 'production'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

export const TRANSACTION_STATUSES = [
  'pending',
  'risk_review',
  'pending_user_action',
  'escrowed',
  'in_review',
  'disputed',
  'completed',
  'refunded',
  'failed',
  'rescinded',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
export const TransactionStatusSchema = StringEnum(TRANSACTION_STATUSES);
/** A checkout session's statuses (docs/checkout.md). */
export const CHECKOUT_SESSION_STATUSES = ['open', 'processing', 'complete', 'expired'] as const;
export type CheckoutSessionStatus = (typeof CHECKOUT_SESSION_STATUSES)[number];

export const TERMINAL_TRANSACTION_STATUSES: readonly TransactionStatus[] = ['completed', 'failed', 'refunded', 'rescinded'];

/**
 * How final an on-chain fact is, lowest first (docs/chain.md, ADR 62): `seen` in a block;
 * `confirmed` the network's confirmation depth on top of it (CHAIN_CONFIRMATIONS, today's default);
 * `safe` and `finalized` at or below the RPC's `safe`/`finalized` block (a documented depth where
 * the network serves no such tag).
 */
export const FINALITY_LEVELS = ['seen', 'confirmed', 'safe', 'finalized'] as const;
export type FinalityLevel = (typeof FINALITY_LEVELS)[number];
export const FinalityLevelSchema = StringEnum(FINALITY_LEVELS);
/** The level money counts at unless a platform or a transaction says otherwise. */
export const DEFAULT_FINALITY: FinalityLevel = 'confirmed';
/** Whether `level` is at least `required`. */
export function finalityAtLeast(level: FinalityLevel, required: FinalityLevel): boolean {
  return FINALITY_LEVELS.indexOf(level) >= FINALITY_LEVELS.indexOf(required);
}
/** The higher of two levels. */
export function higherFinality(a: FinalityLevel, b: FinalityLevel): FinalityLevel {
  return finalityAtLeast(a, b) ? a : b;
}

export const ORCHESTRATION_TYPES = ['raw', 'platform'] as const;
export type OrchestrationType = (typeof ORCHESTRATION_TYPES)[number];

/** A decimal amount as a string, never a float: `"1000000.00"`, `"0.01"`. */
export const DecimalString = Type.String({ pattern: '^-?\\d+(\\.\\d+)?$', description: 'Exact decimal, as a string.' });

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'Free-form key/value data, returned as sent.' });
export type Metadata = Static<typeof Metadata>;

import { type AppEnv, AppError, CHAIN_IDS, type Network, TESTNET_OF, TESTNETS } from '@holdfast/contracts';

/**
 * Rules every way of creating a transaction shares (single create, batch legs, the Workspace API's
 * forwarded create): the network an environment accepts and the exact amount.
 */

/** The environment's base network when none is sent. */
export function defaultNetwork(appEnv: AppEnv): Network {
  return appEnv === 'production' ? 'base' : 'base-sepolia';
}

/**
 * The network a transaction runs on: the default when none is sent; outside production a mainnet
 * name is coerced to its testnet; in production a testnet is refused.
 */
export function resolveNetwork(
  appEnv: AppEnv,
  requested: Network | undefined,
  field = 'blockchainNetwork',
): { network: Network; chainId: number | null } {
  let network = requested ?? defaultNetwork(appEnv);
  if (appEnv === 'production') {
    if (TESTNETS.includes(network)) {
      throw new AppError('TESTNET_NOT_ALLOWED_IN_PRODUCTION', `${network} is a testnet; production accepts mainnets only`, { field });
    }
  } else {
    network = TESTNET_OF[network] ?? network;
  }
  return { network, chainId: CHAIN_IDS[network] ?? null };
}

export const MIN_AMOUNT = '0.01';
export const MAX_AMOUNT = '1000000';
/** At most 18 decimals (ETH's); stablecoins settle at 6, checked where the token is known. */
const DECIMAL = /^(0|[1-9]\d{0,6})(\.\d{1,18})?$/;

/** Compares two non-negative decimal strings exactly (no floating point). */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const [ai = '0', af = ''] = a.split('.');
  const [bi = '0', bf = ''] = b.split('.');
  const width = Math.max(af.length, bf.length);
  const x = BigInt(ai + af.padEnd(width, '0'));
  const y = BigInt(bi + bf.padEnd(width, '0'));
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Sums decimal strings exactly. */
export function sumDecimals(values: readonly string[]): string {
  let scale = 0;
  for (const v of values) scale = Math.max(scale, (v.split('.')[1] ?? '').length);
  let total = 0n;
  for (const v of values) {
    const [i = '0', f = ''] = v.split('.');
    total += BigInt(i + f.padEnd(scale, '0'));
  }
  const digits = total.toString().padStart(scale + 1, '0');
  const intPart = digits.slice(0, digits.length - scale);
  const frac = scale ? digits.slice(digits.length - scale).replace(/0+$/, '') : '';
  return frac ? `${intPart}.${frac}` : intPart;
}

/**
 * The exact decimal of an amount sent as a JSON number (or a decimal string, as the Workspace API
 * forwards it), between 0.01 and 1,000,000. A JSON number is taken as its shortest decimal
 * representation (`String(n)`), which is what the client wrote for any amount with up to 15
 * significant digits; exponent forms are expanded.
 */
export function normalizeAmount(value: number | string, field = 'amount'): string {
  let text = typeof value === 'number' ? numberToDecimal(value) : value.trim();
  if (!DECIMAL.test(text)) {
    throw new AppError(
      'VALIDATION_ERROR',
      `${field} must be a decimal amount between ${MIN_AMOUNT} and 1,000,000 with at most 18 decimals`,
      {
        errors: [{ field, reason: 'must be a decimal number with at most 18 decimals' }],
      },
    );
  }
  text = text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
  if (compareDecimal(text, MIN_AMOUNT) < 0 || compareDecimal(text, MAX_AMOUNT) > 0) {
    throw new AppError('VALIDATION_ERROR', `${field} must be between ${MIN_AMOUNT} and 1,000,000`, {
      errors: [{ field, reason: `must be >= ${MIN_AMOUNT} and <= 1000000` }],
    });
  }
  return text;
}

function numberToDecimal(n: number): string {
  if (!Number.isFinite(n)) return 'NaN';
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
}

/** Every token currency Holdfast moves has 6 decimals (USDC, USDT, USDG, MockUSDC); ETH is not an ERC-20. */
export const TOKEN_DECIMALS = 6;

/** `"25.5"` -> 25500000n (6 decimals); undefined when the amount has more decimals than the token. */
export function toBaseUnits(amount: string, decimals = TOKEN_DECIMALS): bigint | undefined {
  const match = /^([0-9]+)(?:\.([0-9]+))?$/.exec(amount);
  if (!match) return undefined;
  const [, whole = '0', fraction = ''] = match;
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > decimals) return undefined;
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(trimmed.padEnd(decimals, '0') || '0');
}

/** JSON with object keys sorted, so equal requests hash equally whatever the key order (idempotency fingerprints). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

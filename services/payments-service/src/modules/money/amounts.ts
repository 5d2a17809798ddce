import { AppError } from '@holdfast/contracts';

/**
 * Decimal arithmetic on amounts: exact, on decimal strings and bigints, never floating point. Every
 * module that compares, sums, rounds or converts an amount uses these (transactions, batches,
 * quotes, controls, settlement).
 */

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

/** A decimal string as an integer and its scale: `"12.50"` -> `{ n: 1250n, scale: 2 }`. */
export function decimalUnits(d: string): { n: bigint; scale: number } {
  const [i = '0', f = ''] = d.split('.');
  return { n: BigInt(i + f), scale: f.length };
}

/** A decimal string without trailing fraction zeros (`"1.50"` -> `"1.5"`, `"2.0"` -> `"2"`). */
export function trimDecimal(d: string): string {
  return d.includes('.') ? d.replace(/0+$/, '').replace(/\.$/, '') : d;
}

/** `n / 10^scale` rounded half up to `target` decimals, as a decimal string. */
export function roundHalfUp(n: bigint, scale: number, target: number): string {
  let v = n;
  if (scale > target) {
    const div = 10n ** BigInt(scale - target);
    v = (n + div / 2n) / div;
  } else {
    v = n * 10n ** BigInt(target - scale);
  }
  const digits = v.toString().padStart(target + 1, '0');
  const text = target ? `${digits.slice(0, digits.length - target)}.${digits.slice(digits.length - target)}` : digits;
  return trimDecimal(text);
}

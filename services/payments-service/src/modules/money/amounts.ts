import { validationError } from '@holdfast/contracts';

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

/** The most significant digits a JSON number may carry: a double holds 15 exactly, more are rounded. */
export const MAX_SIGNIFICANT_DIGITS = 15;

export interface AmountInputOptions {
  /** The currency of the amount: more decimals than it has is refused. Omitted: 18 (ETH's). */
  currency?: string;
  /** How the number was written in the JSON body (`numberSourceOf` of http-kit), when it was a JSON number. */
  source?: string | undefined;
}

const invalidAmount = (field: string, message: string, reason: string) => validationError([{ field, reason }], `${field} ${message}`);

/**
 * The exact decimal of an amount sent as a JSON number or a decimal string (docs/transactions.md,
 * "Amounts"), between 0.01 and 1,000,000. A JSON number is read from the digits the client wrote
 * (`source`), never from the double `JSON.parse` made of them: more than 15 significant digits, or
 * more decimals than the currency has, is refused (400 naming the field), never rounded. Trailing
 * zeros of the fraction carry no value (`25.500000000` is 25.5).
 */
export function normalizeAmount(value: number | string, field = 'amount', options: AmountInputOptions = {}): string {
  let text: string;
  if (typeof value === 'number') {
    const written = options.source ?? numberToDecimal(value);
    const expanded = expandJsonNumber(written);
    if (expanded === null) throw invalidAmount(field, 'must be a decimal number', 'must be a decimal number');
    if (significantDigits(expanded) > MAX_SIGNIFICANT_DIGITS) {
      throw invalidAmount(
        field,
        `has more than ${MAX_SIGNIFICANT_DIGITS} significant digits: a JSON number cannot carry them exactly; send the amount as a decimal string`,
        `must have at most ${MAX_SIGNIFICANT_DIGITS} significant digits as a JSON number (send a decimal string)`,
      );
    }
    text = expanded;
  } else {
    text = value.trim();
  }
  if (!DECIMAL.test(text)) {
    throw invalidAmount(
      field,
      `must be a decimal amount between ${MIN_AMOUNT} and 1,000,000 with at most 18 decimals`,
      'must be a decimal number with at most 18 decimals',
    );
  }
  text = trimDecimal(text);
  const decimals = decimalsOf(options.currency);
  const fraction = text.split('.')[1] ?? '';
  if (fraction.length > decimals) {
    throw invalidAmount(
      field,
      `has ${fraction.length} decimals; ${options.currency ?? 'the currency'} has ${decimals}: nothing is rounded, send at most ${decimals}`,
      `must have at most ${decimals} decimals (${options.currency ?? 'currency'})`,
    );
  }
  if (compareDecimal(text, MIN_AMOUNT) < 0 || compareDecimal(text, MAX_AMOUNT) > 0) {
    throw invalidAmount(field, `must be between ${MIN_AMOUNT} and 1,000,000`, `must be >= ${MIN_AMOUNT} and <= 1000000`);
  }
  return text;
}

function numberToDecimal(n: number): string {
  if (!Number.isFinite(n)) return 'NaN';
  return String(n);
}

/** A JSON number's text as a plain decimal (`"1.5e-3"` -> `"0.0015"`), exactly; null when it is not one (or absurd). */
export function expandJsonNumber(text: string): string | null {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!match) return null;
  const [, sign = '', int = '', frac = '', exp = '0'] = match;
  const shift = Number(exp);
  if (!Number.isSafeInteger(shift) || Math.abs(shift) > 100) return null;
  const digits = int + frac;
  let point = int.length + shift;
  let body = digits;
  if (point <= 0) {
    body = '0'.repeat(1 - point) + body;
    point = 1;
  } else if (point > body.length) {
    body = body.padEnd(point, '0');
  }
  const whole = body.slice(0, point).replace(/^0+(?=\d)/, '');
  const rest = body.slice(point);
  return `${sign}${whole}${rest ? `.${rest}` : ''}`;
}

/** Significant digits of a plain decimal: from its first to its last non-zero digit. */
function significantDigits(decimal: string): number {
  const digits = decimal.replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '');
  return digits.length;
}

/** Decimals of a currency: ETH 18, every token Holdfast moves 6. */
export function decimalsOf(currency: string | undefined): number {
  return currency === undefined || currency === 'ETH' ? 18 : TOKEN_DECIMALS;
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

import { SECRET_KEYS } from '@holdfast/logging';

export const REDACTED = '[redacted]';

const SECRET = new Set<string>(
  [...SECRET_KEYS, 'passwordHash', 'password_hash', 'code', 'codeHash', 'tokenHash', 'refreshTokenHash', 'clientSecret', 'privateKey'].map(
    (k) => k.toLowerCase(),
  ),
);

function isSecretKey(key: string): boolean {
  const k = key.toLowerCase();
  return SECRET.has(k) || k.endsWith('secret') || k.endsWith('password') || k.endsWith('token') || k.endsWith('apikey');
}

/** A secret's value, or its `{from, to}` change with both sides hidden (an absent side stays null). */
function redactedValue(value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value) && 'to' in value) {
    const change = value as { from?: unknown; to?: unknown };
    return { from: change.from == null ? null : REDACTED, to: change.to == null ? null : REDACTED };
  }
  return REDACTED;
}

/** A deep copy with every secret-named value replaced by "[redacted]" (kept as a key, so the change shows). */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        isSecretKey(k) ? redactedValue(v) : redactSecrets(v, depth + 1),
      ]),
    );
  }
  return value;
}

type Plain = Record<string, unknown>;

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * `{field: {from, to}}` for each field of `after` that differs from `before` (a creation passes
 * `before` = {}, a deletion `after` = {}), secrets redacted.
 */
export function diffChanges(before: Plain, after: Plain, fields?: readonly string[]): Record<string, { from: unknown; to: unknown }> {
  const keys = fields ?? [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changes: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of keys) {
    const from = before[key] ?? null;
    const to = after[key] ?? null;
    if (same(from, to)) continue;
    changes[key] = isSecretKey(key) ? { from: REDACTED, to: REDACTED } : { from: redactSecrets(from), to: redactSecrets(to) };
  }
  return changes;
}

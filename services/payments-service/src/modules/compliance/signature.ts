import { hmacSha256, safeEqual } from '@holdfast/secrets';

/**
 * The identity provider signs each callback: header
 * `X-Identity-Provider-Signature: t=<unix seconds>,v1=<hex>` where `<hex>` is
 * HMAC-SHA256(secret, "<t>.<raw body>"). Several `v1=` entries may be sent (the provider rotating
 * its secret); one matching is enough. The timestamp is signed, so a captured callback cannot be
 * replayed with a fresh one after the tolerance has passed.
 */
export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing' | 'malformed' | 'stale' | 'mismatch' };

export function signCallback(rawBody: Buffer | string, secret: string, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${hmac(secret, timestampSeconds, rawBody)}`;
}

export function verifyCallbackSignature(
  header: string | undefined,
  rawBody: Buffer,
  secret: string,
  options: { nowMs: number; toleranceSeconds: number },
): SignatureCheck {
  if (!header?.trim()) return { ok: false, reason: 'missing' };
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return { ok: false, reason: 'malformed' };
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return { ok: false, reason: 'malformed' };
      timestamp = Number(value);
    } else if (name === 'v1') {
      if (/^[0-9a-f]{64}$/i.test(value)) candidates.push(value.toLowerCase());
    }
  }
  if (timestamp === undefined || candidates.length === 0) return { ok: false, reason: 'malformed' };
  if (Math.abs(options.nowMs / 1000 - timestamp) > options.toleranceSeconds) return { ok: false, reason: 'stale' };
  if (!secret) return { ok: false, reason: 'mismatch' };
  const expected = hmac(secret, timestamp, rawBody);
  const matches = candidates.some((c) => safeEqual(c, expected));
  return matches ? { ok: true } : { ok: false, reason: 'mismatch' };
}

function hmac(secret: string, timestampSeconds: number, rawBody: Buffer | string): string {
  return hmacSha256(secret, Buffer.concat([Buffer.from(`${timestampSeconds}.`), Buffer.from(rawBody)]));
}

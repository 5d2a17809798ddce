import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

// What a receiver following docs/webhooks.md writes: independent of the dispatcher's signing code.

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `X-Webhook-Signature`: any of the comma-separated hex digests matches HMAC-SHA256(secret as UTF-8, raw body). */
export function verifyHexSignature(secret: string, rawBody: string, headers: IncomingHttpHeaders): boolean {
  const expected = createHmac('sha256', secret).update(rawBody).digest('hex');
  return header(headers, 'x-webhook-signature')
    .split(',')
    .some((candidate) => equal(candidate.trim(), expected));
}

/** Standard Webhooks by hand: key = base64-decoded part after `whsec_`, content `id.timestamp.body`. */
export function verifyStandardSignature(secret: string, rawBody: string, headers: IncomingHttpHeaders): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const content = `${header(headers, 'webhook-id')}.${header(headers, 'webhook-timestamp')}.${rawBody}`;
  const expected = createHmac('sha256', key).update(content).digest('base64');
  return header(headers, 'webhook-signature')
    .split(' ')
    .some((entry) => {
      const [version, signature] = entry.split(',');
      return version === 'v1' && signature !== undefined && equal(signature, expected);
    });
}

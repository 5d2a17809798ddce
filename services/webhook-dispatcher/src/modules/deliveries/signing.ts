import { hmacKey, hmacSha256, type KeyObject } from '@holdfast/secrets';

/**
 * The headers of one delivery attempt (operator contract, "Webhook deliveries"; docs/webhooks.md):
 *
 * - `X-Webhook-Signature`: lower-case hex HMAC-SHA256 of the raw body, keyed by the secret's UTF-8
 *   bytes (the whole `whsec_...` string). During a rotation two digests, comma-separated, the newest
 *   secret's first.
 * - Standard Webhooks: `webhook-id` (= `X-Webhook-Delivery`), `webhook-timestamp` (Unix seconds of
 *   this attempt), `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed as
 *   the Standard Webhooks libraries do: the bytes the base64 after `whsec_` decodes to. During a
 *   rotation two space-separated `v1,` entries, the newest first.
 */

export const USER_AGENT = 'Holdfast-Webhooks/1.0';
const SIGNATURE_HEADERS = new Set(['x-webhook-signature', 'webhook-signature']);

/** A subscription secret as it signs: the string (the hex signature's key) and its Standard Webhooks key. */
export interface SigningSecret {
  secret: string;
  standardKey: KeyObject;
}

/** The Standard Webhooks key of a secret: base64-decoded after `whsec_`. */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** A secret made ready to sign many attempts: its Standard Webhooks key is decoded once, not per attempt. */
export function signingSecret(secret: string): SigningSecret {
  return { secret, standardKey: hmacKey(standardWebhooksKey(secret)) };
}

export function hexSignature(secret: SigningSecret, body: string): string {
  // The string itself: an HMAC keys by its UTF-8 bytes, and no Buffer is made for it.
  return hmacSha256(secret.secret, body);
}

export function standardSignature(secret: SigningSecret, id: string, timestamp: number, body: string): string {
  return `v1,${hmacSha256(secret.standardKey, `${id}.${timestamp}.${body}`, 'base64')}`;
}

/**
 * Every header of an attempt. `secrets` newest first (two during a rotation).
 */
export function deliveryHeaders(input: {
  body: string;
  eventType: string;
  deliveryId: string;
  timestamp: number;
  secrets: readonly SigningSecret[];
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-webhook-event': input.eventType,
    'x-webhook-delivery': input.deliveryId,
    'x-webhook-signature': input.secrets.map((s) => hexSignature(s, input.body)).join(','),
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': input.secrets.map((s) => standardSignature(s, input.deliveryId, input.timestamp, input.body)).join(' '),
  };
}

/** The headers as the delivery log keeps them: signatures replaced by `[redacted]`. */
export function loggedHeaders(headers: Record<string, string>): Record<string, string> {
  const logged: Record<string, string> = {};
  for (const name in headers) logged[name] = SIGNATURE_HEADERS.has(name) ? '[redacted]' : (headers[name] as string);
  return logged;
}

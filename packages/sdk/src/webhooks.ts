import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { DeliveredEvent } from '@holdfast/contracts';
import { WebhookVerificationError } from './errors.js';

/** A webhook's headers as any framework gives them: a `Headers`, or a plain object (Node's `req.headers`). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Refuse a Standard Webhooks timestamp further than this from now (seconds). Default 300. */
  toleranceSeconds?: number;
  /** The current time in milliseconds (default `Date.now()`); for tests and clock-skewed hosts. */
  now?: number;
}

/** The event a delivery carries: `type` narrows `data` (a union over every event type). */
export type WebhookEvent = DeliveredEvent;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(', ') : value;
}

function bytesOf(body: string | Uint8Array): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The Standard Webhooks key of a `whsec_…` secret: the bytes its base64 part decodes to. */
function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

function fail(code: string, message: string): never {
  throw new WebhookVerificationError({ code, message });
}

/**
 * Checks that a webhook delivery comes from Holdfast and returns its event, typed by `type`.
 *
 * - `rawBody`: the body exactly as received (a string or the raw bytes), before any JSON parsing.
 * - `headers`: the request's headers. With the Standard Webhooks headers (`webhook-id`,
 *   `webhook-timestamp`, `webhook-signature`) the signature over `id.timestamp.body` is checked and a
 *   timestamp more than `toleranceSeconds` away (default 300) is refused as a replay; without them,
 *   `X-Webhook-Signature` (hex HMAC of the body, which carries no timestamp) is checked.
 * - `secretOrSecrets`: your `whsec_…` secret, or both during a rotation (any one matching is enough).
 *
 * Signatures are compared in constant time. Throws `WebhookVerificationError` (`code`
 * `WEBHOOK_HEADERS_MISSING`, `WEBHOOK_TIMESTAMP_STALE`, `WEBHOOK_SIGNATURE_INVALID`,
 * `WEBHOOK_BODY_INVALID` or `WEBHOOK_RAW_BODY_REQUIRED`, given a parsed object instead of the raw body); answer such a request with 400 and do nothing with it.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secretOrSecrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const secrets = [secretOrSecrets].flat().filter((s): s is string => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs at least one secret');
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    // The usual mistake: a framework parsed the JSON first. The signature covers the bytes sent, which
    // JSON.stringify of the parsed object does not reproduce (key order, spacing, number forms).
    fail(
      'WEBHOOK_RAW_BODY_REQUIRED',
      'verifyWebhook needs the raw request body (the string or bytes as received), not a parsed object: read the body raw (Express: express.raw({ type: "application/json" }); Fastify: a content-type parser returning the buffer) and parse the event verifyWebhook returns',
    );
  }
  const body = bytesOf(rawBody);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const standard = header(headers, 'webhook-signature');
  const hex = header(headers, 'x-webhook-signature');

  if (id && timestamp && standard) {
    const seconds = Number(timestamp);
    if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds))
      fail('WEBHOOK_HEADERS_MISSING', 'webhook-timestamp is not Unix seconds');
    const tolerance = options.toleranceSeconds ?? 300;
    const now = Math.floor((options.now ?? Date.now()) / 1000);
    if (Math.abs(now - seconds) > tolerance) {
      fail('WEBHOOK_TIMESTAMP_STALE', `webhook-timestamp is ${now - seconds} s away from now (tolerance ${tolerance} s)`);
    }
    const given = standard
      .split(' ')
      .map((entry) => entry.split(','))
      .filter(([version, signature]) => version === 'v1' && signature)
      .map(([, signature]) => signature as string);
    const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]);
    const valid = secrets.some((secret) => {
      const expected = createHmac('sha256', standardKey(secret)).update(signed).digest('base64');
      return given.some((signature) => sameText(signature, expected));
    });
    if (!valid) fail('WEBHOOK_SIGNATURE_INVALID', 'webhook-signature matches none of the secrets');
  } else if (hex) {
    const given = hex.split(',').map((s) => s.trim().toLowerCase());
    const valid = secrets.some((secret) => {
      const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
      return given.some((signature) => sameText(signature, expected));
    });
    if (!valid) fail('WEBHOOK_SIGNATURE_INVALID', 'X-Webhook-Signature matches none of the secrets');
  } else {
    fail('WEBHOOK_HEADERS_MISSING', 'neither webhook-id/webhook-timestamp/webhook-signature nor X-Webhook-Signature is present');
  }

  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    fail('WEBHOOK_BODY_INVALID', 'the body is not JSON');
  }
  const e = event as Partial<WebhookEvent> | null;
  if (!e || typeof e !== 'object' || typeof e.id !== 'string' || typeof e.type !== 'string' || typeof e.data !== 'object') {
    fail('WEBHOOK_BODY_INVALID', 'the body is not an event {id, type, createdAt, data}');
  }
  return e as WebhookEvent;
}

export interface SignedDelivery {
  /** The headers a Holdfast delivery of `body` carries, signed with `secrets` (newest first). */
  headers: Record<string, string>;
}

/**
 * Signs a body exactly as Holdfast signs a delivery (both signature schemes, every secret given,
 * newest first): for local forwarding (`holdfast listen`) and for your own tests.
 */
export function signWebhook(
  body: string,
  secretOrSecrets: string | readonly string[],
  options: { eventType: string; deliveryId?: string; timestampSeconds?: number },
): SignedDelivery {
  const secrets = [secretOrSecrets].flat();
  const deliveryId = options.deliveryId ?? randomUUID();
  const timestamp = String(options.timestampSeconds ?? Math.floor(Date.now() / 1000));
  const raw = Buffer.from(body, 'utf8');
  const hex = secrets.map((secret) => createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex')).join(',');
  const standard = secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', standardKey(secret))
          .update(Buffer.concat([Buffer.from(`${deliveryId}.${timestamp}.`), raw]))
          .digest('base64')}`,
    )
    .join(' ');
  return {
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Holdfast-Webhooks/1.0',
      'x-webhook-event': options.eventType,
      'x-webhook-delivery': deliveryId,
      'x-webhook-signature': hex,
      'webhook-id': deliveryId,
      'webhook-timestamp': timestamp,
      'webhook-signature': standard,
    },
  };
}

/** A new webhook secret in Holdfast's format: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
}

import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Seals and opens secrets stored at rest (webhook secrets, provider credentials, seeds) with
 * AES-256-GCM. Sealed text is `v1.<iv>.<ciphertext>.<tag>` in base64url, so the format can change
 * later without ambiguity. The additional data binds a sealed value to where it is stored (e.g.
 * `webhook_subscriptions.secret:<id>`): a value copied into another row does not open.
 */
export interface SecretBox {
  seal: (plaintext: string, context: string) => string;
  open: (sealed: string, context: string) => string;
}

const VERSION = 'v1';

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the data encryption key must be 32 bytes');
  return {
    seal: (plaintext, context) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open: (sealed, context) => {
      const [version, iv, ciphertext, tag] = sealed.split('.');
      if (version !== VERSION || !iv || ciphertext === undefined || !tag) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The key from `DATA_ENCRYPTION_KEY` (base64 of 32 bytes). In `local` without one, a key derived
 * from a fixed label: secrets stay unreadable to a casual look at the table, and a local database
 * keeps working across restarts; outside `local` the configuration refuses to start without a key.
 */
export function dataEncryptionKey(base64: string | undefined, appEnv: string): Buffer {
  if (base64) return Buffer.from(base64, 'base64');
  if (appEnv !== 'local') throw new Error('DATA_ENCRYPTION_KEY is required outside local');
  return createHash('sha256').update('holdfast-local-only-data-encryption-key').digest();
}

/** `prefix` + 32 random bytes in base64url: API keys, client ids and secrets, refresh tokens. */
export function randomToken(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

/**
 * SHA-256 of a high-entropy token, hex: how shown-once credentials are stored and looked up.
 * (A slow password hash adds nothing for 256-bit random tokens and would cost every request.)
 */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** HMAC-SHA256, hex or base64. */
export function hmacSha256(key: string | Buffer, data: string | Buffer, encoding: 'hex' | 'base64' = 'hex'): string {
  return createHmac('sha256', key).update(data).digest(encoding);
}

/** Constant-time string comparison (different lengths compare false without leaking where). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

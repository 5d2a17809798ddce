import { createHmac, createSecretKey, hash, hkdfSync, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';

export type { KeyObject } from 'node:crypto';

// The one crypto package (docs/security.md#the-database): sealing at rest, tokens, hashes, MACs and
// constant-time comparison for every service. The architecture test forbids node:crypto's ciphers,
// hashes and MACs anywhere else.
export { createKeyring, createSecretBox, type Keyring, keyIdOf, keyringFromConfig, keyringOf, type SecretBox } from './seal.js';

/** `prefix` + random bytes (32 by default) in base64url (or base64): API keys, client ids and secrets, refresh tokens, webhook secrets. */
export function randomToken(prefix: string, bytes = 32, encoding: 'base64url' | 'base64' = 'base64url'): string {
  return `${prefix}${randomBytes(bytes).toString(encoding)}`;
}

/**
 * SHA-256 of a high-entropy token, hex: how shown-once credentials are stored and looked up.
 * (A slow password hash adds nothing for 256-bit random tokens and would cost every request.)
 */
export function tokenHash(token: string): string {
  return sha256(token);
}

/** SHA-256 of a string or bytes: fingerprints, lock keys, derived ids (not for secrets of low entropy). */
export function sha256(data: string | Buffer): string;
export function sha256(data: string | Buffer, encoding: 'hex' | 'base64url'): string;
export function sha256(data: string | Buffer, encoding: 'buffer'): Buffer;
export function sha256(data: string | Buffer, encoding: 'hex' | 'base64url' | 'buffer' = 'hex'): string | Buffer {
  // One-shot: a third of createHash's cost for the short inputs hashed per request (a token).
  return hash('sha256', data, encoding);
}

/** Key bytes made ready for `hmacSha256` once, for a key that signs many messages (a webhook secret). */
export function hmacKey(bytes: Buffer): KeyObject {
  return createSecretKey(bytes);
}

/** HMAC-SHA256, hex, base64 or the bytes. */
export function hmacSha256(key: string | Buffer | KeyObject, data: string | Buffer, encoding?: 'hex' | 'base64'): string;
export function hmacSha256(key: string | Buffer | KeyObject, data: string | Buffer, encoding: 'buffer'): Buffer;
export function hmacSha256(
  key: string | Buffer | KeyObject,
  data: string | Buffer,
  encoding: 'hex' | 'base64' | 'buffer' = 'hex',
): string | Buffer {
  // Bytes are handed to createHmac as a KeyObject: given a Buffer, Node 24's createHmac spends
  // about 25 us telling it from a KeyObject and a CryptoKey, five times the HMAC of a webhook body
  // (measured: 30 us a call with a Buffer key, 6 us with a KeyObject or a string).
  const mac = createHmac('sha256', Buffer.isBuffer(key) ? createSecretKey(key) : key).update(data);
  return encoding === 'buffer' ? mac.digest() : mac.digest(encoding);
}

/**
 * A key for one purpose derived from a root secret (HKDF-SHA256, info `holdfast:<purpose>`, 32
 * bytes): one configured secret gives each use its own key, none of them the secret itself, so a
 * key's use never lends itself to another's (workspace-service's access-token signing key and its
 * verification-code MAC key both come from JWT_SECRET this way).
 */
export function purposeKey(secret: string | Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'holdfast', `holdfast:${purpose}`, 32));
}

/**
 * A keyed hash for low-entropy one-time codes (email codes, release codes): HMAC-SHA256 under a
 * server-side secret, with a purpose label and the code's owner in the message. A stolen table
 * alone does not let six digits be brute-forced, and a code of one owner or purpose never matches
 * another's.
 */
export function codeHash(secret: string | Buffer, purpose: string, owner: string, code: string): string {
  const key = hmacSha256(secret, `holdfast:${purpose}`, 'buffer');
  return hmacSha256(key, `${owner}:${code}`);
}

/** Constant-time string comparison (different lengths compare false without leaking where). */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const left = Buffer.isBuffer(a) ? a : Buffer.from(a, 'utf8');
  const right = Buffer.isBuffer(b) ? b : Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Secrets at rest (webhook secrets, provider credentials, seeds, encrypted settings), sealed with
 * AES-256-GCM under DATA_ENCRYPTION_KEY for every service.
 *
 * Sealed text is `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id (the first 8
 * hex of SHA-256 of the key, or `localdev`) names the key that sealed the value, so keys can be
 * rotated: a process holds the current key (writes) and the previous ones (reads only), and
 * `reencrypt` moves old values to the current key (docs/operations.md#rotating-data_encryption_key).
 * The additional data binds a value to where it is stored (e.g. `webhooks.subscription:<id>`): a
 * value copied into another row does not open.
 *
 * Values written before key ids (`v1.<iv>.<ciphertext>.<tag>`, four parts) still open: every held
 * key is tried (GCM's tag tells the right one); `reencrypt` rewrites them with an id.
 */
export interface SecretBox {
  seal: (plaintext: string, context: string) => string;
  open: (sealed: string, context: string) => string;
  /** The id of the key new values are sealed with. */
  currentKeyId: string;
  /** True when `sealed` was not sealed with the current key (reencrypt rewrites it). */
  isStale: (sealed: string) => boolean;
  /**
   * A keyed hash of a low-entropy value (a 6-digit one-time code with its owner): `<key id>.<hex>`,
   * HMAC-SHA256 under a key derived from the current key for `purpose`. A copy of the table alone
   * does not let the million codes be tried; a stored MAC stays checkable after a rotation while its
   * key is among the previous ones.
   */
  mac: (purpose: string, value: string) => string;
  /** Whether `stored` (from `mac`) is the MAC of `value`, in constant time; false for a key not held. */
  macMatches: (purpose: string, value: string, stored: string) => boolean;
}

/** The keys a process holds: the current one (seals and opens) and previous ones (open only). */
export interface Keyring {
  currentKeyId: string;
  keys: ReadonlyMap<string, Buffer>;
}

const VERSION = 'v1';
const LOCAL_DEV_KEY_ID = 'localdev';
/** The public development key: only ever held in `local`, never accepted elsewhere. */
const LOCAL_DEV_KEY = createHash('sha256')
  .update('holdfast local development key: not a secret, never used outside APP_ENV=local')
  .digest();
/** The local fallback key before key ids (workspace-service's): held in `local` so old local values open. */
const LEGACY_LOCAL_KEY = createHash('sha256').update('holdfast-local-only-data-encryption-key').digest();

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

function decodeKey(base64: string, name: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be base64 of 32 bytes`);
  return key;
}

/**
 * The keyring from the configuration: `key` is DATA_ENCRYPTION_KEY (base64 of 32 bytes), `previous`
 * DATA_ENCRYPTION_KEYS_PREVIOUS (keys that still open old values). In `local` without a key the
 * public development key seals (`localdev`); outside `local` a key is required, and the development
 * keys are never held, so a value sealed with one is refused.
 */
export function createKeyring(options: { key: string | undefined; previous?: readonly string[]; appEnv: string }): Keyring {
  const keys = new Map<string, Buffer>();
  let currentKeyId = LOCAL_DEV_KEY_ID;
  if (options.key) {
    const key = decodeKey(options.key, 'DATA_ENCRYPTION_KEY');
    currentKeyId = keyIdOf(key);
    keys.set(currentKeyId, key);
  } else if (options.appEnv !== 'local') {
    throw new Error(`DATA_ENCRYPTION_KEY is required when APP_ENV is ${options.appEnv}`);
  }
  for (const base64 of options.previous ?? []) {
    const key = decodeKey(base64, 'DATA_ENCRYPTION_KEYS_PREVIOUS');
    keys.set(keyIdOf(key), key);
  }
  if (options.appEnv === 'local') {
    keys.set(LOCAL_DEV_KEY_ID, LOCAL_DEV_KEY);
    keys.set(keyIdOf(LEGACY_LOCAL_KEY), LEGACY_LOCAL_KEY);
  }
  return { currentKeyId, keys };
}

/** A keyring of one key (tests, tools). */
export function keyringOf(key: Buffer): Keyring {
  if (key.length !== 32) throw new Error('the data encryption key must be 32 bytes');
  return { currentKeyId: keyIdOf(key), keys: new Map([[keyIdOf(key), key]]) };
}

function openWith(key: Buffer, iv: string, ciphertext: string, tag: string, context: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

/** `createSecretBox(keyring)`; a bare 32-byte key is a keyring of one. */
export function createSecretBox(keys: Keyring | Buffer): SecretBox {
  const keyring = Buffer.isBuffer(keys) ? keyringOf(keys) : keys;
  const current = keyring.keys.get(keyring.currentKeyId);
  if (!current) throw new Error(`the keyring does not hold its current key ${keyring.currentKeyId}`);
  const keyIdIn = (sealed: string): string | undefined => {
    const parts = sealed.split('.');
    return parts[0] === VERSION && parts.length === 5 ? parts[1] : undefined;
  };
  const macWith = (key: Buffer, purpose: string, value: string) =>
    createHmac('sha256', createHmac('sha256', key).update(`holdfast-mac:${purpose}`).digest())
      .update(value)
      .digest('hex');
  return {
    mac: (purpose, value) => `${keyring.currentKeyId}.${macWith(current, purpose, value)}`,
    macMatches: (purpose, value, stored) => {
      const [keyId, hex] = stored.split('.');
      const key = keyId ? keyring.keys.get(keyId) : undefined;
      if (!key || !hex || !/^[0-9a-f]{64}$/.test(hex)) return false;
      return timingSafeEqual(Buffer.from(macWith(key, purpose, value), 'hex'), Buffer.from(hex, 'hex'));
    },
    currentKeyId: keyring.currentKeyId,
    seal: (plaintext, context) => {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const parts = [iv, ciphertext, cipher.getAuthTag()].map((b) => b.toString('base64url'));
      return [VERSION, keyring.currentKeyId, ...parts].join('.');
    },
    open: (sealed, context) => {
      const parts = sealed.split('.');
      if (parts[0] !== VERSION || (parts.length !== 4 && parts.length !== 5)) throw new Error('not a sealed secret');
      if (parts.length === 5) {
        const [, keyId, iv, ciphertext, tag] = parts as [string, string, string, string, string];
        const key = keyring.keys.get(keyId);
        if (!key) throw new Error(`sealed secret: sealed with key ${keyId}, which this process does not hold`);
        return openWith(key, iv, ciphertext, tag, context);
      }
      // Before key ids: the key that opens it is the one whose tag checks out.
      const [, iv, ciphertext, tag] = parts as [string, string, string, string];
      for (const key of keyring.keys.values()) {
        try {
          return openWith(key, iv, ciphertext, tag, context);
        } catch {
          // not this key
        }
      }
      throw new Error('sealed secret: no key this process holds opens it');
    },
    isStale: (sealed) => keyIdIn(sealed) !== keyring.currentKeyId,
  };
}

/** The keyring of a service's validated configuration (DATA_ENCRYPTION_KEY, DATA_ENCRYPTION_KEYS_PREVIOUS, APP_ENV). */
export function keyringFromConfig(config: {
  DATA_ENCRYPTION_KEY?: string | undefined;
  DATA_ENCRYPTION_KEYS_PREVIOUS?: string | undefined;
  APP_ENV: string;
}): Keyring {
  const previous = (config.DATA_ENCRYPTION_KEYS_PREVIOUS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  return createKeyring({ key: config.DATA_ENCRYPTION_KEY, previous, appEnv: config.APP_ENV });
}

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { AppEnv } from '@holdfast/contracts';
import type { Logger } from '@holdfast/logging';

/**
 * Webhook secrets: generated here, sealed with AES-256-GCM under DATA_ENCRYPTION_KEY before they
 * reach PostgreSQL, opened only to sign a delivery.
 *
 * Sealed form: `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id (first 8 hex of
 * SHA-256 of the key) says which key sealed a value, so a wrong key fails with a clear error rather
 * than garbage, and the additional authenticated data binds each value to its subscription (a
 * sealed secret copied onto another row does not open).
 *
 * In `local` without DATA_ENCRYPTION_KEY, a development key derived from a public constant is
 * used (key id `localdev`) and a warning is logged at start: secrets survive restarts and are shared
 * by local instances, but are not protected. Outside `local` the variable is required by the
 * configuration, and a value sealed with the development key is refused.
 */
export interface SecretBox {
  /** `whsec_` + base64 of 32 random bytes. */
  generate: () => string;
  seal: (secret: string, context: string) => string;
  open: (sealed: string, context: string) => string;
}

const LOCAL_DEV_KEY_ID = 'localdev';
const LOCAL_DEV_KEY = createHash('sha256')
  .update('holdfast local development key: not a secret, never used outside APP_ENV=local')
  .digest();

function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export function createSecretBox(options: { encryptionKey: string | undefined; appEnv: AppEnv; logger: Logger }): SecretBox {
  const keys = new Map<string, Buffer>();
  let sealingKeyId: string;
  if (options.encryptionKey) {
    const key = Buffer.from(options.encryptionKey, 'base64');
    if (key.length !== 32) throw new Error('DATA_ENCRYPTION_KEY must be base64 of 32 bytes');
    sealingKeyId = keyIdOf(key);
    keys.set(sealingKeyId, key);
  } else {
    if (options.appEnv !== 'local') throw new Error(`DATA_ENCRYPTION_KEY is required when APP_ENV is ${options.appEnv}`);
    sealingKeyId = LOCAL_DEV_KEY_ID;
    options.logger.warn('DATA_ENCRYPTION_KEY is not set: webhook secrets are sealed with the public local development key');
  }
  // In local, values sealed before a key was configured still open.
  if (options.appEnv === 'local') keys.set(LOCAL_DEV_KEY_ID, LOCAL_DEV_KEY);

  return {
    generate: () => `whsec_${randomBytes(32).toString('base64')}`,
    seal: (secret, context) => {
      const key = keys.get(sealingKeyId)!;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      const parts = [iv, ciphertext, cipher.getAuthTag()].map((b) => b.toString('base64url'));
      return ['v1', sealingKeyId, ...parts].join('.');
    },
    open: (sealed, context) => {
      const [version, keyId, iv, ciphertext, tag] = sealed.split('.');
      if (version !== 'v1' || !keyId || !iv || !ciphertext || !tag) throw new Error('sealed secret: unknown format');
      const key = keys.get(keyId);
      if (!key) throw new Error(`sealed secret: sealed with key ${keyId}, which this process does not hold`);
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

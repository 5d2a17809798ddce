import { randomBytes } from 'node:crypto';
import { testLogger } from '@holdfast/test-fixtures';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../src/modules/secrets/service.js';

const logger = testLogger('secrets');
const key = randomBytes(32).toString('base64');

describe('webhook secrets at rest', () => {
  it('generates whsec_ + base64 of 32 random bytes', () => {
    const box = createSecretBox({ encryptionKey: key, appEnv: 'production', logger });
    const a = box.generate();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(box.generate()).not.toBe(a);
  });

  it('seals with AES-256-GCM under DATA_ENCRYPTION_KEY, bound to its subscription', () => {
    const box = createSecretBox({ encryptionKey: key, appEnv: 'production', logger });
    const secret = box.generate();
    const sealed = box.seal(secret, 'webhooks.subscription:a');
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.seal(secret, 'webhooks.subscription:a')).not.toBe(sealed);
    expect(box.open(sealed, 'webhooks.subscription:a')).toBe(secret);
    expect(() => box.open(sealed, 'webhooks.subscription:b')).toThrow();
    const parts = sealed.split('.');
    const tampered = Buffer.from(parts[3]!, 'base64url');
    tampered[0] = (tampered[0] ?? 0) ^ 1;
    parts[3] = tampered.toString('base64url');
    expect(() => box.open(parts.join('.'), 'webhooks.subscription:a')).toThrow();
    const otherKey = createSecretBox({ encryptionKey: randomBytes(32).toString('base64'), appEnv: 'production', logger });
    expect(() => otherKey.open(sealed, 'webhooks.subscription:a')).toThrow(/does not hold/);
  });

  it('uses the public development key only in local without DATA_ENCRYPTION_KEY, never elsewhere', () => {
    const local = createSecretBox({ encryptionKey: undefined, appEnv: 'local', logger });
    const sealed = local.seal('whsec_x', 'ctx');
    expect(sealed.startsWith('v1.localdev.')).toBe(true);
    expect(local.open(sealed, 'ctx')).toBe('whsec_x');
    // A key configured later: new values use it, values sealed before still open in local.
    const localWithKey = createSecretBox({ encryptionKey: key, appEnv: 'local', logger });
    expect(localWithKey.open(sealed, 'ctx')).toBe('whsec_x');
    expect(localWithKey.seal('whsec_x', 'ctx').startsWith('v1.localdev.')).toBe(false);
    const production = createSecretBox({ encryptionKey: key, appEnv: 'production', logger });
    expect(() => production.open(sealed, 'ctx')).toThrow(/localdev/);
    expect(() => createSecretBox({ encryptionKey: undefined, appEnv: 'staging', logger })).toThrow(/DATA_ENCRYPTION_KEY/);
  });
});

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, dataEncryptionKey, randomToken, safeEqual, tokenHash } from '../src/index.js';

describe('secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('opens what it sealed, and each seal differs', () => {
    const a = box.seal('whsec_abc', 'subscription:1');
    const b = box.seal('whsec_abc', 'subscription:1');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1\./);
    expect(a).not.toContain('whsec_abc');
    expect(box.open(a, 'subscription:1')).toBe('whsec_abc');
  });

  it('refuses another context, another key and a tampered value', () => {
    const sealed = box.seal('seed words', 'wallet:1');
    expect(() => box.open(sealed, 'wallet:2')).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'wallet:1')).toThrow();
    const parts = sealed.split('.');
    parts[2] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'), 'wallet:1')).toThrow();
    expect(() => box.open('plain text', 'wallet:1')).toThrow('not a sealed secret');
  });

  it('needs a 32-byte key outside local', () => {
    expect(() => createSecretBox(randomBytes(16))).toThrow();
    expect(() => dataEncryptionKey(undefined, 'production')).toThrow('DATA_ENCRYPTION_KEY is required outside local');
    expect(dataEncryptionKey(undefined, 'local')).toHaveLength(32);
    expect(dataEncryptionKey(randomBytes(32).toString('base64'), 'production')).toHaveLength(32);
  });
});

describe('tokens', () => {
  it('makes prefixed random tokens, hashes them stably and compares in constant time', () => {
    const token = randomToken('hf_test_');
    expect(token).toMatch(/^hf_test_[A-Za-z0-9_-]{43}$/);
    expect(tokenHash(token)).toBe(tokenHash(token));
    expect(tokenHash(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});

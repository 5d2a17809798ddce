import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  codeHash,
  createKeyring,
  createSecretBox,
  hmacSha256,
  keyIdOf,
  keyringOf,
  purposeKey,
  randomToken,
  safeEqual,
  sha256,
  tokenHash,
} from '../src/index.js';

const b64 = () => randomBytes(32).toString('base64');

describe('secret box', () => {
  const key = randomBytes(32);
  const box = createSecretBox(key);

  it('opens what it sealed, names the key that sealed it, and each seal differs', () => {
    const a = box.seal('whsec_abc', 'subscription:1');
    const b = box.seal('whsec_abc', 'subscription:1');
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`^v1\\.${keyIdOf(key)}\\.[\\w-]+\\.[\\w-]+\\.[\\w-]+$`));
    expect(a).not.toContain('whsec_abc');
    expect(box.open(a, 'subscription:1')).toBe('whsec_abc');
    expect(box.isStale(a)).toBe(false);
  });

  it('refuses another context, another key and a tampered value', () => {
    const sealed = box.seal('seed words', 'wallet:1');
    expect(() => box.open(sealed, 'wallet:2')).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'wallet:1')).toThrow(/does not hold/);
    const parts = sealed.split('.');
    const tampered = Buffer.from(parts[3]!, 'base64url');
    tampered[0] = (tampered[0] ?? 0) ^ 1;
    parts[3] = tampered.toString('base64url');
    expect(() => box.open(parts.join('.'), 'wallet:1')).toThrow();
    expect(() => box.open('plain text', 'wallet:1')).toThrow('not a sealed secret');
  });

  it('opens values sealed before key ids (four parts) with whichever held key their tag accepts', () => {
    const old = box.seal('legacy', 'ctx').split('.');
    const legacy = [old[0], old[2], old[3], old[4]].join('.');
    const rotated = createSecretBox(createKeyring({ key: b64(), previous: [key.toString('base64')], appEnv: 'production' }));
    expect(rotated.open(legacy, 'ctx')).toBe('legacy');
    expect(rotated.isStale(legacy)).toBe(true);
    expect(() => createSecretBox(randomBytes(32)).open(legacy, 'ctx')).toThrow(/no key/);
  });
});

describe('keyring and rotation', () => {
  it('seals with the current key and opens with the previous ones', () => {
    const [a, b] = [b64(), b64()];
    const before = createSecretBox(createKeyring({ key: a, appEnv: 'production' }));
    const sealedA = before.seal('v', 'ctx');
    const after = createSecretBox(createKeyring({ key: b, previous: [a], appEnv: 'production' }));
    expect(after.open(sealedA, 'ctx')).toBe('v');
    expect(after.isStale(sealedA)).toBe(true);
    const sealedB = after.seal('v', 'ctx');
    expect(sealedB.split('.')[1]).toBe(keyIdOf(Buffer.from(b, 'base64')));
    expect(after.isStale(sealedB)).toBe(false);
    expect(() => before.open(sealedB, 'ctx')).toThrow(/does not hold/);
  });

  it('uses the public development key only in local without DATA_ENCRYPTION_KEY, never elsewhere', () => {
    const local = createSecretBox(createKeyring({ key: undefined, appEnv: 'local' }));
    const sealed = local.seal('whsec_x', 'ctx');
    expect(sealed.startsWith('v1.localdev.')).toBe(true);
    // A key configured later: new values use it, values sealed before still open in local.
    const key = b64();
    const localWithKey = createSecretBox(createKeyring({ key, appEnv: 'local' }));
    expect(localWithKey.open(sealed, 'ctx')).toBe('whsec_x');
    expect(localWithKey.seal('x', 'ctx').startsWith('v1.localdev.')).toBe(false);
    expect(() => createSecretBox(createKeyring({ key, appEnv: 'production' })).open(sealed, 'ctx')).toThrow(/localdev/);
    expect(() => createKeyring({ key: undefined, appEnv: 'staging' })).toThrow(/DATA_ENCRYPTION_KEY is required/);
    expect(() => createKeyring({ key: randomBytes(16).toString('base64'), appEnv: 'production' })).toThrow(/32 bytes/);
    expect(() => keyringOf(randomBytes(16))).toThrow();
  });
});

describe('MACs of low-entropy values', () => {
  it('are keyed by the current key, bound to purpose and value, and still match after a rotation', () => {
    const [a, b] = [b64(), b64()];
    const before = createSecretBox(createKeyring({ key: a, appEnv: 'production' }));
    const stored = before.mac('control-codes', 'tx:2fa:123456');
    expect(stored).toMatch(new RegExp(`^${keyIdOf(Buffer.from(a, 'base64'))}\\.[0-9a-f]{64}$`));
    expect(before.macMatches('control-codes', 'tx:2fa:123456', stored)).toBe(true);
    expect(before.macMatches('control-codes', 'tx:2fa:123457', stored)).toBe(false);
    expect(before.macMatches('other', 'tx:2fa:123456', stored)).toBe(false);
    expect(before.macMatches('control-codes', 'tx:2fa:123456', 'garbage')).toBe(false);
    const after = createSecretBox(createKeyring({ key: b, previous: [a], appEnv: 'production' }));
    expect(after.macMatches('control-codes', 'tx:2fa:123456', stored)).toBe(true);
    expect(createSecretBox(createKeyring({ key: b, appEnv: 'production' })).macMatches('control-codes', 'tx:2fa:123456', stored)).toBe(
      false,
    );
  });
});

describe('tokens, hashes and codes', () => {
  it('makes prefixed random tokens, hashes them stably and compares in constant time', () => {
    const token = randomToken('hf_test_');
    expect(token).toMatch(/^hf_test_[A-Za-z0-9_-]{43}$/);
    expect(randomToken('whsec_', 32, 'base64')).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(tokenHash(token)).toBe(tokenHash(token));
    expect(tokenHash(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });

  it('hashes one-time codes under a server secret, bound to purpose and owner', () => {
    const h = codeHash('server-secret', 'release-codes', 'challenge-1', '123456');
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(codeHash('server-secret', 'release-codes', 'challenge-1', '123456')).toBe(h);
    expect(codeHash('other-secret', 'release-codes', 'challenge-1', '123456')).not.toBe(h);
    expect(codeHash('server-secret', 'verification-codes', 'challenge-1', '123456')).not.toBe(h);
    expect(codeHash('server-secret', 'release-codes', 'challenge-2', '123456')).not.toBe(h);
  });
});

describe('hmacSha256', () => {
  it('keys by the bytes given, whether bytes, a KeyObject or a string (its UTF-8 bytes): the same MAC as createHmac', () => {
    const bytes = randomBytes(32);
    const body = JSON.stringify({ type: 'transaction.created', amount: '12.5', note: 'é' });
    const expected = createHmac('sha256', bytes).update(body).digest('hex');
    expect(hmacSha256(bytes, body)).toBe(expected);
    expect(hmacSha256(createSecretKey(bytes), body)).toBe(expected);
    const secret = 'whsec_dGVzdC1zZWNyZXQtw6k=';
    expect(hmacSha256(secret, body, 'base64')).toBe(createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('base64'));
    expect(hmacSha256(bytes, Buffer.from(body), 'buffer').equals(createHmac('sha256', bytes).update(body).digest())).toBe(true);
  });

  it('keys by an empty key as createHmac does', () => {
    expect(hmacSha256(Buffer.alloc(0), 'x')).toBe(createHmac('sha256', Buffer.alloc(0)).update('x').digest('hex'));
  });
});

describe('purposeKey', () => {
  it('derives one 32-byte key per purpose (HKDF-SHA256, RFC 5869), none of them the secret itself', () => {
    const secret = 'a root secret of at least thirty-two characters';
    const a = purposeKey(secret, 'workspace:access-tokens');
    const b = purposeKey(secret, 'workspace:verification-codes');
    expect(a).toHaveLength(32);
    expect(a.equals(purposeKey(secret, 'workspace:access-tokens'))).toBe(true);
    expect(a.equals(b)).toBe(false);
    expect(a.equals(Buffer.from(secret).subarray(0, 32))).toBe(false);
    // RFC 5869 by hand: extract with the salt, expand with the info, one block.
    const prk = createHmac('sha256', 'holdfast').update(secret).digest();
    const okm = createHmac('sha256', prk)
      .update(Buffer.concat([Buffer.from('holdfast:workspace:access-tokens'), Buffer.from([1])]))
      .digest();
    expect(a.equals(okm)).toBe(true);
  });
});

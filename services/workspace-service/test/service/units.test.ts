import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromPaymentsScope, toPaymentsScope, WORKSPACE_OAUTH_SCOPES } from '@holdfast/contracts';
import { describe, expect, it } from 'vitest';
import { passwordPolicyErrors } from '../../src/modules/access/passwords.js';
import { verificationCodeHasher } from '../../src/modules/access/tokens.js';
import { toCsv } from '../../src/modules/audit/csv.js';
import { diffChanges, redactSecrets } from '../../src/modules/audit/redact.js';
import { createLocalDiskStorage } from '../../src/modules/storage/adapter.js';
import { sniffImageType } from '../../src/modules/storage/avatars.js';
import { slugFromName, slugWithSuffix } from '../../src/modules/workspaces/slug.js';
import { JPEG, PNG } from '../support/fixtures.js';

describe('slugs', () => {
  it.each([
    ['Acme Payments', 'acme-payments'],
    ['  Café Øresund & Co. ', 'cafe-resund-co'],
    ['---', 'workspace'],
    ['日本', 'workspace'],
    ['a'.repeat(300), 'a'.repeat(60)],
  ])('%s -> %s', (name, slug) => {
    expect(slugFromName(name)).toBe(slug);
    expect(slugFromName(name)).toMatch(/^[a-z0-9-]+$/);
  });

  it('suffixes stay in the pattern', () => {
    expect(slugWithSuffix('acme')).toMatch(/^acme-[0-9a-f]{6}$/);
  });
});

describe('password policy', () => {
  it('accepts a password with the four kinds of characters and 12 of them', () => {
    expect(passwordPolicyErrors('Str0ng!Password', 'password')).toEqual([]);
  });
  it('names everything missing at once', () => {
    expect(passwordPolicyErrors('short', 'newPassword')).toEqual([
      { field: 'newPassword', reason: 'must be at least 12 characters; must contain an upper-case letter, a number, a special character' },
    ]);
  });
});

describe('audit changes', () => {
  it('diffs fields and hides secrets, keeping the fact that they changed', () => {
    expect(diffChanges({ name: 'a', password: 'x', same: 1 }, { name: 'b', password: 'y', same: 1 })).toEqual({
      name: { from: 'a', to: 'b' },
      password: { from: '[redacted]', to: '[redacted]' },
    });
    expect(
      redactSecrets({ nested: { apiKey: 'k', refreshToken: 't', clientSecret: 's', keep: 'v' }, password: { from: null, to: 'p' } }),
    ).toEqual({
      nested: { apiKey: '[redacted]', refreshToken: '[redacted]', clientSecret: '[redacted]', keep: 'v' },
      password: { from: null, to: '[redacted]' },
    });
  });
});

describe('CSV', () => {
  it('quotes what needs quoting and defuses formulas', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x,y', '=1+1'],
          ['"q"', { k: 1 }],
          [null, '-2'],
          ['@cmd', 'line\nbreak'],
        ],
      ),
    ).toBe('a,b\r\n"x,y",\'=1+1\r\n"""q""","{""k"":1}"\r\n,\'-2\r\n\'@cmd,"line\nbreak"\r\n');
  });
});

describe('verification codes', () => {
  it('are keyed by the server secret and bound to the user', () => {
    const a = verificationCodeHasher(Buffer.from('secret-a'.repeat(4)));
    const b = verificationCodeHasher(Buffer.from('secret-b'.repeat(4)));
    expect(a('u1', '123456')).toBe(a('u1', '123456'));
    expect(a('u1', '123456')).not.toBe(a('u2', '123456'));
    expect(a('u1', '123456')).not.toBe(b('u1', '123456'));
  });
});

describe('local disk storage', () => {
  it('stores, reads and deletes; refuses keys that could leave its directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hf-storage-'));
    try {
      const storage = createLocalDiskStorage(dir);
      await storage.put('avatars/abc-123.png', PNG);
      expect(await storage.get('avatars/abc-123.png')).toEqual(PNG);
      await storage.delete('avatars/abc-123.png');
      await storage.delete('avatars/abc-123.png');
      expect(await storage.get('avatars/abc-123.png')).toBeUndefined();
      for (const key of ['../etc/passwd', 'avatars/../../x.png', '/abs/x.png', 'avatars/x']) {
        await expect(storage.put(key, PNG)).rejects.toThrow('invalid storage key');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('image sniffing', () => {
  it('recognises PNG, JPEG, GIF and WebP from their bytes only', () => {
    expect(sniffImageType(PNG)).toBe('image/png');
    expect(sniffImageType(JPEG)).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('GIF89a....'))).toBe('image/gif');
    expect(sniffImageType(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]))).toBe('image/webp');
    expect(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
  });
});

describe('OAuth scope mapping', () => {
  it('maps each resource:action scope to its Payments scope and back', () => {
    for (const { scope, paymentsScope } of WORKSPACE_OAUTH_SCOPES) {
      const [resource, action] = scope.split(':');
      expect(paymentsScope).toBe(`${action}:${resource}`);
      expect(toPaymentsScope(scope)).toBe(paymentsScope);
      expect(fromPaymentsScope(paymentsScope)).toBe(scope);
    }
    expect(toPaymentsScope('platform:admin')).toBeUndefined();
    expect(fromPaymentsScope('manage:api-keys')).toBeUndefined();
  });
});

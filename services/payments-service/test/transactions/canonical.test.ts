import { describe, expect, it } from 'vitest';
import { canonical } from '../../src/modules/transactions/canonical.js';

// The idempotency fingerprint hashes this text: equal parameters must give the same text whatever
// the order of their keys, and different parameters different texts.
describe('canonical JSON of a request', () => {
  it('sorts keys at every depth, drops undefined members and keeps arrays in order', () => {
    const a = canonical({ to: '0xB', amount: '1.5', metadata: { z: 1, a: [3, { y: null, x: 'q"' }] }, note: undefined });
    const b = canonical({ metadata: { a: [3, { x: 'q"', y: null }], z: 1 }, amount: '1.5', to: '0xB' });
    expect(a).toBe('{"amount":"1.5","metadata":{"a":[3,{"x":"q\\"","y":null}],"z":1},"to":"0xB"}');
    expect(b).toBe(a);
    expect(canonical({ metadata: { a: [{ x: 'q"', y: null }, 3], z: 1 }, amount: '1.5', to: '0xB' })).not.toBe(a);
    expect(canonical([undefined, null])).toBe('[null,null]');
    expect(canonical(undefined)).toBe('null');
  });
});

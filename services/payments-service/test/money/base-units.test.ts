import { describe, expect, it } from 'vitest';
import { toBaseUnits } from '../../src/modules/money/amounts.js';

describe('toBaseUnits (6 decimals)', () => {
  it.each([
    ['25.5', 25_500_000n],
    ['0.01', 10_000n],
    ['1000000', 1_000_000_000_000n],
    ['1.123456', 1_123_456n],
    ['2.500000000', 2_500_000n],
  ])('%s -> %s', (amount, units) => {
    expect(toBaseUnits(amount)).toBe(units);
  });

  it('has no value for an amount finer than the token', () => {
    expect(toBaseUnits('1.0000001')).toBeUndefined();
    expect(toBaseUnits('abc')).toBeUndefined();
  });
});

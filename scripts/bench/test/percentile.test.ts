import { describe, expect, it } from 'vitest';
import { percentile } from '../percentile.ts';

const ascending = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('percentile (nearest rank, every benchmark)', () => {
  it('p99 of 100 latencies is the 99th, not the largest', () => {
    expect(percentile(ascending(100), 99)).toBe(99);
  });

  it('p99 of 600 is the 7th-slowest; p50 of an even count is the lower middle value', () => {
    expect(percentile(ascending(600), 99)).toBe(594);
    expect(percentile(ascending(4), 50)).toBe(2);
  });

  it('p99 of a paced webhooks run (2000 deliveries) is the 21st-slowest', () => {
    expect(percentile(ascending(2000), 99)).toBe(1980);
  });

  it('is a value of the run (never interpolated), the largest at p100, 0 for an empty run', () => {
    expect(percentile([1.5, 9.25], 90)).toBe(9.25);
    expect(percentile(ascending(10), 100)).toBe(10);
    expect(percentile([], 99)).toBe(0);
  });
});

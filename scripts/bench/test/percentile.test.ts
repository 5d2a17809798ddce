import { describe, expect, it } from 'vitest';
import { percentile, percentileFloorRank } from '../percentile.ts';

const ascending = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('percentile (nearest rank: the request and head-lag benchmarks)', () => {
  it('p99 of 100 latencies is the 99th, not the largest', () => {
    expect(percentile(ascending(100), 99)).toBe(99);
  });

  it('p99 of 600 is the 7th-slowest; p50 of an even count is the lower middle value', () => {
    expect(percentile(ascending(600), 99)).toBe(594);
    expect(percentile(ascending(4), 50)).toBe(2);
  });

  it('is a value of the run (never interpolated), the largest at p100, 0 for an empty run', () => {
    expect(percentile([1.5, 9.25], 90)).toBe(9.25);
    expect(percentile(ascending(10), 100)).toBe(10);
    expect(percentile([], 99)).toBe(0);
  });
});

describe('percentileFloorRank (webhooks.ts)', () => {
  it('p99 of 600 latencies is the 6th-slowest (docs/benchmarks.md reads a paced 200/s run of 3 s so)', () => {
    expect(percentileFloorRank(ascending(600), 99)).toBe(595);
  });

  it('p99 of 100 is the largest; p50 of an even count the upper middle value', () => {
    expect(percentileFloorRank(ascending(100), 99)).toBe(100);
    expect(percentileFloorRank(ascending(4), 50)).toBe(3);
  });

  it('is 0 for an empty run', () => {
    expect(percentileFloorRank([], 99)).toBe(0);
  });
});

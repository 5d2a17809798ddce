import { describe, expect, it } from 'vitest';
import { halfWaySample, type RssSample, soakVerdicts, startupVerdicts } from '../process-verdicts.ts';
import { median } from '../rounds.ts';

describe('startupVerdicts', () => {
  it('prints the start-up lines of docs/benchmarks.md on the medians of the starts', () => {
    const ready = [806, 692, 795, 749, 730];
    const idle = [117.3, 116.9, 116.2, 117.0, 115.8];
    expect(startupVerdicts('workspace-service', median(ready), median(idle))).toEqual([
      'PASS workspace-service start to ready 749 ms (target ≤ 1000 ms)',
      'PASS workspace-service idle RSS 116.9 MiB (target ≤ 120 MiB)',
    ]);
  });

  it('passes exactly on a target and misses above it, even when the printed figure rounds onto it', () => {
    expect(startupVerdicts('p', 1000, 120)).toEqual([
      'PASS p start to ready 1000 ms (target ≤ 1000 ms)',
      'PASS p idle RSS 120.0 MiB (target ≤ 120 MiB)',
    ]);
    expect(startupVerdicts('p', 1000.4, 120.04)).toEqual([
      'MISS p start to ready 1000 ms (target ≤ 1000 ms)',
      'MISS p idle RSS 120.0 MiB (target ≤ 120 MiB)',
    ]);
  });

  it('takes the mean of the two middle starts for an even count (--starts 2)', () => {
    expect(startupVerdicts('p', median([900, 1200]), median([100, 110]))[0]).toBe('MISS p start to ready 1050 ms (target ≤ 1000 ms)');
  });
});

const curve = (requests: number[], rss: number[], name = 'w'): RssSample[] =>
  requests.map((r, i) => ({ requests: r, rss: { [name]: rss[i]! } }));

describe('soakVerdicts', () => {
  it('reads idle from the first sample, after from the last, growth from the half-way sample (docs/benchmarks.md)', () => {
    const requests = Array.from({ length: 21 }, (_, i) => i * 5000);
    const rss = requests.map((r) => (r === 0 ? 113.8 : r === 50_000 ? 172.3 : r === 100_000 ? 154.3 : 160));
    expect(soakVerdicts('workspace-service', curve(requests, rss, 'workspace-service'))).toEqual([
      'PASS workspace-service idle RSS 113.8 MiB (target ≤ 120 MiB)',
      'PASS workspace-service RSS after 100000 requests 154.3 MiB (target ≤ 200 MiB)',
      'PASS workspace-service RSS growth from 50000 to 100000 requests -10.4 % (target < 5 %)',
    ]);
  });

  it('misses a growth of exactly 5 % (the target is strictly under)', () => {
    expect(soakVerdicts('w', curve([0, 1000, 2000], [100, 100, 105]))[2]).toBe(
      'MISS w RSS growth from 1000 to 2000 requests 5.0 % (target < 5 %)',
    );
  });

  it('misses idle above 120 MiB and after above 200 MiB', () => {
    const [idle, after] = soakVerdicts('w', curve([0, 1000, 2000], [120.1, 150, 200.1]));
    expect(idle).toBe('MISS w idle RSS 120.1 MiB (target ≤ 120 MiB)');
    expect(after).toBe('MISS w RSS after 2000 requests 200.1 MiB (target ≤ 200 MiB)');
  });
});

describe('halfWaySample', () => {
  it('is the sample nearest to half the last one’s requests, the earlier of two as near', () => {
    expect(halfWaySample(curve([0, 500, 1000, 1500, 2000], [1, 1, 1, 1, 1])).requests).toBe(1000);
    expect(halfWaySample(curve([0, 400, 600, 1000], [1, 1, 1, 1])).requests).toBe(400);
    // A run stopped early (--max-minutes): its last sample is not a multiple of --sample-every.
    expect(halfWaySample(curve([0, 5000, 10_000, 12_345], [1, 1, 1, 1])).requests).toBe(5000);
  });
});

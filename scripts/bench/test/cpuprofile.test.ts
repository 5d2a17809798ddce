import { describe, expect, it } from 'vitest';
import { type Profile, summarizeCpuProfile } from '../cpuprofile.ts';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

// 14 ms of samples: 6 ms in `hot`, 4 ms idle, 2 ms anonymous, 1 ms in fastify's `lookup|find`, 1 ms (program).
const profile: Profile = {
  nodes: [
    { id: 1, callFrame: frame('(root)') },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('hot', 'file:///home/u/holdfast/services/payments-service/src/a.ts', 9) },
    { id: 4, callFrame: frame('lookup|find', 'file:///w/node_modules/.pnpm/fastify@5/node_modules/fastify/lib/route.js', 0) },
    { id: 5, callFrame: frame('(program)') },
    { id: 6, callFrame: frame('', 'node:internal/timers', 4) },
  ],
  // elapsed after each sample: 2, 6, 8, 9, 10, 12, 14 ms
  samples: [3, 2, 3, 4, 5, 3, 6],
  timeDeltas: [2000, 4000, 2000, 1000, 1000, 2000, 2000],
  startTime: 0,
  endTime: 14_000,
};
const whole = { top: 25, skipUs: 0, untilUs: Number.POSITIVE_INFINITY };

describe('summarizeCpuProfile', () => {
  it('counts CPU time without idle, and lists functions by self time with their share of it', () => {
    expect(summarizeCpuProfile(profile, whole)).toEqual([
      '- profile: 0.014 s wall, 10 ms on CPU (main thread, idle excluded)',
      '',
      '| self time (ms) | share of CPU | function |',
      '| --- | --- | --- |',
      '| 6 | 60.0 % | `hot services/payments-service/src/a.ts:10` |',
      '| 2 | 20.0 % | `(anonymous) node:internal/timers:5` |',
      '| 1 | 10.0 % | `lookup\\|find fastify/lib/route.js:1` |',
      '| 1 | 10.0 % | `(program)` |',
    ]);
  });

  it('adds microseconds per unit of work with --per', () => {
    const lines = summarizeCpuProfile(profile, { ...whole, per: 5 });
    expect(lines[0]).toBe('- profile: 0.014 s wall, 10 ms on CPU (main thread, idle excluded), 2000 µs per unit (5 units)');
    expect(lines[2]).toBe('| self time (ms) | share of CPU | µs per unit | function |');
    expect(lines[4]).toBe('| 6 | 60.0 % | 1200.0 | `hot services/payments-service/src/a.ts:10` |');
  });

  it('keeps only the samples from --skip-ms up to (not including) --until-ms', () => {
    const lines = summarizeCpuProfile(profile, { top: 25, skipUs: 7000, untilUs: 12_000 });
    expect(lines[0]).toBe('- profile: 0.014 s wall (only 7 ms to 12 ms), 4 ms on CPU (main thread, idle excluded)');
    expect(lines.slice(4)).toEqual([
      '| 2 | 50.0 % | `hot services/payments-service/src/a.ts:10` |',
      '| 1 | 25.0 % | `lookup\\|find fastify/lib/route.js:1` |',
      '| 1 | 25.0 % | `(program)` |',
    ]);
    expect(summarizeCpuProfile(profile, { ...whole, skipUs: 7000 })[0]).toMatch(/\(only 7 ms to the end\), 8 ms on CPU/);
  });

  it('lists only the top N functions', () => {
    expect(summarizeCpuProfile(profile, { ...whole, top: 2 }).slice(4)).toHaveLength(2);
  });

  it('sums a function reached by several call paths into one row', () => {
    const twice: Profile = {
      ...profile,
      nodes: [...profile.nodes, { id: 7, callFrame: frame('hot', 'file:///home/u/holdfast/services/payments-service/src/a.ts', 9) }],
      samples: [...profile.samples, 7],
      timeDeltas: [...profile.timeDeltas, 4000],
      endTime: 18_000,
    };
    expect(summarizeCpuProfile(twice, whole)[4]).toBe('| 10 | 71.4 % | `hot services/payments-service/src/a.ts:10` |');
  });
});

import { describe, expect, it } from 'vitest';
import {
  alternate,
  median,
  QUIET_LOAD,
  quietVerdict,
  roundsText,
  roundsVerdict,
  SPREAD_HEADER,
  spread,
  spreadCells,
  targetsReport,
} from '../rounds.ts';

describe('median', () => {
  it('is the middle value of an odd count, whatever the order of the rounds', () => {
    expect(median([0.31, 0.22, 0.25, 0.28, 0.24])).toBe(0.25);
  });

  it('is the mean of the two middle values of an even count (e.g. --smoke, 2 rounds)', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([0.2, 0.3])).toBeCloseTo(0.25, 10);
  });

  it('is NaN for no values, and leaves the rounds in their order', () => {
    expect(median([])).toBeNaN();
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('spread', () => {
  it('keeps every round in its order beside the median and the min–max', () => {
    expect(spread([43, 23, 38, 20, 9])).toEqual({ median: 23, min: 9, max: 43, values: [43, 23, 38, 20, 9] });
  });

  it('gives the cells of a ratio table: median, min–max with the unit once, each round', () => {
    expect(spreadCells(spread([0.14, 0.13, 0.1, 0.08, 0.09]), '×', 2)).toEqual(['0.10×', '0.08–0.14×', '0.14, 0.13, 0.10, 0.08, 0.09']);
    expect(spreadCells(spread([43, 58, 22, 20, 26]), ' ms', 0)).toEqual(['26 ms', '20–58 ms', '43, 58, 22, 20, 26']);
  });
});

describe('roundsVerdict', () => {
  it('prints a ratio line as docs/benchmarks.md shows it', () => {
    const s = spread([0.31, 0.22, 0.25, 0.28, 0.24]);
    expect(roundsVerdict('create vs bare insert at 10 in flight', s, '≥', 0.6, '×', 2)).toBe(
      'MISS create vs bare insert at 10 in flight: 0.25× (median of 5 rounds, 0.22–0.31×; target ≥ 0.6×)',
    );
  });

  it('prints a latency line with its unit after a space', () => {
    const s = spread([21.4, 19.1, 29.9, 20.2, 22]);
    expect(roundsVerdict('create p99 latency at 10 in flight', s, '≤', 25, ' ms', 1)).toBe(
      'PASS create p99 latency at 10 in flight: 21.4 ms (median of 5 rounds, 19.1–29.9 ms; target ≤ 25 ms)',
    );
  });

  it('decides on the median, not on a single round', () => {
    // Two rounds of five reach the target; the median does not.
    expect(roundsVerdict('r', spread([0.7, 0.65, 0.5, 0.4, 0.3]), '≥', 0.6, '×', 2)).toMatch(/^MISS r: 0\.50×/);
  });

  it('counts a median exactly on the target as met, either way', () => {
    expect(roundsVerdict('r', spread([0.6]), '≥', 0.6, '×', 2)).toMatch(/^PASS/);
    expect(roundsVerdict('p', spread([20]), '≤', 20, ' ms', 0)).toMatch(/^PASS/);
  });

  it('is a MISS when the target is missed by less than the printed rounding', () => {
    // The verdict is on the unrounded median: 0.596 prints as 0.60× and still misses ≥ 0.6×.
    expect(roundsVerdict('r', spread([0.596]), '≥', 0.6, '×', 2)).toBe('MISS r: 0.60× (one round; target ≥ 0.6×)');
    expect(roundsVerdict('p', spread([20.4]), '≤', 20, ' ms', 0)).toBe('MISS p: 20 ms (one round; target ≤ 20 ms)');
  });

  it('says "one round" for a single round, and the count and spread otherwise', () => {
    expect(roundsVerdict('r', spread([0.5]), '≥', 0.5, '×', 2)).toBe('PASS r: 0.50× (one round; target ≥ 0.5×)');
    expect(roundsVerdict('r', spread([0.4, 0.6]), '≥', 0.5, '×', 2)).toBe('PASS r: 0.50× (median of 2 rounds, 0.40–0.60×; target ≥ 0.5×)');
  });
});

describe('targetsReport', () => {
  it('gives one verdict per target and a table whose result column is its PASS/MISS', () => {
    const { verdicts, table } = targetsReport([
      { what: 'ratio', value: spread([0.4, 0.6, 0.7]), unit: '×', op: '≥', target: 0.5, decimals: 2 },
      { what: 'p99', value: spread([30, 10, 25]), unit: ' ms', op: '≤', target: 20, decimals: 0 },
    ]);
    expect(verdicts).toEqual([
      'PASS ratio: 0.60× (median of 3 rounds, 0.40–0.70×; target ≥ 0.5×)',
      'MISS p99: 25 ms (median of 3 rounds, 10–30 ms; target ≤ 20 ms)',
    ]);
    expect(table.split('\n')).toEqual([
      `| target | ${SPREAD_HEADER.join(' | ')} | target | result |`,
      '| --- | --- | --- | --- | --- | --- |',
      '| ratio | 0.60× | 0.40–0.70× | 0.40, 0.60, 0.70 | ≥ 0.5× | PASS |',
      '| p99 | 25 ms | 10–30 ms | 30, 10, 25 | ≤ 20 ms | MISS |',
    ]);
  });

  it('keeps an information row in the table without a verdict', () => {
    const { verdicts, table } = targetsReport([
      { what: 'old ratio', value: spread([0.4]), unit: '×', op: '≥', target: 0.6, decimals: 2, info: true },
      { what: 'ratio', value: spread([0.9]), unit: '×', op: '≥', target: 0.8, decimals: 2 },
    ]);
    expect(verdicts).toEqual(['PASS ratio: 0.90× (one round; target ≥ 0.8×)']);
    expect(table.split('\n').slice(2)).toEqual([
      '| old ratio | 0.40× | 0.40–0.40× | 0.40 | — | information |',
      '| ratio | 0.90× | 0.90–0.90× | 0.90 | ≥ 0.8× | PASS |',
    ]);
  });
});

describe('alternate', () => {
  const order = async (round: number) => {
    const ran: string[] = [];
    const results = await alternate(
      round,
      async () => ran.push('baseline') && 'b',
      async () => ran.push('subject') && 's',
    );
    return { ran, results };
  };

  it('runs the baseline first in odd rounds and the subject first in even ones', async () => {
    expect((await order(1)).ran).toEqual(['baseline', 'subject']);
    expect((await order(2)).ran).toEqual(['subject', 'baseline']);
    expect((await order(3)).ran).toEqual(['baseline', 'subject']);
  });

  it('answers the baseline first whichever ran first', async () => {
    expect((await order(1)).results).toEqual(['b', 's']);
    expect((await order(2)).results).toEqual(['b', 's']);
  });
});

describe('rounds text', () => {
  it('reads "one round" and "N rounds"', () => {
    expect(roundsText(1)).toBe('one round');
    expect(roundsText(5)).toBe('5 rounds');
  });
});

describe('the quiet-machine check of --write', () => {
  it('counts a 1-minute load up to 1.5 (2 cores) as quiet, writing or not', () => {
    expect(QUIET_LOAD).toBe(1.5);
    expect(quietVerdict(1.5, true, false)).toBe('quiet');
    expect(quietVerdict(0.2, false, false)).toBe('quiet');
  });

  it('refuses to --write above it, unless --force', () => {
    expect(quietVerdict(1.51, true, false)).toBe('refuse');
    expect(quietVerdict(1.51, true, true)).toBe('warn');
  });

  it('only warns above it when nothing is written', () => {
    expect(quietVerdict(8, false, false)).toBe('warn');
  });
});

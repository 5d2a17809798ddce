// Alternating rounds: how the benchmarks that divide a subject by a baseline (create-transaction.ts,
// workspace-list.ts, webhooks.ts) measure on a busy 2-core machine, where one run of each is a sample
// (the same build's replay ratio gave 1.02×, 0.25× and 0.28× a minute apart). Each pair of runs is
// measured K times (`--rounds K`), the baseline first in odd rounds and the subject first in even
// ones, so that drift in the machine's load or in the database's size falls on both alike; each round
// gives its own ratio, and the verdict takes the median of the rounds, printed with their spread
// (min–max) and every round's value.
import os from 'node:os';
import type { Sql } from 'postgres';
import { markdownTable } from './load.ts';
import { flag, numberOption } from './options.ts';

/** Rounds of each pair of runs (`--rounds K`); 5 keeps `node scripts/bench/all.ts` within about 12 minutes. */
export const ROUNDS = Math.max(1, Math.floor(numberOption('rounds', 5)));

/** `5 rounds`, `one round`. */
export const roundsText = (rounds: number) => (rounds === 1 ? 'one round' : `${rounds} rounds`);
export const ROUNDS_TEXT = roundsText(ROUNDS);

/** A 1-minute load average above this is not a quiet machine (2 cores): all.ts and each script refuse to --write. */
export const QUIET_LOAD = 1.5;

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A measure taken once per round: its median, lowest and highest value, and every round's in order. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  values: number[];
}

export function spread(values: number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), values };
}

const formatValue = (value: number, unit: string, decimals: number) => `${value.toFixed(decimals)}${unit}`;
const formatRange = (s: Spread, unit: string, decimals: number) => `${s.min.toFixed(decimals)}–${formatValue(s.max, unit, decimals)}`;

/** The cells of a measure in a ratio table: the median (`0.26×`), the spread (`0.22–0.31×`), every round (`0.22, 0.31, 0.26`). */
export const SPREAD_HEADER = [`median of ${ROUNDS_TEXT}`, 'min–max', 'each round'];
export const spreadCells = (s: Spread, unit: string, decimals: number): string[] => [
  formatValue(s.median, unit, decimals),
  formatRange(s, unit, decimals),
  s.values.map((v) => v.toFixed(decimals)).join(', '),
];

/**
 * The PASS/MISS line of a target on the median of the rounds:
 * `MISS create vs bare insert at 10 in flight: 0.26× (median of 5 rounds, 0.22–0.31×; target ≥ 0.6×)`.
 */
export function roundsVerdict(what: string, s: Spread, op: '≥' | '≤', target: number, unit: string, decimals: number): string {
  const met = op === '≥' ? s.median >= target : s.median <= target;
  const rounds = s.values.length === 1 ? 'one round' : `median of ${s.values.length} rounds, ${formatRange(s, unit, decimals)}`;
  return `${met ? 'PASS' : 'MISS'} ${what}: ${formatValue(s.median, unit, decimals)} (${rounds}; target ${op} ${target}${unit})`;
}

/**
 * Runs a pair of measurements of round `round` (1-based): the baseline first in odd rounds, the
 * subject first in even ones. Answers both results, baseline first.
 */
export async function alternate<A, B>(round: number, baseline: () => Promise<A>, subject: () => Promise<B>): Promise<[A, B]> {
  if (round % 2 === 1) {
    const a = await baseline();
    return [a, await subject()];
  }
  const b = await subject();
  return [await baseline(), b];
}

/** The 1-minute load average now (what each round records when it starts). */
export const loadNow = () => os.loadavg()[0] ?? 0;

/**
 * The quiet-machine check of a script run on its own: with --write and a 1-minute load above
 * QUIET_LOAD it refuses (exit 2) unless --force (all.ts passes --force: it checked before its first
 * script, and the load its own scripts make is not another engineer's); otherwise it warns.
 */
export function checkQuiet(script: string, write: boolean): void {
  const load = loadNow();
  const verdict = quietVerdict(load, write, flag('force'));
  if (verdict === 'quiet') return;
  const say = (message: string) => process.stderr.write(`[${script}] ${message}\n`);
  if (verdict === 'refuse') {
    say(
      `the machine is not quiet (1-minute load ${load.toFixed(2)}, above ${QUIET_LOAD}): numbers would not be comparable; wait, or --force`,
    );
    process.exit(2);
  }
  say(
    `the machine is not quiet (1-minute load ${load.toFixed(2)}, above ${QUIET_LOAD}): read the medians and CPU per request, not one round`,
  );
}

/**
 * What a 1-minute load average means for a run: `quiet` at or below QUIET_LOAD; above it, `refuse`
 * to --write (without --force), else `warn`.
 */
export function quietVerdict(load: number, write: boolean, force: boolean): 'quiet' | 'warn' | 'refuse' {
  if (load <= QUIET_LOAD) return 'quiet';
  return write && !force ? 'refuse' : 'warn';
}

/** The method line of a section measured in rounds (`pairs`: what was paired, e.g. "each run of payments with the bare route's"). */
export const methodLine = (pairs: string) =>
  `${ROUNDS_TEXT}: in each, ${pairs}, back to back, the baseline first in odd rounds and the subject first in even ones (drift in the machine's load falls on both alike); a ratio is computed per round and its verdict takes the median of the rounds, with their spread (min–max) and every round's value beside it; a latency target takes the median of the rounds' p99s (each row's percentiles are its own run's, not pooled). The load column is the 1-minute load average as the run began, the benchmark's own processes included.`;

/** A target of issue 16 measured once per round. */
export interface RoundsTarget {
  what: string;
  value: Spread;
  /** `×` for a ratio, ` ms` for a latency. */
  unit: string;
  op: '≥' | '≤';
  target: number;
  decimals: number;
  /**
   * An old target kept as information (issue 34: the ratios against a one-row insert, against a
   * plain undici loop): its row stays in the table, without a target or a PASS/MISS line.
   */
  info?: boolean;
}

/** The PASS/MISS lines of the targets, on their medians, and their table (median, min–max, each round, target, result). */
export function targetsReport(targets: RoundsTarget[]): { verdicts: string[]; table: string } {
  const rows = targets.map((t) => [
    t.what,
    ...spreadCells(t.value, t.unit, t.decimals),
    t.info ? '—' : `${t.op} ${t.target}${t.unit}`,
    t.info ? 'information' : roundsVerdict(t.what, t.value, t.op, t.target, t.unit, t.decimals).slice(0, 4),
  ]);
  const verdicts = targets.filter((t) => !t.info).map((t) => roundsVerdict(t.what, t.value, t.op, t.target, t.unit, t.decimals));
  return { verdicts, table: markdownTable(['target', ...SPREAD_HEADER, 'target', 'result'], rows) };
}

/**
 * `vacuum analyze` of a bench database: before each round, so that every round runs on current
 * planner statistics and without the dead row versions the last one left (published outbox rows,
 * finished deliveries: updated rows), and every few thousand requests of the soak; what autovacuum
 * does in production. A PostgreSQL with autovacuum off (this machine's shared one) or busy elsewhere
 * never does it for a bench database, and each round ran slower than the last (payments' creations
 * 1180/s in a second round with it, 432/s without, at the same load). `--no-vacuum` leaves the
 * database alone (to see that).
 */
export async function vacuumBenchDatabase(sql: Sql): Promise<void> {
  if (!flag('no-vacuum')) await sql.unsafe('vacuum analyze');
}

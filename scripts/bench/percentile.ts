// Percentiles of a run's latencies, from the values sorted ascending: one rule for every benchmark,
// the nearest rank. Until 2026-11-25 webhooks.ts took one rank higher (p99 of 600 the 6th-slowest,
// of 2000 the 20th-slowest); its sections before then were read so.

/**
 * The nearest-rank percentile: the smallest value with at least p % of the values at or below it
 * (p99 of 100 values is the 99th, of 600 the 594th: the 7th-slowest, of 2000 the 21st-slowest);
 * 0 for none.
 */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

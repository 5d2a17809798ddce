// Percentiles of a run's latencies, from the values sorted ascending. Two ranks are in use, kept
// apart so that each section's numbers stay comparable with its earlier runs: the request and
// head-lag benchmarks (load.ts's users) take the nearest rank, webhooks.ts one rank higher.

/**
 * The nearest-rank percentile: the smallest value with at least p % of the values at or below it
 * (p99 of 100 values is the 99th, of 600 the 594th: the 7th-slowest); 0 for none.
 */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/**
 * The value with ⌊p % of the count⌋ values below it (webhooks.ts's latencies): p99 of 600 values is
 * the 595th, the 6th-slowest; of 100 values the largest. 0 for none.
 */
export const percentileFloorRank = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

// The PASS/MISS lines of issue 16's targets for each process (startup.ts, soak.ts): start to ready,
// idle RSS, RSS after the soak's requests and its growth over the second half of them.

export const READY_TARGET_MS = 1000;
export const IDLE_TARGET_MIB = 120;
export const AFTER_TARGET_MIB = 200;
export const GROWTH_TARGET = 0.05;

/** startup.ts: on the medians of the starts (`readyMs` and `idleMiB` are those medians). */
export function startupVerdicts(name: string, readyMs: number, idleMiB: number): string[] {
  return [
    `${readyMs <= READY_TARGET_MS ? 'PASS' : 'MISS'} ${name} start to ready ${readyMs.toFixed(0)} ms (target ≤ ${READY_TARGET_MS} ms)`,
    `${idleMiB <= IDLE_TARGET_MIB ? 'PASS' : 'MISS'} ${name} idle RSS ${idleMiB.toFixed(1)} MiB (target ≤ ${IDLE_TARGET_MIB} MiB)`,
  ];
}

/** One RSS sample of the soak: requests answered so far and each process's RSS (MiB). */
export interface RssSample {
  requests: number;
  rss: Record<string, number>;
}

/** The sample nearest to half the last one's requests (the earlier of two as near). */
export function halfWaySample<S extends RssSample>(samples: S[]): S {
  const last = samples.at(-1)!;
  return samples.reduce((best, s) => (Math.abs(s.requests - last.requests / 2) < Math.abs(best.requests - last.requests / 2) ? s : best));
}

/** soak.ts: idle (the first sample), after (the last) and growth from the half-way sample to the last. */
export function soakVerdicts(name: string, samples: RssSample[]): string[] {
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const half = halfWaySample(samples);
  const growth = (last.rss[name]! - half.rss[name]!) / half.rss[name]!;
  return [
    `${first.rss[name]! <= IDLE_TARGET_MIB ? 'PASS' : 'MISS'} ${name} idle RSS ${first.rss[name]!.toFixed(1)} MiB (target ≤ ${IDLE_TARGET_MIB} MiB)`,
    `${last.rss[name]! <= AFTER_TARGET_MIB ? 'PASS' : 'MISS'} ${name} RSS after ${last.requests} requests ${last.rss[name]!.toFixed(1)} MiB (target ≤ ${AFTER_TARGET_MIB} MiB)`,
    `${growth < GROWTH_TARGET ? 'PASS' : 'MISS'} ${name} RSS growth from ${half.requests} to ${last.requests} requests ${(growth * 100).toFixed(1)} % (target < ${GROWTH_TARGET * 100} %)`,
  ];
}

// The summary of a V8 `.cpuprofile` that cpuprofile-summary.ts prints (see there): sampled CPU time,
// idle time, and the functions with the most self time, as Markdown lines.

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SummaryOptions {
  /** How many functions the table lists. */
  top: number;
  /** Units of work (e.g. deliveries) for a column of microseconds per unit. */
  per?: number | undefined;
  /** Samples from this many microseconds into the profile... */
  skipUs: number;
  /** ...up to this many (Infinity: to the end). */
  untilUs: number;
}

/** The summary's Markdown lines: a line of totals, then the table of the `top` functions by self time. */
export function summarizeCpuProfile(profile: Profile, { top, per, skipUs, untilUs }: SummaryOptions): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  let elapsedUs = 0;
  profile.samples.forEach((id, i) => {
    elapsedUs += profile.timeDeltas[i] ?? 0;
    if (elapsedUs >= skipUs && elapsedUs < untilUs) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });

  // Functions are grouped by name and place (a function appears once per distinct call path).
  const totals = new Map<string, number>();
  let idle = 0;
  let all = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    all += us;
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') {
      if (frame.functionName === '(idle)') idle += us;
    }
    const where = frame.url
      ? `${frame.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(services|packages)\//, '$1/')}:${frame.lineNumber + 1}`
      : '';
    const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    totals.set(key, (totals.get(key) ?? 0) + us);
  }
  const busy = all - idle;
  const ms = (us: number) => (us / 1000).toFixed(0);
  return [
    `- profile: ${(profile.endTime - profile.startTime) / 1e6} s wall${skipUs || untilUs < Number.POSITIVE_INFINITY ? ` (only ${skipUs / 1000} ms to ${untilUs === Number.POSITIVE_INFINITY ? 'the end' : `${untilUs / 1000} ms`})` : ''}, ${ms(busy)} ms on CPU (main thread, idle excluded)${per ? `, ${(busy / per).toFixed(0)} µs per unit (${per} units)` : ''}`,
    '',
    `| self time (ms) | share of CPU | ${per ? 'µs per unit | ' : ''}function |`,
    `| --- | --- | ${per ? '--- | ' : ''}--- |`,
    ...[...totals.entries()]
      .filter(([key]) => !key.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([key, us]) =>
          `| ${ms(us)} | ${((100 * us) / busy).toFixed(1)} % | ${per ? `${(us / per).toFixed(1)} | ` : ''}\`${key.replaceAll('|', '\\|')}\` |`,
      ),
  ];
}

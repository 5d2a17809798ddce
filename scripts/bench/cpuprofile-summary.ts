// Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): sampled CPU time, idle time, and the
// functions with the most self time, as a Markdown table. Used for the before/after pages under
// docs/perf/.
//
//   node scripts/bench/cpuprofile-summary.ts <file.cpuprofile> [--top 25] [--per N] [--skip-ms 3000] [--until-ms 9000]
//
// `--skip-ms` leaves out the first milliseconds of the profile (start-up: module loading, migrations);
// `--until-ms` what follows that point: together they pick one run of a bench (e.g. the replay).
// `--per N` adds a column of microseconds per unit of work (for example N = deliveries made).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
if (!file) {
  process.stderr.write(
    'usage: node scripts/bench/cpuprofile-summary.ts <file.cpuprofile> [--top 25] [--per N] [--skip-ms 3000] [--until-ms 9000]\n',
  );
  process.exit(2);
}
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : undefined;
};
const top = option('top') ?? 25;
const per = option('per');
const skipUs = (option('skip-ms') ?? 0) * 1000;
const untilUs = (option('until-ms') ?? Number.POSITIVE_INFINITY) * 1000;

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
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
const lines = [
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
process.stdout.write(`${lines.join('\n')}\n`);

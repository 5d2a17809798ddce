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
import { type Profile, summarizeCpuProfile } from './cpuprofile.ts';

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
process.stdout.write(`${summarizeCpuProfile(profile, { top, per, skipUs, untilUs }).join('\n')}\n`);

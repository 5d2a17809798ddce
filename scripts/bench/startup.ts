// Start-up benchmark: for each of the four built processes, the time from spawning `node bundle/main.js`
// to the first 200 of its /health/ready (polled every 10 ms), the median of a few starts, and its RSS
// once idle (a few seconds after ready). Each process starts alone on a migrated database (the
// migrations are not part of the start), so the others' start-up does not share its CPU; the starts
// go in rounds (each process once per round), so that a busy moment of the machine falls on all four.
//
//   pnpm exec turbo run build && node scripts/bench/startup.ts [--starts 5] [--idle-seconds 3]
//
// BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" passes Node flags to every process (to profile a start).
// --services-root DIR runs another checkout's built services (a before/after comparison in one run).
// Prints one PASS/MISS line per process and target: ready within 1 s, idle RSS at most 120 MiB.
import os from 'node:os';
import { prepareFourProcesses } from './four-processes.ts';
import { machineLine, markdownTable, writeLinesSection } from './load.ts';
import { benchmarksFile, flag, nodeArgsFrom, numberOption, stringOption } from './options.ts';
import { startupVerdicts } from './process-verdicts.ts';
import { checkQuiet, loadNow, median } from './rounds.ts';

const STARTS = numberOption('starts', 5);
const servicesRoot = stringOption('services-root');
const IDLE_SECONDS = numberOption('idle-seconds', 3);
const nodeArgs = nodeArgsFrom('BENCH_NODE_ARGS');
const log = (message: string) => process.stderr.write(`[startup] ${message}\n`);

checkQuiet('startup', flag('write'));
const startLoad = os.loadavg();
const stack = await prepareFourProcesses({
  lane: 'startup',
  ...(servicesRoot ? { servicesRoot } : {}),
});
const results = stack.list.map((service) => ({ name: service.name, ready: [] as number[], cpu: [] as number[], idle: [] as number[] }));
/** The 1-minute load average as each round began. */
const roundLoads: number[] = [];
try {
  // Round after round, each process started once in each: a busy minute on the machine falls on all
  // four, not on the five starts of one.
  for (let i = 0; i < STARTS; i += 1) {
    roundLoads.push(loadNow());
    for (const result of results) {
      const { readyMs, cpuMs } = await stack.start(result.name, nodeArgs);
      await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
      result.idle.push(stack.rssMiB(result.name));
      await stack.stop(result.name);
      result.ready.push(readyMs);
      result.cpu.push(cpuMs);
      log(`${result.name}: ready in ${readyMs.toFixed(0)} ms (${cpuMs} ms CPU), idle RSS ${result.idle.at(-1)!.toFixed(1)} MiB`);
    }
  }
} finally {
  await stack.close();
}

const rows = results.map((r) => [
  r.name,
  r.ready.map((ms) => ms.toFixed(0)).join(', '),
  median(r.ready).toFixed(0),
  median(r.cpu).toFixed(0),
  median(r.idle).toFixed(1),
]);
const header = [
  'process',
  'start to ready, each start (ms)',
  'median (ms)',
  'CPU time until ready, median (ms)',
  `idle RSS ${IDLE_SECONDS} s after ready, median (MiB)`,
];
const startupLines = [
  `Start-up, ${new Date().toISOString()}: ${STARTS} starts per process of ${servicesRoot ?? 'this checkout'}, Node ${process.versions.node} ${nodeArgs.join(' ')}`,
  machineLine(startLoad),
  `Each round starts every process once, one after the other; 1-minute load average as each round began: ${roundLoads.map((l) => l.toFixed(2)).join(', ')}`,
  '',
  markdownTable(header, rows),
  '',
  ...results.flatMap((r) => startupVerdicts(r.name, median(r.ready), median(r.idle))),
  '',
];
writeLinesSection(
  {
    name: 'startup',
    title: 'Start-up: start to ready and idle RSS',
    command: `node scripts/bench/startup.ts --starts ${STARTS}`,
    lines: startupLines,
  },
  flag('write'),
  benchmarksFile,
);

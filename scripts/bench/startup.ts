// Start-up benchmark: for each of the four built processes, the time from spawning `node bundle/main.js`
// to the first 200 of its /health/ready (polled every 10 ms), the median of a few starts, and its RSS
// once idle (a few seconds after ready). Each process starts alone on a migrated database (the
// migrations are not part of the start), so the others' start-up does not share its CPU.
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

const STARTS = numberOption('starts', 5);
const servicesRoot = stringOption('services-root');
const IDLE_SECONDS = numberOption('idle-seconds', 3);
const READY_TARGET_MS = 1000;
const IDLE_TARGET_MIB = 120;
const nodeArgs = nodeArgsFrom('BENCH_NODE_ARGS');
const log = (message: string) => process.stderr.write(`[startup] ${message}\n`);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const startLoad = os.loadavg();
const stack = await prepareFourProcesses({
  lane: 'startup',
  ...(servicesRoot ? { servicesRoot } : {}),
});
const results: { name: string; ready: number[]; cpu: number[]; idle: number[] }[] = [];
try {
  for (const service of stack.list) {
    const result = { name: service.name, ready: [] as number[], cpu: [] as number[], idle: [] as number[] };
    for (let i = 0; i < STARTS; i += 1) {
      const { readyMs, cpuMs } = await stack.start(service.name, nodeArgs);
      await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
      result.idle.push(stack.rssMiB(service.name));
      await stack.stop(service.name);
      result.ready.push(readyMs);
      result.cpu.push(cpuMs);
      log(`${service.name}: ready in ${readyMs.toFixed(0)} ms (${cpuMs} ms CPU), idle RSS ${result.idle.at(-1)!.toFixed(1)} MiB`);
    }
    results.push(result);
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
  '',
  markdownTable(header, rows),
  '',
  ...results.flatMap((r) => [
    `${median(r.ready) <= READY_TARGET_MS ? 'PASS' : 'MISS'} ${r.name} start to ready ${median(r.ready).toFixed(0)} ms (target ≤ ${READY_TARGET_MS} ms)`,
    `${median(r.idle) <= IDLE_TARGET_MIB ? 'PASS' : 'MISS'} ${r.name} idle RSS ${median(r.idle).toFixed(1)} MiB (target ≤ ${IDLE_TARGET_MIB} MiB)`,
  ]),
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

// Runs every benchmark of scripts/bench one after the other, in one run on one machine, and prints
// the PASS/MISS line of every target of issue 16 at the end. With --write each script rewrites its
// own section of docs/benchmarks.md, and this script rewrites the summary at the top of it (date,
// machine, load, commands, every verdict), so the file holds one dated run of all of them.
//
//   pnpm exec turbo run build && node scripts/bench/all.ts [--write] [--only a,b] [--rounds K] [--smoke]
//
// --smoke runs each script with small counts (and 2 rounds) and checks only that it completes and
// prints its verdicts (what ./scripts/test runs, so the benchmarks cannot rot); its numbers mean
// nothing. --rounds K goes to the scripts that measure in alternating rounds (rounds.ts; their
// default otherwise). Run the real thing on a quiet machine: the script prints the load average
// before it starts and refuses to --write when the 1-minute load is above 1.5 (--force to write
// anyway, e.g. to see it); once it started, its scripts write whatever load they themselves make.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { benchmarksFile, flag, root, stringOption } from './options.ts';
import { QUIET_LOAD, quietVerdict } from './rounds.ts';

const WRITE = flag('write');
const SMOKE = flag('smoke');
const FORCE = flag('force');
const ONLY = stringOption('only')?.split(',');
const ROUNDS = stringOption('rounds');

interface Bench {
  name: string;
  /** Arguments of the full run (what docs/benchmarks.md records). */
  full: string[];
  /** Arguments of the smoke run: small counts, seconds not minutes. */
  smoke: string[];
  /** Whether it measures in alternating rounds (takes --rounds). */
  rounds?: boolean;
  /** The smoke run only when this holds (else it is skipped, and said so). */
  smokeOnlyIf?: () => boolean;
}

const BENCHES: Bench[] = [
  {
    name: 'create-transaction',
    full: [],
    smoke: ['--rounds', '2', '--requests', '200', '--replays', '200', '--reads', '200', '--warmup', '50', '--history', '500'],
    rounds: true,
  },
  { name: 'workspace-list', full: [], smoke: ['--rounds', '2', '--requests', '200', '--warmup', '50'], rounds: true },
  { name: 'webhooks', full: [], smoke: ['--rounds', '2', '--deliveries', '300', '--seconds', '1', '--history', '500'], rounds: true },
  { name: 'escrow-lag', full: [], smoke: ['--samples', '5'] },
  { name: 'checkout', full: [], smoke: ['--samples', '3', '--loads', '2'] },
  { name: 'chain-indexer', full: [], smoke: ['--singles', '50', '--batches', '2', '--legs', '5', '--lag', '5'] },
  // Against Ponder (issue 34): its smoke form only where Ponder is installed already (scripts/bench/.ponder,
  // which the full run installs on first use), so that ./scripts/test never installs it.
  {
    name: 'ponder',
    full: [],
    smoke: ['--smoke', '--rounds', '2', '--singles', '50', '--batches', '2', '--legs', '5'],
    rounds: true,
    smokeOnlyIf: () => existsSync(join(root, 'scripts/bench/.ponder/node_modules/ponder/package.json')),
  },
  { name: 'startup', full: [], smoke: ['--starts', '1'] },
  { name: 'soak', full: [], smoke: ['--requests', '2000'] },
];

const say = (message: string) => process.stderr.write(`[bench:all] ${message}\n`);

function run(bench: Bench): Promise<{ code: number; verdicts: string[]; seconds: number }> {
  const script = join(root, 'scripts', 'bench', `${bench.name}.ts`);
  // --force: this script checked the load before the first one; what a script sees after it is mostly the load of the one before.
  const benchArgs = [
    ...(SMOKE ? bench.smoke : bench.full),
    ...(ROUNDS && bench.rounds && !SMOKE ? ['--rounds', ROUNDS] : []),
    ...(WRITE && !SMOKE ? ['--write', '--force'] : []),
  ];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...benchArgs], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      process.stdout.write(chunk);
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      // A verdict line starts with PASS or MISS (after an optional list marker or table pipe).
      const verdicts = out
        .split('\n')
        .map((line) => line.replace(/^[\s|*-]+/, '').trim())
        .filter((line) => /^(PASS|MISS)\b/.test(line));
      resolve({ code: code ?? 1, verdicts: [...new Set(verdicts)], seconds: (performance.now() - started) / 1000 });
    });
  });
}

function machine(load: number[]): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.versions.node}; load average ${load.map((x) => x.toFixed(2)).join(', ')} at the start`;
}

async function main(): Promise<void> {
  const startLoad = os.loadavg();
  say(`load average ${startLoad.map((x) => x.toFixed(2)).join(', ')} (${os.cpus().length} cores)`);
  if (!SMOKE && quietVerdict(startLoad[0] ?? 0, WRITE, FORCE) === 'refuse') {
    say(`the machine is not quiet (1-minute load above ${QUIET_LOAD}): numbers would not be comparable; wait, or --force`);
    process.exit(2);
  }
  const chosen = BENCHES.filter((b) => !ONLY || ONLY.includes(b.name)).filter((b) => {
    if (!SMOKE || !b.smokeOnlyIf || b.smokeOnlyIf()) return true;
    say(`skipped ${b.name} (smoke): what it needs is not installed`);
    return false;
  });
  const results: { bench: Bench; code: number; verdicts: string[]; seconds: number }[] = [];
  for (const bench of chosen) {
    say(`▶ ${bench.name}${SMOKE ? ' (smoke)' : ''}`);
    const result = await run(bench);
    results.push({ bench, ...result });
    say(`${result.code === 0 ? '✔' : '✘'} ${bench.name} in ${result.seconds.toFixed(0)} s, ${result.verdicts.length} verdicts`);
  }
  const lines = results.flatMap((r) => [
    `- \`${r.bench.name}\` (${r.code === 0 ? 'completed' : `failed, exit ${r.code}`}, ${r.seconds.toFixed(0)} s; \`node scripts/bench/${[r.bench.name + '.ts', ...r.bench.full, ...(ROUNDS && r.bench.rounds ? ['--rounds', ROUNDS] : [])].join(' ')}\`)`,
    ...r.verdicts.map((v) => `  - ${v}`),
  ]);
  process.stdout.write(`\n${lines.join('\n')}\n`);
  const failed = results.filter((r) => r.code !== 0 || r.verdicts.length === 0);
  if (WRITE && !SMOKE && !ONLY) writeSummary(startLoad, lines);
  if (failed.length > 0) {
    say(`failed or printed no verdict: ${failed.map((r) => r.bench.name).join(', ')}`);
    process.exit(1);
  }
}

function writeSummary(startLoad: number[], lines: string[]): void {
  const passes = lines.filter((l) => /^\s+- PASS/.test(l)).length;
  const misses = lines.filter((l) => /^\s+- MISS/.test(l)).length;
  const section = [
    '<!-- summary:start -->',
    '## Summary of the last full run',
    '',
    `- **date**: ${new Date().toISOString().replace('T', ' ').slice(0, 16)} UTC`,
    `- **machine**: ${machine(startLoad)}`,
    '- **command**: `pnpm exec turbo run build && node scripts/bench/all.ts --write` (every script below, one after the other)',
    `- **verdicts**: ${passes} PASS, ${misses} MISS`,
    '',
    ...lines,
    '<!-- summary:end -->',
  ].join('\n');
  const file = benchmarksFile;
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const pattern = /<!-- summary:start -->[\s\S]*<!-- summary:end -->/;
  if (pattern.test(text)) text = text.replace(pattern, section);
  else {
    // Right after the introduction (before the first section of a script).
    const firstSection = text.search(/\n## |\n<!-- /);
    text =
      firstSection < 0 ? `${text.trimEnd()}\n\n${section}\n` : `${text.slice(0, firstSection)}\n\n${section}\n${text.slice(firstSection)}`;
  }
  writeFileSync(file, text);
  say(`summary written to ${file}`);
}

await main();

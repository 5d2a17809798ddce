import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { say } from './log.ts';
import { findBinary } from './servers.ts';

/**
 * The promtool that checks and unit-tests infra/observability's alert rules: HOLDFAST_PROMTOOL when
 * set, else `promtool` on PATH, else the one in Debian's `prometheus` package, unpacked into
 * .tools/prometheus rather than installed: installing the package would also start a Prometheus
 * server (and its node exporter) on a machine with systemd, and promtool is one static binary.
 */
export function ensurePromtool(root: string, env: NodeJS.ProcessEnv): string {
  if (env.HOLDFAST_PROMTOOL) return env.HOLDFAST_PROMTOOL;
  const onPath = findBinary('promtool');
  if (onPath) return onPath;
  const dir = join(root, '.tools', 'prometheus');
  const unpacked = join(dir, 'usr', 'bin', 'promtool');
  if (existsSync(unpacked)) return unpacked;
  say("alert rule tests: no promtool found; unpacking Debian's prometheus package into .tools/prometheus");
  mkdirSync(dir, { recursive: true });
  const run = (args: string[]) => execFileSync(args[0]!, args.slice(1), { cwd: dir, stdio: 'inherit' });
  try {
    try {
      run(['apt-get', 'download', '-qq', 'prometheus']);
    } catch {
      // No package lists yet (a fresh machine): refreshing them needs root or passwordless sudo.
      run(process.getuid?.() === 0 ? ['apt-get', 'update', '-qq'] : ['sudo', '-n', 'apt-get', 'update', '-qq']);
      run(['apt-get', 'download', '-qq', 'prometheus']);
    }
    const deb = readdirSync(dir).find((f) => f.startsWith('prometheus_') && f.endsWith('.deb'));
    if (!deb) throw new Error('apt-get download left no prometheus_*.deb');
    run(['dpkg-deb', '-x', deb, '.']);
  } catch (error) {
    throw new Error(
      "Could not fetch Debian's prometheus package for promtool. Install promtool yourself, or set HOLDFAST_PROMTOOL to a promtool binary.",
      { cause: error },
    );
  }
  if (!existsSync(unpacked)) throw new Error(`the prometheus package holds no ${unpacked}`);
  return unpacked;
}

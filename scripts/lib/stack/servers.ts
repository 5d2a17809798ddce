import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { say } from './log.ts';
import type { Started } from './postgres.ts';

/** A server binary on PATH (or the usual system directories). */
export function findBinary(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/usr/bin', '/usr/local/bin'])) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Installs Debian's package of a server the stack needs (as root, or with passwordless sudo) and
 * returns the binary's path; `instead` tells the user what to do where that is not possible.
 */
export function installDebianPackage(what: string, pkg: string, binary: string, instead: string): string {
  const asRoot = process.getuid?.() === 0;
  say(`${what}: no ${binary} found; installing Debian's package (apt-get install ${pkg})`);
  const options = { stdio: 'inherit' as const, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
  const run = (args: string[]) =>
    asRoot ? execFileSync(args[0]!, args.slice(1), options) : execFileSync('sudo', ['-n', ...args], options);
  try {
    run(['apt-get', 'update', '-qq']);
    run(['apt-get', 'install', '-y', '-qq', pkg]);
  } catch (error) {
    throw new Error(`Could not install ${pkg} (needs root or passwordless sudo on Debian). Install it yourself, or ${instead}.`, {
      cause: error,
    });
  }
  const found = findBinary(binary);
  if (!found) throw new Error(`${pkg} was installed but ${binary} is not on PATH`);
  return found;
}

/**
 * Starts a server of the stack in the background, its output appended to `logFile`; killed when
 * this command exits, stopped (SIGTERM, waiting for its exit) by the returned `stop`.
 */
export function spawnServer(binary: string, args: string[], logFile: string): Started {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = openSync(logFile, 'a');
  const child = spawn(binary, args, { stdio: ['ignore', log, log], detached: true });
  process.once('exit', () => child.kill('SIGKILL'));
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
